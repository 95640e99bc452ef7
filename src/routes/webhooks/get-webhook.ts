import { getWebhook } from "../../services/webhooks/get-webhook";
import type { App } from "../../types";
import { authedRoute, ok } from "../openapi";
import { WebhookEndpointSchema, WebhookParam } from "./schemas";

const route = authedRoute({
  area: "webhooks",
  method: "get",
  path: "/api/webhooks/{id}",
  operationId: "getWebhook",
  tags: ["Webhooks"],
  summary: "Get one webhook endpoint",
  request: { params: WebhookParam },
  responses: { 200: ok(WebhookEndpointSchema, "The endpoint (never its secret).") },
});

export function registerGetWebhook(app: App) {
  app.openapi(route, async (c) => c.json(await getWebhook(c.get("workspace"), c.req.valid("param").id), 200));
}
