/**
 * Issue 37: moving queued posts between slots — share next, reorder, reshuffle onto new slot times, resume after a
 * pause — as statements for one D1 batch (one transaction), so no read-then-write race can give two posts one slot.
 *
 * Every move is three steps on `queue_slots`:
 * 1. **mark**: each moving row's new time is written into its `expires_at` (scratch: a post's row never has one). The
 *    new times are computed by SQL from `at`, `post_id` and the candidates only, none of which this statement
 *    changes, so every row sees the same state (SQLite evaluates an UPDATE's SET per row, against the rows as they
 *    are at that moment). A row with no new time is marked -1 and fails the batch (`movesGuard`).
 * 2. **apply**: `at = -expires_at` (negative times cannot collide with the real ones, nor with each other: the new
 *    times are distinct), then `at = -at` for the negative rows. The UNIQUE index on (queue_id, at) holds between
 *    every statement.
 * 3. **sync**: each moved post's `scheduled_at` follows its slot (`syncQueuedPostTimes`).
 * docs/queues.md explains each move as a user sees it.
 */
import { and, eq, isNotNull, isNull, lt, lte, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { WorkspaceContext } from "../../context";
import { posts, queueSlots } from "../../db/schema";
import { postEventsWhere } from "../webhooks/outbox";

type Statement = BatchItem<"sqlite">;

const json = (values: readonly (number | string)[]) => JSON.stringify(values);

/** Drops the queue's reservations that expired: their slots are free again. */
export function dropExpiredReservations(ctx: WorkspaceContext, queueId: string) {
  return ctx.db
    .delete(queueSlots)
    .where(and(eq(queueSlots.queueId, queueId), isNull(queueSlots.postId), lte(queueSlots.expiresAt, ctx.now())));
}

/**
 * A statement that fails the batch (`json()` of a non-JSON string: the transaction rolls back) when `condition`
 * holds. A query builder, not `db.run`: drizzle's D1 batch cannot bind parameters of a raw `run`.
 */
export function failWhen(ctx: WorkspaceContext, condition: SQL, what: string): Statement {
  return ctx.db.select({ ok: sql`CASE WHEN ${condition} THEN json(${what}) ELSE 1 END` }).from(sql`(SELECT 1)`);
}

/** Whether a batch failed on a `failWhen` guard (nothing was written) rather than on anything else. */
export const isGuardFailure = (err: unknown) => /malformed JSON/i.test(String(err));

const postRowsOf = (queueId: string) => and(eq(queueSlots.queueId, queueId), isNotNull(queueSlots.postId));

/** Step 2: the marked rows take their new times. */
function applyMoves(ctx: WorkspaceContext, queueId: string): Statement[] {
  return [
    ctx.db
      .update(queueSlots)
      .set({ at: sql`-${queueSlots.expiresAt}`, expiresAt: null })
      .where(and(postRowsOf(queueId), isNotNull(queueSlots.expiresAt))),
    ctx.db
      .update(queueSlots)
      .set({ at: sql`-${queueSlots.at}` })
      .where(and(eq(queueSlots.queueId, queueId), lt(queueSlots.at, 0))),
  ];
}

/**
 * Step 1, its guard (a row with no new time: more posts than candidates, the queue filled meanwhile) and step 2.
 * `target` is the SQL of a row's new time, `movers` which rows move (`queue_slots` is the row).
 */
function moves(ctx: WorkspaceContext, queueId: string, movers: SQL, target: SQL): Statement[] {
  return [
    ctx.db
      .update(queueSlots)
      .set({ expiresAt: sql`coalesce((${target}), -1)` })
      .where(and(postRowsOf(queueId), movers)),
    failWhen(
      ctx,
      sql`EXISTS (SELECT 1 FROM queue_slots WHERE queue_id = ${queueId} AND post_id IS NOT NULL AND expires_at = -1)`,
      "queue full",
    ),
    ...applyMoves(ctx, queueId),
  ];
}

/** A candidate no reservation holds (expired ones were dropped before). */
const notReserved = (queueId: string) =>
  sql`NOT EXISTS (SELECT 1 FROM queue_slots r WHERE r.queue_id = ${queueId} AND r.post_id IS NULL AND r.at = c.value)`;

/**
 * Share next: the posts holding the queue's slots from the earliest candidate up to its first free one each move
 * to the next candidate no reservation holds, so the earliest slot is free for the new post; a free slot absorbs
 * the shift (posts after it stay). Posts at times that are not candidates (the queue's slots changed without a
 * reshuffle) stay where they are.
 */
export function shareNextMoves(ctx: WorkspaceContext, queueId: string, candidates: number[]): Statement[] {
  const c = json(candidates);
  const firstFree = sql`(SELECT min(c.value) FROM json_each(${c}) c
    WHERE NOT EXISTS (SELECT 1 FROM queue_slots x WHERE x.queue_id = ${queueId} AND x.at = c.value))`;
  return moves(
    ctx,
    queueId,
    sql`at IN (SELECT value FROM json_each(${c})) AND at < ${firstFree}`,
    sql`SELECT min(c.value) FROM json_each(${c}) c WHERE c.value > queue_slots.at AND ${notReserved(queueId)}`,
  );
}

/**
 * Reorder: the posts of `postIds` (each holding a slot of the queue after now) trade slots — their times, earliest
 * first, go to the posts in the order given. A guard first fails the batch unless exactly these posts still hold
 * slots of the queue after now (the caller checked it when reading; a change since is a conflict).
 */
export function reorderMoves(ctx: WorkspaceContext, queueId: string, postIds: string[]): Statement[] {
  const now = ctx.now();
  const ids = json(postIds);
  const held = sql`queue_id = ${queueId} AND post_id IN (SELECT value FROM json_each(${ids})) AND at > ${now}`;
  return [
    failWhen(ctx, sql`(SELECT count(*) FROM queue_slots WHERE ${held}) <> ${postIds.length}`, "queue changed"),
    ...moves(
      ctx,
      queueId,
      sql`post_id IN (SELECT value FROM json_each(${ids})) AND at > ${now}`,
      sql`SELECT t.at FROM (SELECT x.at, row_number() OVER (ORDER BY x.at) AS rn FROM queue_slots x
          WHERE x.queue_id = ${queueId} AND x.post_id IN (SELECT value FROM json_each(${ids})) AND x.at > ${now}) t
        WHERE t.rn = (SELECT o.key + 1 FROM json_each(${ids}) o WHERE o.value = queue_slots.post_id)`,
    ),
    ...syncQueuedPostTimes(ctx, queueId),
  ];
}

/**
 * Reshuffle: every post holding a slot of the queue after now, in time order, onto the candidates (the queue's new
 * slot times) no reservation holds, in order.
 */
export function reshuffleMoves(ctx: WorkspaceContext, queueId: string, candidates: number[]): Statement[] {
  const now = ctx.now();
  const c = json(candidates);
  return [
    dropExpiredReservations(ctx, queueId),
    ...moves(
      ctx,
      queueId,
      sql`at > ${now}`,
      sql`SELECT f.value FROM (SELECT c.value, row_number() OVER (ORDER BY c.key) AS rn FROM json_each(${c}) c
          WHERE ${notReserved(queueId)}) f
        WHERE f.rn = (SELECT m.rn FROM (SELECT x.id, row_number() OVER (ORDER BY x.at) AS rn FROM queue_slots x
          WHERE x.queue_id = ${queueId} AND x.post_id IS NOT NULL AND x.at > ${now}) m WHERE m.id = queue_slots.id)`,
    ),
    ...syncQueuedPostTimes(ctx, queueId),
  ];
}

/**
 * Resume: the queue's overdue posts (still `scheduled`, their slot at or before now — the scheduler skipped them
 * while the queue was paused), in time order, onto the next free candidates after now, in order. A candidate is
 * free when no row holds it; the overdue rows never sit on one (candidates are after now), so marking them changes
 * no answer.
 */
export function resumeMoves(ctx: WorkspaceContext, queueId: string, candidates: number[]): Statement[] {
  const now = ctx.now();
  const c = json(candidates);
  const overdue = sql`x.queue_id = ${queueId} AND x.post_id IS NOT NULL AND x.at <= ${now}
    AND x.post_id IN (SELECT id FROM posts WHERE queue_id = ${queueId} AND status = 'scheduled')`;
  return [
    dropExpiredReservations(ctx, queueId),
    ...moves(
      ctx,
      queueId,
      sql`id IN (SELECT x.id FROM queue_slots x WHERE ${overdue})`,
      sql`SELECT f.value FROM (SELECT c.value, row_number() OVER (ORDER BY c.key) AS rn FROM json_each(${c}) c
          WHERE NOT EXISTS (SELECT 1 FROM queue_slots s WHERE s.queue_id = ${queueId} AND s.at = c.value)) f
        WHERE f.rn = (SELECT m.rn FROM (SELECT x.id, row_number() OVER (ORDER BY x.at, x.id) AS rn
          FROM queue_slots x WHERE ${overdue}) m WHERE m.id = queue_slots.id)`,
    ),
    ...syncQueuedPostTimes(ctx, queueId),
  ];
}

/**
 * Step 3: each post holding a slot of the queue after now gets its slot's time (only those that moved change), and
 * each of them is announced to webhooks as `post.scheduled` with its new time — a receiver's copy of the schedule
 * never goes stale. `except`: the post the request itself adds, which its caller announces.
 */
export function syncQueuedPostTimes(ctx: WorkspaceContext, queueId: string, except?: string): Statement[] {
  const now = ctx.now();
  const slotAt = sql`(SELECT s.at FROM queue_slots s WHERE s.post_id = posts.id)`;
  return [
    ctx.db
      .update(posts)
      .set({ scheduledAt: slotAt, updatedAt: now })
      .where(
        and(
          sql`${posts.id} IN (SELECT post_id FROM queue_slots WHERE queue_id = ${queueId} AND post_id IS NOT NULL
          AND at > ${now})`,
          sql`${posts.scheduledAt} IS NOT ${slotAt}`,
        ),
      ),
    // The posts this statement just moved: queued here, written at `now` (the one timestamp of this batch).
    postEventsWhere(
      ctx,
      "post.scheduled",
      sql`posts.queue_id = ${queueId} AND posts.status = 'scheduled' AND posts.updated_at = ${now}
        AND posts.id <> ${except ?? ""}`,
    ),
  ];
}
