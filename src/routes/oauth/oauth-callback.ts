import { z } from "@hono/zod-openapi";
import { PLATFORMS } from "../../catalog/platforms";
import { presentedBrowserHash } from "../../connect/browser";
import { callbackResponse, failureResponse } from "../../connect/respond";
import { ConnectFailure, completeConnect } from "../../services/connect/complete-connect";
import type { App } from "../../types";
import { publicRoute } from "../openapi";

const route = publicRoute({
  method: "get",
  path: "/api/oauth/{platform}/callback",
  operationId: "oauthCallback",
  tags: ["Connect accounts"],
  summary:
    "Where a network sends the browser back after consent (no API key: the single-use state, in the browser that holds the flow's `__Host-esp-connect` cookie, is the credential)",
  request: {
    params: z.object({
      platform: z.enum(PLATFORMS).openapi({ param: { name: "platform", in: "path" }, description: "Platform." }),
    }),
    query: z.object({
      code: z.string().max(4096).optional().openapi({ description: "Authorization code." }),
      state: z.string().max(512).optional().openapi({ description: "The state issued when the connection started." }),
      error: z.string().max(256).optional().openapi({ description: "Set by the network when consent was denied." }),
      error_description: z.string().max(1024).optional(),
    }),
  },
  responses: {
    200: { content: { "text/html": { schema: z.string() } }, description: "Connected: a confirmation page." },
    303: { description: "To the account selection page, or to the caller's redirect_url (`?connected=` / `?error=`)." },
  },
});

export function registerOAuthCallback(app: App) {
  app.openapi(route, async (c) => {
    const { platform } = c.req.valid("param");
    try {
      const browserHash = await presentedBrowserHash(c);
      const result = await completeConnect(c.get("service"), platform, c.req.valid("query"), browserHash);
      return callbackResponse(c, result) as never;
    } catch (err) {
      if (err instanceof ConnectFailure) return failureResponse(c, err) as never;
      throw err;
    }
  });
}
