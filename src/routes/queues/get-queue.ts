import { getQueue } from "../../services/queues/queues";
import type { App } from "../../types";
import { authedRoute, ok } from "../openapi";
import { QueueParam, QueueSchema } from "./schemas";

const route = authedRoute({
  method: "get",
  path: "/api/queues/{queue}",
  operationId: "getQueue",
  tags: ["Queues"],
  summary: "Get one queue (`default` names the default queue)",
  request: { params: QueueParam },
  responses: { 200: ok(QueueSchema, "The queue.") },
});

export function registerGetQueue(app: App) {
  app.openapi(route, async (c) => c.json(await getQueue(c.get("workspace"), c.req.valid("param").queue), 200));
}
