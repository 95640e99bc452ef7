import type { App } from "../../types";
import { registerCreateQueue } from "./create-queue";
import { registerDeleteQueue } from "./delete-queue";
import { registerGetQueue } from "./get-queue";
import { registerListQueueSlots } from "./list-queue-slots";
import { registerListQueues } from "./list-queues";
import { registerReleaseReservation } from "./release-reservation";
import { registerReorderQueue } from "./reorder-queue";
import { registerReserveSlot } from "./reserve-slot";
import { registerUpdateQueue } from "./update-queue";

/** Issue 37: posting queues (docs/queues.md). */
export function registerQueues(app: App) {
  registerListQueues(app);
  registerCreateQueue(app);
  registerGetQueue(app);
  registerUpdateQueue(app);
  registerDeleteQueue(app);
  registerListQueueSlots(app);
  registerReserveSlot(app);
  registerReleaseReservation(app);
  registerReorderQueue(app);
}
