import { updateQueue } from "../../services/queues/queues";
import type { App } from "../../types";
import { authedRoute, jsonBody, ok } from "../openapi";
import { QueueParam, QueueRequest, QueueSchema } from "./schemas";

const route = authedRoute({
  method: "put",
  path: "/api/queues/{queue}",
  operationId: "updateQueue",
  tags: ["Queues"],
  summary: "Replace a queue's settings (queued posts keep their slots)",
  request: { params: QueueParam, ...jsonBody(QueueRequest) },
  responses: { 200: ok(QueueSchema, "The updated queue.") },
});

export function registerUpdateQueue(app: App) {
  app.openapi(route, async (c) =>
    c.json(await updateQueue(c.get("workspace"), c.req.valid("param").queue, c.req.valid("json")), 200),
  );
}
