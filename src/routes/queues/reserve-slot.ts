import { reserveSlot } from "../../services/queues/reservations";
import type { App } from "../../types";
import { authedRoute, ok } from "../openapi";
import { QueueParam, ReservationSchema } from "./schemas";

const route = authedRoute({
  method: "post",
  path: "/api/queues/{queue}/reservations",
  operationId: "reserveQueueSlot",
  tags: ["Queues"],
  scope: "publish",
  summary: "Hold the queue's next free slot for 15 minutes (commit with reservation_id)",
  request: { params: QueueParam },
  responses: { 201: ok(ReservationSchema, "The reservation: its slot and when it expires.") },
});

export function registerReserveSlot(app: App) {
  app.openapi(route, async (c) => c.json(await reserveSlot(c.get("workspace"), c.req.valid("param").queue), 201));
}
