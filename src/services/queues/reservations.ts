/**
 * Issue 37: an agent reserves a queue's next free slot, uploads its media, then commits the post with
 * `reservation_id` — and nobody else can take the slot meanwhile. A reservation is a `queue_slots` row with no post
 * and an `expires_at`: the same UNIQUE (queue_id, at) index keeps it from being given twice, and every add to the
 * queue drops the expired ones before it picks (docs/queues.md, "Reservations").
 */
import { and, count, eq, gt, isNull, sql } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { queueSlots } from "../../db/schema";
import { notFound, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { formatYmdHis } from "../../lib/time";
import { findQueue } from "./queues";
import { dropExpiredReservations } from "./slot-moves";
import { localYmdHis } from "./slot-times";
import {
  insertFirstFree,
  QUEUE_FULL,
  QUEUE_HAS_NO_SLOTS,
  queueChoiceOf,
  queueChoiceRead,
  slotCandidates,
} from "./take-slot";

/** How long a reservation holds its slot. */
export const RESERVATION_TTL_MS = 15 * 60_000;
/** Live reservations one queue may hold at once (docs/limits.md): a runaway agent cannot hold a whole queue. */
export const RESERVATIONS_PER_QUEUE_MAX = 20;

export interface ReservationResource {
  id: string;
  queue_id: string;
  at: string;
  local: string;
  expires_at: string;
}

/** POST /api/queues/{queue}/reservations: holds the queue's next free slot after now for RESERVATION_TTL_MS. */
export async function reserveSlot(ctx: WorkspaceContext, idOrDefault: string): Promise<ReservationResource> {
  const now = ctx.now();
  const choice = queueChoiceOf(await queueChoiceRead(ctx, { queue_id: idOrDefault }), {});
  if (!choice) throw notFound();
  const { queue } = choice;
  const candidates = slotCandidates(choice, now);
  if (candidates.length === 0) throw validationError({ queue: [QUEUE_HAS_NO_SLOTS] });
  const id = newId();
  const expiresAt = now + RESERVATION_TTL_MS;
  const live = sql`(SELECT count(*) FROM queue_slots WHERE queue_id = ${queue.id} AND post_id IS NULL)`;
  const [, taken] = await ctx.db.batch([
    dropExpiredReservations(ctx, queue.id),
    insertFirstFree(ctx, {
      queueId: queue.id,
      candidates,
      holder: { reservationId: id, expiresAt },
      onlyIf: sql`${live} < ${RESERVATIONS_PER_QUEUE_MAX}`,
    }),
  ]);
  const at = taken[0]?.at;
  if (at === undefined) {
    const [{ n } = { n: 0 }] = await ctx.db
      .select({ n: count() })
      .from(queueSlots)
      .where(and(eq(queueSlots.queueId, queue.id), isNull(queueSlots.postId)));
    throw validationError({
      queue: [
        n >= RESERVATIONS_PER_QUEUE_MAX
          ? `A queue holds at most ${RESERVATIONS_PER_QUEUE_MAX} live reservations; use one or let it expire.`
          : QUEUE_FULL,
      ],
    });
  }
  return {
    id,
    queue_id: queue.id,
    at: formatYmdHis(at),
    local: localYmdHis(at, queue.timeZone),
    expires_at: formatYmdHis(expiresAt),
  };
}

/** DELETE /api/queues/{queue}/reservations/{reservation}: gives an unused reservation's slot back at once. */
export async function releaseReservation(ctx: WorkspaceContext, idOrDefault: string, id: string): Promise<void> {
  const queue = await findQueue(ctx, idOrDefault);
  const gone = await ctx.db
    .delete(queueSlots)
    .where(
      and(
        eq(queueSlots.id, id),
        eq(queueSlots.queueId, queue.id),
        eq(queueSlots.workspaceId, ctx.workspaceId),
        isNull(queueSlots.postId),
        gt(queueSlots.expiresAt, ctx.now()),
      ),
    )
    .returning({ id: queueSlots.id });
  if (gone.length === 0) throw notFound();
}
