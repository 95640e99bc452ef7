import { createWebhook } from "../../services/webhooks/create-webhook";
import type { App } from "../../types";
import { authedRoute, jsonBody, ok } from "../openapi";
import { CreatedWebhookEndpointSchema, CreateWebhookRequest } from "./schemas";

const route = authedRoute({
  area: "webhooks",
  method: "post",
  path: "/api/webhooks",
  operationId: "createWebhook",
  tags: ["Webhooks"],
  summary: "Create a webhook endpoint (the signing secret is shown only in this answer)",
  request: jsonBody(CreateWebhookRequest),
  responses: { 201: ok(CreatedWebhookEndpointSchema, "The endpoint and its signing secret.") },
});

export function registerCreateWebhook(app: App) {
  app.openapi(route, async (c) => c.json(await createWebhook(c.get("workspace"), c.req.valid("json")), 201));
}
