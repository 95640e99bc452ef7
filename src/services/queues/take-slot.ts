/**
 * Issue 37: a post takes its queue's next free slot. The slot is taken by one statement in the post's own write
 * batch (one D1 transaction), `INSERT … SELECT` the first candidate time no row of the queue holds — so the choice
 * and the write are one step, and the UNIQUE index on (queue_id, at) refuses a second holder whatever races. The
 * candidates are computed here from the queue's weekly slots: as many as the queue holds after now, plus a spare
 * that concurrent requests, all having read the same count, share (docs/queues.md, "Adding a post").
 */
import { and, eq, gt, isNull, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { WorkspaceContext } from "../../context";
import { posts, queueSlots, queues } from "../../db/schema";
import { type ErrorBag, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { dropExpiredReservations, failWhen, isGuardFailure, shareNextMoves, syncQueuedPostTimes } from "./slot-moves";
import { upcomingSlotTimes } from "./slot-times";

type QueueRow = typeof queues.$inferSelect;

/** What a post asks of a queue on create or update (issue 37): a queue's next free slot, or a reservation. */
export interface SlotAsk {
  /** A queue of this workspace, or `"default"`. */
  queue_id?: string;
  /** `"next"`: the earliest slot, the queued posts each moving down one place; `"last"` (default): the next free. */
  queue_position?: "last" | "next";
  /** A live reservation of this workspace (POST /api/queues/{queue}/reservations): exactly its slot, once. */
  reservation_id?: string;
}

/** Whether a request asks for a slot at all (its queue, or its reservation, is then read with the post). */
export const asksForSlot = (ask: SlotAsk) => ask.queue_id !== undefined || ask.reservation_id !== undefined;

/** A queue as an add-to-queue reads it: the row, how many of its slots after now are held, and the reservation. */
export interface QueueChoice {
  queue: QueueRow;
  held: number;
  /** The reservation `reservation_id` names, as read (it may be used or expired). */
  reservation?: { id: string; at: number; postId: string | null; expiresAt: number | null };
}

/** The slot a post takes: how (`mode`), in which queue, and the times it may get, earliest first. */
export interface SlotTake {
  queueId: string;
  candidates: number[];
  mode: { kind: "last" } | { kind: "next" } | { kind: "at" } | { kind: "reservation"; reservationId: string };
}

/** The candidates beyond the held slots: up to this many concurrent adds to one queue each find a free one. */
export const SLOT_CANDIDATES_SPARE = 250;

export const QUEUE_ID_INVALID = "The selected queue id is invalid.";
export const QUEUE_ID_NEEDS_SCHEDULED = "The queue id field is only accepted with status scheduled.";
export const RESERVATION_NEEDS_SCHEDULED = "The reservation id field is only accepted with status scheduled.";
export const QUEUE_ID_WITH_SCHEDULED_AT = "The queue id field prohibits scheduled at from being present.";
export const RESERVATION_WITH_SCHEDULED_AT = "The reservation id field prohibits scheduled at from being present.";
export const RESERVATION_WITH_QUEUE_ID = "The reservation id field prohibits queue id from being present.";
export const QUEUE_POSITION_NEEDS_QUEUE = "The queue position field requires queue id.";
export const RESERVATION_INVALID = "The selected reservation id is invalid, used or expired.";
export const RESERVATION_PASSED = "The reserved slot's time has passed; reserve another slot.";
export const QUEUE_HAS_NO_SLOTS = "The queue has no posting times; add slots to it first.";
export const NOT_A_SLOT_TIME =
  "The scheduled at field must be one of the queue's upcoming slot times when queue id is present.";
export const SLOT_TAKEN = "That slot of the queue is already taken; pick another one.";
export const QUEUE_POSITION_WITH_SCHEDULED_AT = "The queue position field prohibits scheduled at from being present.";
export const QUEUE_FULL = "The queue has no free slot left in its next candidates; try again.";

/**
 * One statement reading what `ask` names with the queue's held count: the queue (`"default"` or an id of this
 * workspace), or the reservation of this workspace and its queue.
 */
export function queueChoiceRead(ctx: WorkspaceContext, ask: SlotAsk) {
  const now = ctx.now();
  // `queues.id` spelled out: drizzle renders `${queues.id}` unqualified in a one-table select, and inside this
  // subquery a bare "id" would be the slot's own id.
  const held = sql<number>`(SELECT count(*) FROM queue_slots s WHERE s.queue_id = queues.id AND s.at > ${now})`;
  if (ask.reservation_id !== undefined) {
    // Scalar subqueries, not a join: D1's batch answers rows by column name, and both tables have id and created_at.
    const own = sql`FROM queue_slots r WHERE r.id = ${ask.reservation_id} AND r.workspace_id = ${ctx.workspaceId}`;
    return ctx.db
      .select({
        queue: queues,
        held,
        reservationAt: sql<number>`(SELECT r.at ${own})`,
        reservationPostId: sql<string | null>`(SELECT r.post_id ${own})`,
        reservationExpiresAt: sql<number | null>`(SELECT r.expires_at ${own})`,
      })
      .from(queues)
      .where(sql`${queues.id} = (SELECT r.queue_id ${own})`);
  }
  const idOrDefault = ask.queue_id ?? "default";
  return ctx.db
    .select({ queue: queues, held })
    .from(queues)
    .where(
      and(
        eq(queues.workspaceId, ctx.workspaceId),
        idOrDefault === "default" ? eq(queues.isDefault, true) : eq(queues.id, idOrDefault),
      ),
    );
}

/** The row `queueChoiceRead` answered, as a QueueChoice (null when it found none). */
export function queueChoiceOf(rows: readonly QueueChoiceRow[], ask: SlotAsk): QueueChoice | null {
  const row = rows[0];
  if (!row) return null;
  const { queue, held } = row;
  if (ask.reservation_id === undefined || !("reservationAt" in row)) return { queue, held };
  return {
    queue,
    held,
    reservation: {
      id: ask.reservation_id,
      at: row.reservationAt,
      postId: row.reservationPostId,
      expiresAt: row.reservationExpiresAt,
    },
  };
}

export type QueueChoiceRow =
  | { queue: QueueRow; held: number }
  | {
      queue: QueueRow;
      held: number;
      reservationAt: number;
      reservationPostId: string | null;
      reservationExpiresAt: number | null;
    };

/**
 * The checks a slot ask has on create and update alike: not with `scheduled_at`, a queue of this workspace
 * (`choice` as `queueChoiceRead` found it) that has posting times, or a live reservation of this workspace whose time
 * is still ahead. The slot to take; or null with the errors in `bag`.
 */
export function checkQueueChoice(
  bag: ErrorBag,
  choice: QueueChoice | null,
  ask: SlotAsk,
  opts: { scheduledAtSent: boolean; now: number; scheduledAt?: number | null | undefined },
): SlotTake | null {
  if (ask.reservation_id !== undefined) {
    if (opts.scheduledAtSent) bag.add("reservation_id", RESERVATION_WITH_SCHEDULED_AT);
    if (ask.queue_id !== undefined) bag.add("reservation_id", RESERVATION_WITH_QUEUE_ID);
    if (ask.queue_position !== undefined) bag.add("queue_position", QUEUE_POSITION_NEEDS_QUEUE);
    const r = choice?.reservation;
    if (!choice || !r || r.postId !== null || (r.expiresAt ?? 0) <= opts.now)
      bag.add("reservation_id", RESERVATION_INVALID);
    else if (r.at <= opts.now) bag.add("reservation_id", RESERVATION_PASSED);
    else if (!opts.scheduledAtSent && ask.queue_id === undefined && ask.queue_position === undefined)
      return { queueId: choice.queue.id, candidates: [r.at], mode: { kind: "reservation", reservationId: r.id } };
    return null;
  }
  if (ask.queue_id === undefined) {
    if (ask.queue_position !== undefined) bag.add("queue_position", QUEUE_POSITION_NEEDS_QUEUE);
    return null;
  }
  if (opts.scheduledAtSent) return checkExactSlot(bag, choice, ask, opts);
  if (!choice) bag.add("queue_id", QUEUE_ID_INVALID);
  else {
    const candidates = slotCandidates(choice, opts.now);
    if (candidates.length > 0)
      return { queueId: choice.queue.id, candidates, mode: { kind: ask.queue_position ?? "last" } };
    bag.add("queue_id", QUEUE_HAS_NO_SLOTS);
  }
  return null;
}

/**
 * `queue_id` with `scheduled_at`: exactly that slot (the calendar's free slot), when the time is one of the queue's
 * upcoming slot times; whether it is still free is decided in the write batch (422 `SLOT_TAKEN` if not).
 */
function checkExactSlot(
  bag: ErrorBag,
  choice: QueueChoice | null,
  ask: SlotAsk,
  opts: { now: number; scheduledAt?: number | null | undefined },
): SlotTake | null {
  const at = opts.scheduledAt;
  if (at === undefined) return null; // malformed: scheduled_at has its own error
  if (at === null) bag.add("queue_id", QUEUE_ID_WITH_SCHEDULED_AT);
  else if (!choice) bag.add("queue_id", QUEUE_ID_INVALID);
  else if (ask.queue_position !== undefined) bag.add("queue_position", QUEUE_POSITION_WITH_SCHEDULED_AT);
  else if (!slotCandidates(choice, opts.now).includes(at)) bag.add("scheduled_at", NOT_A_SLOT_TIME);
  else return { queueId: choice.queue.id, candidates: [at], mode: { kind: "at" } };
  return null;
}

/**
 * A write batch that failed on a slot guard of `takeSlotStatements` (`json()` of a non-JSON string): 422 naming what
 * was lost meanwhile — the reservation, or every candidate of the queue; any other error is rethrown.
 */
export function slotGuardFailure(err: unknown, take: SlotTake): unknown {
  if (!isGuardFailure(err)) return err;
  if (take.mode.kind === "reservation") return validationError({ reservation_id: [RESERVATION_INVALID] });
  if (take.mode.kind === "at") return validationError({ scheduled_at: [SLOT_TAKEN] });
  return validationError({ queue_id: [QUEUE_FULL] });
}

/** The slot times a post added now may take, earliest first (empty when the queue has no slots). */
export function slotCandidates(choice: QueueChoice, now: number): number[] {
  const { queue, held } = choice;
  return upcomingSlotTimes(queue.slots, queue.timeZone, now, held + SLOT_CANDIDATES_SPARE);
}

/** A guard statement: fails the batch (nothing is written) when the statement before it changed no row. */
export const changedGuard = (ctx: WorkspaceContext, what: string) => failWhen(ctx, sql`changes() = 0`, what);

/**
 * The statements that give `postId` its slot, for the post's write batch after its own claim: its old slot is
 * freed, then
 * - `last`: the queue's expired reservations dropped and the first free candidate taken (`INSERT … SELECT …
 *   RETURNING at`: the choice and the write are one step, the UNIQUE index on (queue_id, at) refuses a second
 *   holder whatever races);
 * - `next`: the same, after the queued posts from the earliest slot to the first free one moved down one place
 *   (slot-moves.ts, `shareNextMoves`);
 * - `reservation`: the reservation's row taken if still unused and unexpired;
 * then a guard that fails the batch when nothing was taken, and the post's time and queue set from its slot row.
 * `takenIndex`: the statement whose `RETURNING at` is the slot.
 */
export function takeSlotStatements(
  ctx: WorkspaceContext,
  take: SlotTake & { postId: string },
): { statements: BatchItem<"sqlite">[]; takenIndex: number } {
  const now = ctx.now();
  const { queueId, postId, candidates, mode } = take;
  const before: BatchItem<"sqlite">[] = [freeSlotStatement(ctx, postId)];
  let taking: BatchItem<"sqlite">;
  if (mode.kind === "reservation") {
    taking = ctx.db
      .update(queueSlots)
      .set({ postId, expiresAt: null })
      .where(
        and(
          eq(queueSlots.id, mode.reservationId),
          eq(queueSlots.workspaceId, ctx.workspaceId),
          isNull(queueSlots.postId),
          gt(queueSlots.expiresAt, now),
        ),
      )
      .returning({ at: queueSlots.at });
  } else {
    before.push(dropExpiredReservations(ctx, queueId));
    if (mode.kind === "next") before.push(...shareNextMoves(ctx, queueId, candidates));
    taking = insertFirstFree(ctx, { queueId, candidates, holder: { postId } });
  }
  const statements: BatchItem<"sqlite">[] = [
    ...before,
    taking,
    changedGuard(ctx, mode.kind === "reservation" ? "reservation lost" : "queue full"),
    ctx.db
      .update(posts)
      .set({ scheduledAt: sql`(SELECT at FROM queue_slots WHERE post_id = ${postId})`, queueId })
      .where(eq(posts.id, postId)),
    ...(mode.kind === "next" ? syncQueuedPostTimes(ctx, queueId, postId) : []),
  ];
  return { statements, takenIndex: before.length };
}

/**
 * The one statement that takes a queue's first free candidate (`RETURNING id, at`; no row when none was free): for
 * a post (`postId`) or as a reservation (`expiresAt`, with `onlyIf` its cap). Choosing and writing are one step, and
 * the UNIQUE index on (queue_id, at) refuses a second holder whatever races.
 */
export function insertFirstFree(
  ctx: WorkspaceContext,
  take: {
    queueId: string;
    candidates: number[];
    holder: { postId: string } | { reservationId: string; expiresAt: number };
    onlyIf?: SQL;
  },
) {
  const { queueId, candidates, holder } = take;
  const [id, postId, expiresAt] =
    "postId" in holder ? [newId(), holder.postId, null] : [holder.reservationId, null, holder.expiresAt];
  return ctx.db
    .insert(queueSlots)
    .select(
      sql`SELECT ${id}, ${queueId}, ${ctx.workspaceId}, c.value, ${postId}, ${expiresAt}, ${ctx.now()}
        FROM json_each(${JSON.stringify(candidates)}) c
        WHERE NOT EXISTS (SELECT 1 FROM queue_slots s WHERE s.queue_id = ${queueId} AND s.at = c.value)
          ${take.onlyIf ? sql`AND ${take.onlyIf}` : sql``}
        ORDER BY c.key LIMIT 1`,
    )
    .returning({ id: queueSlots.id, at: queueSlots.at });
}

/** Frees the slot a post holds (back to draft, published now, moved by hand): the slot is free for the next post. */
export function freeSlotStatement(ctx: WorkspaceContext, postId: string) {
  return ctx.db.delete(queueSlots).where(eq(queueSlots.postId, postId));
}
