import { z } from "zod";
import { PLATFORMS } from "../catalog/platforms";
import { createConnectLink } from "../services/connect/connect-links";
import { startConnect } from "../services/connect/start-connect";
import { defineTool } from "./tool";

/** Connect accounts (issue 18): an agent hands these links to its user; the browser does the rest. */
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false } as const;

const redirectUrl = z
  .string()
  .max(2048)
  .optional()
  .describe("Where the browser lands afterwards; its origin must be on the server's CONNECT_REDIRECT_ALLOWLIST.");

export const connectTools = [
  defineTool({
    name: "connect-social-account-tool",
    title: "Connect a social account",
    description:
      "Returns {url, expires_at}: the network's consent page for this workspace. Give the URL to the user; after they allow access the account is connected (or they pick Pages/channels/organizations/a board). Single use, short-lived. Bluesky connects with an app password instead (create-connect-link-tool).",
    input: {
      platform: z.enum(PLATFORMS).describe("Network to connect."),
      redirect_url: redirectUrl,
      instance: z.string().max(255).optional().describe("Mastodon only: the user's server, e.g. mastodon.social."),
    },
    annotations: WRITE,
    run: (ctx, input) => startConnect(ctx, ctx.workspaceId, input),
  }),
  defineTool({
    name: "create-connect-link-tool",
    title: "Create a hosted connect link",
    description:
      "Returns {url, expires_at}: a page of this service where the user connects any network (OAuth, Mastodon, Bluesky app password) without an API key.",
    input: {
      redirect_url: redirectUrl,
      expires_in: z.number().int().min(300).max(604_800).optional().describe("Seconds the link stays valid."),
    },
    annotations: WRITE,
    run: (ctx, input) => createConnectLink(ctx, input),
  }),
];
