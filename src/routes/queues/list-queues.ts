import { listQueues } from "../../services/queues/queues";
import type { App } from "../../types";
import { authedRoute, ok } from "../openapi";
import { QueueSchema } from "./schemas";

const route = authedRoute({
  method: "get",
  path: "/api/queues",
  operationId: "listQueues",
  tags: ["Queues"],
  summary: "List the workspace's queues, oldest first",
  responses: { 200: ok(QueueSchema.array(), "Plain array, no pagination.") },
});

export function registerListQueues(app: App) {
  app.openapi(route, async (c) => c.json(await listQueues(c.get("workspace")), 200));
}
