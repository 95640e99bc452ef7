import { testWebhook } from "../../services/webhooks/test-webhook";
import type { App } from "../../types";
import { authedRoute, ErrorSchema, ok } from "../openapi";
import { WebhookDeliverySchema, WebhookParam } from "./schemas";

const route = authedRoute({
  area: "webhooks",
  method: "post",
  path: "/api/webhooks/{id}/test",
  operationId: "testWebhook",
  tags: ["Webhooks"],
  summary: "Send a webhook.test event to this endpoint (through the queue, signed and retried like any event)",
  request: { params: WebhookParam },
  responses: {
    202: ok(WebhookDeliverySchema, "The queued delivery; its log entry shows the outcome."),
    409: ok(ErrorSchema, "The endpoint is disabled."),
  },
});

export function registerTestWebhook(app: App) {
  app.openapi(route, async (c) => c.json(await testWebhook(c.get("workspace"), c.req.valid("param").id), 202));
}
