import { listQueueSlots } from "../../services/queues/queues";
import type { App } from "../../types";
import { authedRoute, ok } from "../openapi";
import { QueueParam, QueueSlotItemSchema, QueueSlotsQuery } from "./schemas";

const route = authedRoute({
  method: "get",
  path: "/api/queues/{queue}/slots",
  operationId: "listQueueSlots",
  tags: ["Queues"],
  summary: "The queue's upcoming slots, each with the post or reservation holding it",
  request: { params: QueueParam, query: QueueSlotsQuery },
  responses: { 200: ok(QueueSlotItemSchema.array(), "Plain array, in time order.") },
});

export function registerListQueueSlots(app: App) {
  app.openapi(route, async (c) => {
    const { from, count } = c.req.valid("query");
    const fromMs = from === undefined ? undefined : Date.parse(`${from.replace(" ", "T")}Z`);
    return c.json(await listQueueSlots(c.get("workspace"), c.req.valid("param").queue, { from: fromMs, count }), 200);
  });
}
