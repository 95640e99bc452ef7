import { z } from "zod";
import { listQueueSlots, listQueues, QUEUE_SLOTS_LIST_MAX } from "../services/queues/queues";
import { defineTool } from "./tool";

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;

/** Issue 37 (docs/queues.md): the read side of queues. Add to queue, reserve and reorder are not built yet. */
export const queueTools = [
  defineTool({
    name: "list-queues-tool",
    title: "List queues",
    description:
      "Lists the workspace's posting queues (name, IANA time zone, weekly slots, default, paused), oldest first.",
    input: {},
    annotations: READ,
    run: (ctx) => listQueues(ctx),
  }),
  defineTool({
    name: "list-queue-slots-tool",
    title: "List a queue's upcoming slots",
    description:
      "The next slots of a queue (UTC `at` and the queue's local time), each with the post or reservation holding it, or nulls when free. The first with post_id and reservation_id null is the next free slot.",
    input: {
      queue_id: z.string().max(64).describe('Queue id (UUID), or "default".'),
      count: z
        .number()
        .int()
        .min(1)
        .max(QUEUE_SLOTS_LIST_MAX)
        .optional()
        .describe("How many slots (1–100, default 20)."),
    },
    annotations: READ,
    run: (ctx, { queue_id, count }) =>
      listQueueSlots(ctx, queue_id as string, { count: (count as number | undefined) ?? 20 }),
  }),
];
