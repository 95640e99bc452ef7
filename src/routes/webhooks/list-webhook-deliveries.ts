import { z } from "@hono/zod-openapi";
import { listWebhookDeliveries } from "../../services/webhooks/list-webhook-deliveries";
import type { App } from "../../types";
import { authedRoute, ok } from "../openapi";
import { WebhookDeliveryPageSchema, WebhookParam } from "./schemas";

const route = authedRoute({
  area: "webhooks",
  method: "get",
  path: "/api/webhooks/{id}/deliveries",
  operationId: "listWebhookDeliveries",
  tags: ["Webhooks"],
  summary: "The endpoint's delivery log, newest first, 50 per page",
  request: {
    params: WebhookParam,
    query: z.object({
      page: z.coerce.number().int().min(1).max(100_000).optional().openapi({ description: "Page, from 1." }),
    }),
  },
  responses: { 200: ok(WebhookDeliveryPageSchema, "One page of deliveries.") },
});

export function registerListWebhookDeliveries(app: App) {
  app.openapi(route, async (c) =>
    c.json(
      await listWebhookDeliveries(c.get("workspace"), c.req.valid("param").id, c.req.valid("query").page ?? 1),
      200,
    ),
  );
}
