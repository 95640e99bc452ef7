import { z } from "@hono/zod-openapi";
import {
  createConnectLink,
  LINK_PURPOSE_MAX_LENGTH,
  MAX_LINK_TTL_SECONDS,
  MIN_LINK_TTL_SECONDS,
} from "../../services/connect/connect-links";
import type { App } from "../../types";
import { authedRoute, jsonBody, ok } from "../openapi";
import { ConnectLinkCreatedSchema } from "./schemas";

const CreateConnectLinkRequest = z
  .object({
    redirect_url: z.string().max(2048).nullish().openapi({
      description:
        "Where the browser lands after each connection; its origin must be in CONNECT_REDIRECT_ALLOWLIST, or it is a page of this server's own dashboard (`<PUBLIC_URL>/app/…`).",
    }),
    expires_in: z.number().int().min(MIN_LINK_TTL_SECONDS).max(MAX_LINK_TTL_SECONDS).nullish().openapi({
      description:
        "Seconds the link stays valid (default CONNECT_LINK_TTL_SECONDS, 1 day); never beyond the calling key's own expiry.",
    }),
    purpose: z.string().max(LINK_PURPOSE_MAX_LENGTH).nullish().openapi({
      description:
        "Why the accounts are asked for (e.g. `Posting for the spring campaign`): shown on every hosted page.",
    }),
  })
  .openapi("CreateConnectLinkRequest");

const route = authedRoute({
  method: "post",
  path: "/api/connect-links",
  operationId: "createConnectLink",
  tags: ["Connect accounts"],
  summary: "A hosted connect page link for the workspace's end users (no API key in their browser)",
  request: jsonBody(CreateConnectLinkRequest),
  responses: { 201: ok(ConnectLinkCreatedSchema, "The link.") },
});

export function registerCreateConnectLink(app: App) {
  app.openapi(route, async (c) => c.json(await createConnectLink(c.get("workspace"), c.req.valid("json")), 201));
}
