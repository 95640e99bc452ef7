import { and, asc, eq, inArray, lte } from "drizzle-orm";
import type { ServiceContext } from "../context";
import { inJsonArray } from "../db/json-params";
import { postPlatforms, posts } from "../db/schema";
import { errorFields, log } from "../lib/logger";
import { postSettledEvent } from "../services/webhooks/outbox";
import { enqueuePublishMessages, type PublishMessage, QUEUE_SEND_BATCH_MAX } from "./messages";
import { recomputePostStatus } from "./status";

/**
 * Work per cron tick is bounded, so one invocation stays far inside D1's and the Workers runtime's per-invocation
 * limits however many posts fall due at once (docs/limits.md): at most SCHEDULER_MAX_CLAIMS_PER_TICK claims of
 * SCHEDULER_CLAIM_CHUNK posts (≤ 500 posts, ≤ 5 statements per claim), and no further claim once
 * SCHEDULER_MESSAGES_PER_TICK messages went out. What is left is claimed by the next tick, oldest first.
 */
export const SCHEDULER_CLAIM_CHUNK = 100;
export const SCHEDULER_MAX_CLAIMS_PER_TICK = 5;
export const SCHEDULER_MESSAGES_PER_TICK = 5000;
/** sendBatch calls in flight at once (each carries up to 100 messages). */
const ENQUEUE_CONCURRENCY = 6;

export interface SchedulerResult {
  claimedPosts: number;
  enqueued: number;
}

/**
 * The cron's publish step (decisions §7): claim due scheduled posts and enqueue one message per enabled row.
 * The claim is one conditional `UPDATE … WHERE status = 'scheduled' … RETURNING`: SQLite runs it atomically, so
 * of two overlapping ticks each post is returned to exactly one.
 */
export async function runScheduler(ctx: ServiceContext): Promise<SchedulerResult> {
  const result: SchedulerResult = { claimedPosts: 0, enqueued: 0 };
  for (
    let claims = 0;
    claims < SCHEDULER_MAX_CLAIMS_PER_TICK && result.enqueued < SCHEDULER_MESSAGES_PER_TICK;
    claims++
  ) {
    const now = ctx.now();
    const due = ctx.db
      .select({ id: posts.id })
      .from(posts)
      .where(and(eq(posts.status, "scheduled"), lte(posts.scheduledAt, now)))
      .orderBy(asc(posts.scheduledAt))
      .limit(SCHEDULER_CLAIM_CHUNK);
    const claimed = await ctx.db
      .update(posts)
      .set({ status: "publishing", updatedAt: now })
      .where(and(eq(posts.status, "scheduled"), inArray(posts.id, due)))
      .returning({ id: posts.id, workspaceId: posts.workspaceId });
    if (claimed.length === 0) break;
    result.claimedPosts += claimed.length;
    result.enqueued += await enqueueClaimed(ctx, claimed, now);
    if (claimed.length < SCHEDULER_CLAIM_CHUNK) break;
  }
  if (result.claimedPosts > 0) log("info", "scheduler_tick", { ...result });
  return result;
}

async function enqueueClaimed(ctx: ServiceContext, claimed: { id: string; workspaceId: string }[], now: number) {
  // One bound parameter for any number of ids (D1 allows 100 per statement).
  const ids = claimed.map((p) => p.id);
  const [, rows] = await ctx.db.batch([
    // A rescheduled post tries its failed rows again, like PUT status=publishing does (decisions §6).
    ctx.db
      .update(postPlatforms)
      .set({ status: "pending", errorMessage: null, updatedAt: now })
      .where(
        and(
          inJsonArray(postPlatforms.postId, ids),
          eq(postPlatforms.enabled, true),
          eq(postPlatforms.status, "failed"),
        ),
      ),
    ctx.db
      .select({ id: postPlatforms.id, postId: postPlatforms.postId })
      .from(postPlatforms)
      .where(
        and(
          inJsonArray(postPlatforms.postId, ids),
          eq(postPlatforms.enabled, true),
          eq(postPlatforms.status, "pending"),
        ),
      )
      .orderBy(asc(postPlatforms.postId), asc(postPlatforms.position)),
  ]);

  const workspaceOf = new Map(claimed.map((p) => [p.id, p.workspaceId]));
  const messages: PublishMessage[] = rows.map((r) => ({
    post_platform_id: r.id,
    post_id: r.postId,
    workspace_id: workspaceOf.get(r.postId)!,
  }));

  // Posts with nothing left to publish (every enabled row already published) settle at once.
  const withWork = new Set(rows.map((r) => r.postId));
  const settled = claimed.filter((p) => !withWork.has(p.id));
  if (settled.length > 0) {
    const [first, ...rest] = settled.flatMap((p) => [
      recomputePostStatus(ctx.db, p.id, now),
      postSettledEvent(ctx, p.id),
    ]);
    await ctx.db.batch([first!, ...rest]);
  }

  const chunks: PublishMessage[][] = [];
  for (let i = 0; i < messages.length; i += QUEUE_SEND_BATCH_MAX)
    chunks.push(messages.slice(i, i + QUEUE_SEND_BATCH_MAX));
  let sent = 0;
  const failedPosts = new Set<string>();
  let next = 0;
  const worker = async () => {
    while (next < chunks.length) {
      const chunk = chunks[next++]!;
      try {
        await enqueuePublishMessages(ctx.env.PUBLISH_QUEUE, chunk);
        sent += chunk.length;
      } catch (err) {
        for (const m of chunk) failedPosts.add(m.post_id);
        log("error", "scheduler_enqueue_failed", { messages: chunk.length, ...errorFields(err) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(ENQUEUE_CONCURRENCY, chunks.length) }, worker));

  if (failedPosts.size > 0) {
    // Hand them back to the next tick. Rows already enqueued are safe: the consumer's claim makes a second
    // message for the same row a no-op.
    await ctx.db
      .update(posts)
      .set({ status: "scheduled", updatedAt: ctx.now() })
      .where(and(eq(posts.status, "publishing"), inJsonArray(posts.id, [...failedPosts])));
  }
  return sent;
}
