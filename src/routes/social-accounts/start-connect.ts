import { z } from "@hono/zod-openapi";
import { PLATFORMS } from "../../catalog/platforms";
import { startConnect } from "../../services/connect/start-connect";
import type { App } from "../../types";
import { authedRoute, jsonBody, ok } from "../openapi";

export const StartConnectRequest = z
  .object({
    platform: z.enum(PLATFORMS).openapi({ description: "Network to connect (Bluesky uses an app password instead)." }),
    redirect_url: z.string().max(2048).nullish().openapi({
      description:
        "Where the browser lands afterwards, with `?connected=<platform>&accounts=<ids>` or `?error=<code>&error_description=…`. Its origin must be in CONNECT_REDIRECT_ALLOWLIST, or it is a page of this server's own dashboard (`<PUBLIC_URL>/app/…`).",
    }),
    instance: z.string().max(255).nullish().openapi({ description: "Mastodon server, e.g. `mastodon.social`." }),
  })
  .openapi("StartConnectRequest");

export const ConnectUrlSchema = z
  .object({
    url: z.string().openapi({ description: "Open it in the user's browser." }),
    expires_at: z.string().openapi({ description: "ISO 8601; after it the link no longer completes." }),
  })
  .openapi("ConnectUrl");

const route = authedRoute({
  method: "post",
  path: "/api/social-accounts/connect",
  operationId: "startConnect",
  tags: ["Connect accounts"],
  summary:
    "Start connecting an account: a page of ours (`/connect/authorize/…`) that names the workspace and, on Continue, binds the flow to that browser and goes to the network's consent page",
  request: jsonBody(StartConnectRequest),
  responses: { 200: ok(ConnectUrlSchema, "The URL to open in the user's browser (single use, one browser).") },
});

export function registerStartConnect(app: App) {
  app.openapi(route, async (c) => {
    const ws = c.get("workspace");
    return c.json(
      await startConnect(ws, ws.workspaceId, c.req.valid("json"), {
        apiKeyId: ws.apiKeyId,
        createdByUserId: ws.person?.userId ?? null,
      }),
      200,
    );
  });
}
