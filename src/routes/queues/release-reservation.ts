import { releaseReservation } from "../../services/queues/reservations";
import type { App } from "../../types";
import { authedRoute, noContent } from "../openapi";
import { ReservationParam } from "./schemas";

const route = authedRoute({
  method: "delete",
  path: "/api/queues/{queue}/reservations/{reservation}",
  operationId: "releaseQueueReservation",
  tags: ["Queues"],
  scope: "publish",
  summary: "Give an unused reservation's slot back before it expires",
  request: { params: ReservationParam },
  responses: { 204: noContent },
});

export function registerReleaseReservation(app: App) {
  app.openapi(route, async (c) => {
    const { queue, reservation } = c.req.valid("param");
    await releaseReservation(c.get("workspace"), queue, reservation);
    return c.body(null, 204);
  });
}
