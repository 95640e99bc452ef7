/**
 * Issue 37: a post takes its queue's next free slot. The slot is taken by one statement in the post's own write
 * batch (one D1 transaction), `INSERT … SELECT` the first candidate time no row of the queue holds — so the choice
 * and the write are one step, and the UNIQUE index on (queue_id, at) refuses a second holder whatever races. The
 * candidates are computed here from the queue's weekly slots: as many as the queue holds after now, plus a spare
 * that concurrent requests, all having read the same count, share (docs/queues.md, "Adding a post").
 */
import { and, eq, isNull, lte, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { WorkspaceContext } from "../../context";
import { posts, queueSlots, queues } from "../../db/schema";
import { type ErrorBag, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { upcomingSlotTimes } from "./slot-times";

type QueueRow = typeof queues.$inferSelect;

/** A queue as an add-to-queue reads it: the row and how many of its slots after now are held. */
export interface QueueChoice {
  queue: QueueRow;
  held: number;
}

/** The candidates beyond the held slots: up to this many concurrent adds to one queue each find a free one. */
export const SLOT_CANDIDATES_SPARE = 250;

export const QUEUE_ID_INVALID = "The selected queue id is invalid.";
export const QUEUE_ID_NEEDS_SCHEDULED = "The queue id field is only accepted with status scheduled.";
export const QUEUE_ID_WITH_SCHEDULED_AT = "The queue id field prohibits scheduled at from being present.";
export const QUEUE_HAS_NO_SLOTS = "The queue has no posting times; add slots to it first.";
export const QUEUE_FULL = "The queue has no free slot left in its next candidates; try again.";

/** One statement reading the queue (`"default"` or an id of this workspace) with its held count. */
export function queueChoiceRead(ctx: WorkspaceContext, idOrDefault: string) {
  const now = ctx.now();
  return ctx.db
    .select({
      queue: queues,
      held: sql<number>`(SELECT count(*) FROM queue_slots s WHERE s.queue_id = ${queues.id} AND s.at > ${now})`,
    })
    .from(queues)
    .where(
      and(
        eq(queues.workspaceId, ctx.workspaceId),
        idOrDefault === "default" ? eq(queues.isDefault, true) : eq(queues.id, idOrDefault),
      ),
    );
}

/**
 * The checks `queue_id` has on create and update alike: not with `scheduled_at`, a queue of this workspace
 * (`choice` as `queueChoiceRead` found it), one that has posting times. The queue and the slot times the post may
 * take, earliest first; or null with the error in `bag`.
 */
export function checkQueueChoice(
  bag: ErrorBag,
  choice: QueueChoice | null,
  opts: { scheduledAtSent: boolean; now: number },
): { queueId: string; candidates: number[] } | null {
  if (opts.scheduledAtSent) bag.add("queue_id", QUEUE_ID_WITH_SCHEDULED_AT);
  else if (!choice) bag.add("queue_id", QUEUE_ID_INVALID);
  else {
    const candidates = slotCandidates(choice, opts.now);
    if (candidates.length > 0) return { queueId: choice.queue.id, candidates };
    bag.add("queue_id", QUEUE_HAS_NO_SLOTS);
  }
  return null;
}

/** A write batch that failed on the slot guard of `takeSlotStatements` (every candidate taken): 422, else rethrown. */
export function slotGuardFailure(err: unknown): unknown {
  return /malformed JSON/i.test(String(err)) ? validationError({ queue_id: [QUEUE_FULL] }) : err;
}

/** The slot times a post added now may take, earliest first (empty when the queue has no slots). */
export function slotCandidates(choice: QueueChoice, now: number): number[] {
  const { queue, held } = choice;
  return upcomingSlotTimes(queue.slots, queue.timeZone, now, held + SLOT_CANDIDATES_SPARE);
}

/**
 * The statements that give `postId` the first free candidate of `queueId`, for the post's write batch after its
 * own claim: its old slot is freed, the queue's expired reservations dropped, the slot taken (`RETURNING at`, at
 * `takenIndex` among these statements), a guard that fails the batch when no candidate was free (`json()` of a
 * non-JSON string: the transaction rolls back, nothing is written), and the post's time and queue set from it.
 */
export function takeSlotStatements(
  ctx: WorkspaceContext,
  take: { queueId: string; postId: string; candidates: number[] },
): { statements: BatchItem<"sqlite">[]; takenIndex: number } {
  const now = ctx.now();
  const { queueId, postId, candidates } = take;
  const statements: BatchItem<"sqlite">[] = [
    freeSlotStatement(ctx, postId),
    ctx.db
      .delete(queueSlots)
      .where(and(eq(queueSlots.queueId, queueId), isNull(queueSlots.postId), lte(queueSlots.expiresAt, now))),
    ctx.db
      .insert(queueSlots)
      .select(
        sql`SELECT ${newId()}, ${queueId}, ${ctx.workspaceId}, c.value, ${postId}, NULL, ${now}
          FROM json_each(${JSON.stringify(candidates)}) c
          WHERE NOT EXISTS (SELECT 1 FROM queue_slots s WHERE s.queue_id = ${queueId} AND s.at = c.value)
          ORDER BY c.key LIMIT 1`,
      )
      .returning({ at: queueSlots.at }),
    ctx.db.run(sql`SELECT CASE WHEN changes() = 0 THEN json('queue full') ELSE 1 END`),
    ctx.db
      .update(posts)
      .set({ scheduledAt: sql`(SELECT at FROM queue_slots WHERE post_id = ${postId})`, queueId })
      .where(eq(posts.id, postId)),
  ];
  return { statements, takenIndex: 2 };
}

/** Frees the slot a post holds (back to draft, published now, moved by hand): the slot is free for the next post. */
export function freeSlotStatement(ctx: WorkspaceContext, postId: string) {
  return ctx.db.delete(queueSlots).where(eq(queueSlots.postId, postId));
}
