import { deleteWebhook } from "../../services/webhooks/delete-webhook";
import type { App } from "../../types";
import { authedRoute, noContent } from "../openapi";
import { WebhookParam } from "./schemas";

const route = authedRoute({
  area: "webhooks",
  method: "delete",
  path: "/api/webhooks/{id}",
  operationId: "deleteWebhook",
  tags: ["Webhooks"],
  summary: "Delete a webhook endpoint and its delivery log",
  request: { params: WebhookParam },
  responses: { 204: noContent },
});

export function registerDeleteWebhook(app: App) {
  app.openapi(route, async (c) => {
    await deleteWebhook(c.get("workspace"), c.req.valid("param").id);
    return c.body(null, 204);
  });
}
