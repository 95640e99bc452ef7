import { z } from "@hono/zod-openapi";
import { listWebhooks } from "../../services/webhooks/list-webhooks";
import type { App } from "../../types";
import { authedRoute, ok } from "../openapi";
import { WebhookEndpointSchema } from "./schemas";

const route = authedRoute({
  area: "webhooks",
  method: "get",
  path: "/api/webhooks",
  operationId: "listWebhooks",
  tags: ["Webhooks"],
  summary: "List webhook endpoints (plain array, oldest first)",
  responses: { 200: ok(z.array(WebhookEndpointSchema), "The workspace's endpoints.") },
});

export function registerListWebhooks(app: App) {
  app.openapi(route, async (c) => c.json(await listWebhooks(c.get("workspace")), 200));
}
