import { z } from "zod";
import { updatePost } from "../services/posts/update-post";
import { listQueueSlots, listQueues, QUEUE_SLOTS_LIST_MAX } from "../services/queues/queues";
import { defineTool } from "./tool";

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;

const queueId = z.string().max(64).describe('Queue id (UUID), or "default".');

/** Issue 37 (docs/queues.md): queues and their slots, and adding a post to one. Reserve and reorder are not built yet. */
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
      queue_id: queueId,
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
  defineTool({
    name: "add-to-queue-tool",
    scope: "publish",
    title: "Add a post to a queue",
    description:
      "Schedules a post (draft, scheduled or failed) in the next free slot of a queue after now, with every check of scheduling (status=scheduled, queue_id); its old slot, if any, is freed. Answers the post with scheduled_at (the slot) and queue_id. create-post-tool takes queue_id too, to create and queue in one call.",
    input: {
      post_id: z.uuid().describe("Id (UUID) of the post."),
      queue_id: queueId.optional().describe('Queue id (UUID), or "default" (the default when omitted).'),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: (ctx, { post_id, queue_id }) =>
      updatePost(ctx, post_id as string, {
        status: "scheduled",
        queue_id: (queue_id as string | undefined) ?? "default",
      }),
  }),
];
