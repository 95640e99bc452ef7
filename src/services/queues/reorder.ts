/**
 * Issue 37: POST /api/queues/{queue}/reorder — the posts named trade slots: their times, earliest first, go to them
 * in the order given (slot-moves.ts, `reorderMoves`: one batch, no read-then-write race).
 */
import { and, eq, gt, sql } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { queueSlots } from "../../db/schema";
import { conflict, ErrorBag } from "../../lib/errors";
import { formatYmdHis } from "../../lib/time";
import { findQueue, type SlotResource } from "./queues";
import { isGuardFailure, reorderMoves } from "./slot-moves";
import { localYmdHis } from "./slot-times";

/** Posts one reorder may name (docs/limits.md). */
export const REORDER_POSTS_MAX = 100;

export const NOT_IN_QUEUE = "The post holds no upcoming slot of this queue.";
export const QUEUE_CHANGED = "The queue changed while reordering; read its slots again and retry.";

/** The posts in their new order, each with its new slot (in time order, as the slots listing shows them). */
export async function reorderQueue(
  ctx: WorkspaceContext,
  idOrDefault: string,
  postIds: string[],
): Promise<SlotResource[]> {
  const queue = await findQueue(ctx, idOrDefault);
  const now = ctx.now();
  const held = await ctx.db
    .select({ postId: queueSlots.postId, at: queueSlots.at })
    .from(queueSlots)
    .where(
      and(
        eq(queueSlots.queueId, queue.id),
        gt(queueSlots.at, now),
        sql`${queueSlots.postId} IN (SELECT value FROM json_each(${JSON.stringify(postIds)}))`,
      ),
    );
  const heldBy = new Set(held.map((h) => h.postId));
  const bag = new ErrorBag();
  const seen = new Set<string>();
  postIds.forEach((id, i) => {
    if (seen.has(id)) bag.add(`post_ids.${i}`, "The post ids field has a duplicate value.");
    else if (!heldBy.has(id)) bag.add(`post_ids.${i}`, NOT_IN_QUEUE);
    seen.add(id);
  });
  bag.throwIfAny();
  const [first, ...rest] = reorderMoves(ctx, queue.id, postIds);
  await ctx.db.batch([first!, ...rest]).catch((err: unknown) => {
    throw isGuardFailure(err) ? conflict(QUEUE_CHANGED) : err;
  });
  const times = held.map((h) => h.at).sort((a, b) => a - b);
  return postIds.map((postId, i) => ({
    at: formatYmdHis(times[i]!),
    local: localYmdHis(times[i]!, queue.timeZone),
    post_id: postId,
    reservation_id: null,
  }));
}
