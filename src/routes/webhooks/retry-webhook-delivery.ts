import { retryWebhookDelivery } from "../../services/webhooks/retry-webhook-delivery";
import type { App } from "../../types";
import { authedRoute, ErrorSchema, ok } from "../openapi";
import { DeliveryParams, WebhookDeliverySchema } from "./schemas";

const route = authedRoute({
  area: "webhooks",
  method: "post",
  path: "/api/webhooks/{id}/deliveries/{delivery}/retry",
  operationId: "retryWebhookDelivery",
  tags: ["Webhooks"],
  summary: "Send a finished delivery again (same webhook-id and body)",
  request: { params: DeliveryParams },
  responses: {
    202: ok(WebhookDeliverySchema, "The delivery, pending again."),
    409: ok(ErrorSchema, "The delivery is already pending or being sent, or the endpoint is disabled."),
  },
});

export function registerRetryWebhookDelivery(app: App) {
  app.openapi(route, async (c) => {
    const { id, delivery } = c.req.valid("param");
    return c.json(await retryWebhookDelivery(c.get("workspace"), id, delivery), 202);
  });
}
