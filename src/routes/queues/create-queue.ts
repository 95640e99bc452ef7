import { createQueue } from "../../services/queues/queues";
import type { App } from "../../types";
import { authedRoute, jsonBody, ok } from "../openapi";
import { QueueRequest, QueueSchema } from "./schemas";

const route = authedRoute({
  method: "post",
  path: "/api/queues",
  operationId: "createQueue",
  tags: ["Queues"],
  summary: "Create a queue (at most 20 per workspace; the first is the default)",
  request: jsonBody(QueueRequest),
  responses: { 201: ok(QueueSchema, "The created queue.") },
});

export function registerCreateQueue(app: App) {
  app.openapi(route, async (c) => c.json(await createQueue(c.get("workspace"), c.req.valid("json")), 201));
}
