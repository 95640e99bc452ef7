import { z } from "zod";
import { PLATFORMS } from "../catalog/platforms";
import { createConnectLink, LINK_PURPOSE_MAX_LENGTH } from "../services/connect/connect-links";
import { deleteConnectLink } from "../services/connect/delete-connect-link";
import { listConnectLinks } from "../services/connect/list-connect-links";
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
      "Returns {url, expires_at}: a page of this service that names the workspace and, on Continue, takes the user's browser to the network's consent page (the flow then completes only in that browser). Give the URL to the user; after they allow access the account is connected (or they pick Pages/channels/organizations/a board). Single use, short-lived. Bluesky connects with an app password instead (create-connect-link-tool).",
    input: {
      platform: z.enum(PLATFORMS).describe("Network to connect."),
      redirect_url: redirectUrl,
      instance: z.string().max(255).optional().describe("Mastodon only: the user's server, e.g. mastodon.social."),
    },
    annotations: WRITE,
    run: (ctx, input) => startConnect(ctx, ctx.workspaceId, input, { apiKeyId: ctx.apiKeyId }),
  }),
  defineTool({
    name: "create-connect-link-tool",
    title: "Create a hosted connect link",
    description:
      "Returns {url, expires_at}: a page of this service where the user connects any network (OAuth, Mastodon, Bluesky app password) without an API key.",
    input: {
      redirect_url: redirectUrl,
      expires_in: z
        .number()
        .int()
        .min(300)
        .max(604_800)
        .optional()
        .describe("Seconds the link stays valid (never beyond this API key's own expiry)."),
      purpose: z
        .string()
        .max(LINK_PURPOSE_MAX_LENGTH)
        .optional()
        .describe("Why the accounts are asked for; shown on the hosted pages under the workspace's name."),
    },
    annotations: WRITE,
    run: (ctx, input) => createConnectLink(ctx, input),
  }),
  defineTool({
    name: "list-connect-links-tool",
    title: "List connect links",
    description:
      "The workspace's connect links (id, purpose, redirect_url, issuing api_key_id, status active/expired/key_ended/person_left, expiry), newest first, 50 per page. Tokens are never shown again.",
    scope: "full",
    input: { page: z.number().int().min(1).max(100_000).optional().describe("Page, from 1 (default 1).") },
    annotations: { readOnlyHint: true },
    run: (ctx, input) => listConnectLinks(ctx, input.page ?? 1),
  }),
  defineTool({
    name: "delete-connect-link-tool",
    title: "Delete a connect link",
    description:
      "Deletes a connect link by id: its page stops working at once and flows started from it are refused when they come back.",
    input: {
      link_id: z
        .string()
        .regex(/^[0-9a-f]{64}$/)
        .describe("The link's id (from create or list)."),
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    run: async (ctx, input) => {
      await deleteConnectLink(ctx, input.link_id);
      return { deleted: true };
    },
  }),
];
