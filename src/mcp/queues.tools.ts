import { z } from "zod";
import { firstFree } from "../../web/lib/queue-slots";
import { ReorderRequest } from "../routes/queues/schemas";
import { updatePost } from "../services/posts/update-post";
import { listQueueSlots, listQueues, QUEUE_SLOTS_LIST_MAX } from "../services/queues/queues";
import { reorderQueue } from "../services/queues/reorder";
import { reserveSlot } from "../services/queues/reservations";
import { defineTool } from "./tool";

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;

const queueId = z.string().max(64).describe('Queue id (UUID), or "default".');

/** Issue 37 (docs/queues.md): queues and their slots, the next free one, reserving it, adding a post, reordering. */
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
    name: "next-free-queue-slot-tool",
    title: "Next free slot of a queue",
    description:
      "The queue's next free slot after now ({at (UTC), local}), or null when none of its next 100 slots is free. Another request may take it before you do: reserve-queue-slot-tool holds one for you.",
    input: { queue_id: queueId.optional().describe('Queue id (UUID), or "default" (the default when omitted).') },
    annotations: READ,
    run: async (ctx, { queue_id }) => {
      const slots = await listQueueSlots(ctx, (queue_id as string | undefined) ?? "default", {
        count: QUEUE_SLOTS_LIST_MAX,
      });
      const free = firstFree(slots);
      return free ? { at: free.at, local: free.local } : null;
    },
  }),
  defineTool({
    name: "reserve-queue-slot-tool",
    scope: "publish",
    title: "Reserve a queue's next free slot",
    description:
      "Holds the queue's next free slot for 15 minutes so nobody else takes it: answers {id, queue_id, at, local, expires_at}. Upload media meanwhile, then create-post-tool or add-to-queue-tool with reservation_id takes exactly that slot, once. An unused reservation expires on its own.",
    input: { queue_id: queueId.optional().describe('Queue id (UUID), or "default" (the default when omitted).') },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: (ctx, { queue_id }) => reserveSlot(ctx, (queue_id as string | undefined) ?? "default"),
  }),
  defineTool({
    name: "reorder-queue-tool",
    scope: "publish",
    title: "Reorder a queue",
    description:
      "Posts holding upcoming slots of a queue trade slots: their times, earliest first, go to the posts in the order given. Answers each post with its new slot.",
    input: {
      queue_id: queueId.optional().describe('Queue id (UUID), or "default" (the default when omitted).'),
      post_ids: ReorderRequest.shape.post_ids.describe("Post ids in their new order (at most 100)."),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: (ctx, { queue_id, post_ids }) =>
      reorderQueue(ctx, (queue_id as string | undefined) ?? "default", post_ids as string[]),
  }),
  defineTool({
    name: "add-to-queue-tool",
    scope: "publish",
    title: "Add a post to a queue",
    description:
      "Schedules a post (draft, scheduled or failed) in the next free slot of a queue after now (or the earliest with queue_position next, or exactly a reserved slot with reservation_id), with every check of scheduling (status=scheduled, queue_id); its old slot, if any, is freed. Answers the post with scheduled_at (the slot) and queue_id. create-post-tool takes queue_id too, to create and queue in one call.",
    input: {
      post_id: z.uuid().describe("Id (UUID) of the post."),
      queue_id: queueId.optional().describe('Queue id (UUID), or "default" (the default when omitted).'),
      queue_position: z
        .enum(["last", "next"])
        .optional()
        .describe('"last" (default): the next free slot; "next": the earliest slot, the queued posts moving down one.'),
      reservation_id: z
        .string()
        .max(64)
        .optional()
        .describe("A reservation from reserve-queue-slot-tool: exactly its slot (then no queue_id)."),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: (ctx, { post_id, queue_id, queue_position, reservation_id }) =>
      updatePost(ctx, post_id as string, {
        status: "scheduled",
        ...(reservation_id !== undefined
          ? { reservation_id: reservation_id as string }
          : { queue_id: (queue_id as string | undefined) ?? "default" }),
        ...(queue_position !== undefined ? { queue_position: queue_position as "last" | "next" } : {}),
      }),
  }),
];
