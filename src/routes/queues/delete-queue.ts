import { deleteQueue } from "../../services/queues/queues";
import type { App } from "../../types";
import { authedRoute, noContent } from "../openapi";
import { QueueParam } from "./schemas";

const route = authedRoute({
  method: "delete",
  path: "/api/queues/{queue}",
  operationId: "deleteQueue",
  tags: ["Queues"],
  summary: "Delete a queue (its slots are freed; the oldest remaining queue becomes the default)",
  request: { params: QueueParam },
  responses: { 204: noContent },
});

export function registerDeleteQueue(app: App) {
  app.openapi(route, async (c) => {
    await deleteQueue(c.get("workspace"), c.req.valid("param").queue);
    return c.body(null, 204);
  });
}
