import { updateQueue } from "../../services/queues/queues";
import type { App } from "../../types";
import { authedRoute, ErrorSchema, jsonBody, ok } from "../openapi";
import { QueueParam, QueueSchema, QueueUpdateRequest } from "./schemas";

const route = authedRoute({
  method: "put",
  path: "/api/queues/{queue}",
  operationId: "updateQueue",
  tags: ["Queues"],
  summary: "Replace a queue's settings (queued posts keep their slots unless reshuffle; resuming moves overdue posts)",
  request: { params: QueueParam, ...jsonBody(QueueUpdateRequest) },
  responses: {
    200: ok(QueueSchema, "The updated queue."),
    409: ok(ErrorSchema, "The queue filled up while its posts were moved; try again."),
  },
});

export function registerUpdateQueue(app: App) {
  app.openapi(route, async (c) =>
    c.json(await updateQueue(c.get("workspace"), c.req.valid("param").queue, c.req.valid("json")), 200),
  );
}
