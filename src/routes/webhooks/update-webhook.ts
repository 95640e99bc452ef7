import { updateWebhook } from "../../services/webhooks/update-webhook";
import type { App } from "../../types";
import { authedRoute, jsonBody, ok } from "../openapi";
import { UpdateWebhookRequest, WebhookEndpointSchema, WebhookParam } from "./schemas";

const route = authedRoute({
  area: "webhooks",
  method: "put",
  path: "/api/webhooks/{id}",
  operationId: "updateWebhook",
  tags: ["Webhooks"],
  summary: "Change a webhook endpoint's url, events, description or enabled flag",
  request: { params: WebhookParam, ...jsonBody(UpdateWebhookRequest) },
  responses: { 200: ok(WebhookEndpointSchema, "The updated endpoint.") },
});

export function registerUpdateWebhook(app: App) {
  app.openapi(route, async (c) =>
    c.json(await updateWebhook(c.get("workspace"), c.req.valid("param").id, c.req.valid("json")), 200),
  );
}
