import type { App } from "../../types";
import { registerCreateQueue } from "./create-queue";
import { registerDeleteQueue } from "./delete-queue";
import { registerGetQueue } from "./get-queue";
import { registerListQueueSlots } from "./list-queue-slots";
import { registerListQueues } from "./list-queues";
import { registerUpdateQueue } from "./update-queue";

/** Issue 37: posting queues (docs/queues.md). */
export function registerQueues(app: App) {
  registerListQueues(app);
  registerCreateQueue(app);
  registerGetQueue(app);
  registerUpdateQueue(app);
  registerDeleteQueue(app);
  registerListQueueSlots(app);
}
