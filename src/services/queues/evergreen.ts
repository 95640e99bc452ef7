import { and, eq, gt, isNull, lte, sql } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import type { Db } from "../../db/client";
import { constraintFailure } from "../../db/errors";
import { queueSlots, queues } from "../../db/schema";
import { newId } from "../../lib/ids";
import { countEach } from "../../lib/logger";
import { copyPostStatements, readCopySource } from "../posts/copy-post";
import { postEvent } from "../webhooks/outbox";
import { upcomingSlotTimes } from "./slot-times";

/** How far ahead an empty slot is filled (issue 37: "a slot still empty 24 hours ahead"). */
export const EVERGREEN_HORIZON_MS = 24 * 3_600_000;
/** Queues one cron run looks at; each fills at most one slot a run (a minute). */
export const EVERGREEN_QUEUES_PER_RUN = 100;
const DAY_MS = 86_400_000;

type QueueRow = typeof queues.$inferSelect;

/**
 * Issue 37 (docs/queues.md, "Evergreen posts"): each queue that names an evergreen label fills its first slot that
 * is still empty within the next 24 hours with a copy of one of that label's published posts: the one whose last
 * copy (or, never copied, its own publication) is oldest and older than the queue's `evergreen_min_days`. Never the
 * post the queue's last fill copied, never a post with a copy still scheduled or publishing, nothing when none
 * qualifies; paused queues are left alone. The copy is scheduled in the slot like any queued post (`repeat_of`
 * names the original). A slot taken meanwhile, or a second run copying the same post at once, fails that batch whole
 * (UNIQUE on the slot, and on (repeat_of, repeat_index)); the next run tries again. `scope` keeps a test to its
 * workspace.
 */
export async function fillEvergreenSlots(ctx: ServiceContext, scope?: { workspaceId: string }): Promise<number> {
  const rows = await evergreenQueues(ctx.db, scope);
  return countEach(
    rows,
    (q) => fillOne(ctx, q),
    "evergreen_fill_failed",
    (q) => ({
      request_id: ctx.requestId,
      queue_id: q.id,
    }),
  );
}

/** The queue's first slot within the horizon that no post and no live reservation holds; null when none. */
/** The queues with an evergreen label, from the partial index `queues_evergreen_idx` (literal conditions). */
export function evergreenQueues(db: Db, scope?: { workspaceId: string }) {
  return db
    .select()
    .from(queues)
    .where(
      and(
        sql`${queues.evergreenLabelId} IS NOT NULL`,
        sql`${queues.paused} = 0`,
        scope ? eq(queues.workspaceId, scope.workspaceId) : undefined,
      ),
    )
    .limit(EVERGREEN_QUEUES_PER_RUN);
}

async function firstEmptySlot(ctx: ServiceContext, queue: QueueRow, now: number): Promise<number | null> {
  const times = upcomingSlotTimes(queue.slots, queue.timeZone, now, 50).filter((t) => t <= now + EVERGREEN_HORIZON_MS);
  if (times.length === 0) return null;
  const held = await ctx.db
    .select({ at: queueSlots.at })
    .from(queueSlots)
    .where(
      and(
        eq(queueSlots.queueId, queue.id),
        gt(queueSlots.at, now),
        lte(queueSlots.at, times[times.length - 1]!),
        sql`(${queueSlots.postId} IS NOT NULL OR ${queueSlots.expiresAt} > ${now})`,
      ),
    );
  const taken = new Set(held.map((h) => h.at));
  return times.find((t) => !taken.has(t)) ?? null;
}

interface Candidate {
  id: string;
  next_index: number;
}

/** The label's published original whose last copy is oldest and older than the gap (see `fillEvergreenSlots`). */
async function pickCandidate(ctx: ServiceContext, queue: QueueRow, now: number): Promise<Candidate | null> {
  const gapStart = now - queue.evergreenMinDays * DAY_MS;
  const rows = await ctx.db.all<Candidate & { last_at: number }>(sql`
    SELECT id, next_index, last_at FROM (
      SELECT p.id AS id,
        coalesce((SELECT max(c.repeat_index) FROM posts c WHERE c.repeat_of = p.id), 0) + 1 AS next_index,
        max(coalesce(p.published_at, p.scheduled_at, 0),
          coalesce((SELECT max(coalesce(c.published_at, c.scheduled_at)) FROM posts c WHERE c.repeat_of = p.id), 0)) AS last_at
      FROM post_labels pl JOIN posts p ON p.id = pl.post_id
      WHERE pl.label_id = ${queue.evergreenLabelId} AND p.workspace_id = ${queue.workspaceId}
        AND p.status IN ('published', 'partially_published') AND p.repeat_of IS NULL AND p.repeat IS NULL
        AND p.id <> ${queue.evergreenLastPostId ?? ""}
        AND NOT EXISTS (SELECT 1 FROM posts c WHERE c.repeat_of = p.id AND c.status IN ('scheduled', 'publishing'))
    ) WHERE last_at <= ${gapStart}
    ORDER BY last_at, id LIMIT 1`);
  return rows[0] ?? null;
}

async function fillOne(ctx: ServiceContext, queue: QueueRow): Promise<boolean> {
  const now = ctx.now();
  const at = await firstEmptySlot(ctx, queue, now);
  if (at === null) return false;
  const candidate = await pickCandidate(ctx, queue, now);
  if (!candidate) return false;
  const source = await readCopySource(ctx.db, candidate.id);
  if (!source) return false;
  const copy = copyPostStatements(ctx.db, source, {
    status: "scheduled",
    content: source.post.content,
    scheduledAt: at,
    queueId: queue.id,
    repeat: null,
    repeatOf: candidate.id,
    repeatIndex: candidate.next_index,
    now,
  });
  try {
    await ctx.db.batch([
      // An expired reservation of that slot still has its row: gone first, as every add to the queue does.
      ctx.db
        .delete(queueSlots)
        .where(
          and(
            eq(queueSlots.queueId, queue.id),
            eq(queueSlots.at, at),
            isNull(queueSlots.postId),
            lte(queueSlots.expiresAt, now),
          ),
        ),
      ...copy.statements,
      ctx.db.insert(queueSlots).values({
        id: newId(),
        queueId: queue.id,
        workspaceId: queue.workspaceId,
        at,
        postId: copy.id,
        expiresAt: null,
        createdAt: now,
      }),
      ctx.db.update(queues).set({ evergreenLastPostId: candidate.id }).where(eq(queues.id, queue.id)),
      postEvent(ctx, "post.scheduled", copy.id),
    ]);
    return true;
  } catch (err) {
    // The slot was taken, or the post copied, by someone else meanwhile: the next run looks again.
    if (constraintFailure(err)?.startsWith("UNIQUE")) return false;
    throw err;
  }
}
