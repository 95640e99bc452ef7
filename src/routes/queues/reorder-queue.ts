import { reorderQueue } from "../../services/queues/reorder";
import type { App } from "../../types";
import { authedRoute, ErrorSchema, jsonBody, ok } from "../openapi";
import { QueueParam, QueueSlotItemSchema, ReorderRequest } from "./schemas";

const route = authedRoute({
  method: "post",
  path: "/api/queues/{queue}/reorder",
  operationId: "reorderQueue",
  tags: ["Queues"],
  scope: "publish",
  summary: "Reorder queued posts: they trade slots, earliest slot to the first post named",
  request: { params: QueueParam, ...jsonBody(ReorderRequest) },
  responses: {
    200: ok(QueueSlotItemSchema.array(), "The posts in their new order, each with its slot."),
    409: ok(ErrorSchema, "Another request changed these posts' slots meanwhile; read the slots again."),
  },
});

export function registerReorderQueue(app: App) {
  app.openapi(route, async (c) =>
    c.json(await reorderQueue(c.get("workspace"), c.req.valid("param").queue, c.req.valid("json").post_ids), 200),
  );
}
