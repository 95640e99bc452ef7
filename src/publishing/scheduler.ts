import { and, asc, eq, gt, lte, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { ServiceContext } from "../context";
import { eqFilterOnly, inJsonArray } from "../db/json-params";
import { postPlatforms, posts } from "../db/schema";
import { errorFields, log } from "../lib/logger";
import { postSettledEvent } from "../services/webhooks/outbox";
import { enqueuePublishMessages, type PublishMessage, QUEUE_SEND_BATCH_MAX } from "./messages";
import { recomputePostStatus } from "./status";

/**
 * On time at any volume (issue 28, docs/scale.md). The tick reads the ids of every due post (pages of
 * SCHEDULER_SCAN_PAGE, keyset on scheduled_at, id), claims the oldest SCHEDULER_CLAIM_CHUNK itself and hands every
 * other chunk to the `publish-claims` queue, whose consumer claims them in parallel. A claim is one conditional
 * `UPDATE … WHERE status = 'scheduled' … RETURNING` (SQLite runs it atomically, so of two overlapping ticks, or two
 * deliveries of one claim message, each post is returned to exactly one) followed by the enqueue of its rows. Every
 * invocation stays bounded: a claim is ≤ 100 posts, ≤ 4 D1 statements and ≤ 3 sendBatch calls; the tick is one
 * D1 read per 10,000 due posts and one sendBatch per 50 chunks.
 */
export const SCHEDULER_CLAIM_CHUNK = 100;
export const SCHEDULER_SCAN_PAGE = 10_000;
/** Claim messages per sendBatch: 50 × ~3.8 KB (100 UUIDs) stays under the 256 KB a sendBatch may carry. */
export const CLAIM_MESSAGES_PER_SEND = 50;
/** sendBatch calls in flight at once (each carries up to 100 messages). */
const ENQUEUE_CONCURRENCY = 6;

/** The body of a `publish-claims` message: due posts for one claim. */
export const ClaimMessageSchema = z.object({
  claim_post_ids: z.array(z.uuid()).min(1).max(SCHEDULER_CLAIM_CHUNK),
});
export type ClaimMessage = z.infer<typeof ClaimMessageSchema>;

export interface SchedulerResult {
  /** Posts due at the tick. */
  due: number;
  /** Claimed and enqueued by the tick itself (the oldest chunk). */
  claimedPosts: number;
  enqueued: number;
  /** Chunks handed to the publish-claims queue. */
  fannedOut: number;
}

export interface ClaimResult {
  claimedPosts: number;
  enqueued: number;
}

/**
 * Issue 37: a post of a paused queue is not due — it stays `scheduled` until the queue is resumed (which moves it
 * onto a slot after now). One primary-key lookup per due post that names a queue.
 */
const notInPausedQueue = sql`(${posts.queueId} IS NULL OR NOT EXISTS
  (SELECT 1 FROM queues q WHERE q.id = posts.queue_id AND q.paused = 1))`;

/** Every due post's id, oldest first, in chunks of SCHEDULER_CLAIM_CHUNK. */
async function dueChunks(ctx: ServiceContext, now: number): Promise<string[][]> {
  const chunks: string[][] = [];
  let after: { at: number; id: string } | null = null;
  for (;;) {
    const page: { id: string; at: number | null }[] = await ctx.db
      .select({ id: posts.id, at: posts.scheduledAt })
      .from(posts)
      .where(
        and(
          eq(posts.status, "scheduled"),
          lte(posts.scheduledAt, now),
          notInPausedQueue,
          after
            ? or(gt(posts.scheduledAt, after.at), and(eq(posts.scheduledAt, after.at), gt(posts.id, after.id)))
            : undefined,
        ),
      )
      .orderBy(asc(posts.scheduledAt), asc(posts.id))
      .limit(SCHEDULER_SCAN_PAGE);
    for (let i = 0; i < page.length; i += SCHEDULER_CLAIM_CHUNK)
      chunks.push(page.slice(i, i + SCHEDULER_CLAIM_CHUNK).map((p) => p.id));
    if (page.length < SCHEDULER_SCAN_PAGE) return chunks;
    const last = page.at(-1)!;
    after = { at: last.at ?? 0, id: last.id };
  }
}

/** The cron's publish step (decisions §7): claim and enqueue every due post, fanning the claims out. */
export async function runScheduler(ctx: ServiceContext): Promise<SchedulerResult> {
  const now = ctx.now();
  const chunks = await dueChunks(ctx, now);
  const result: SchedulerResult = { due: 0, claimedPosts: 0, enqueued: 0, fannedOut: 0 };
  if (chunks.length === 0) return result;
  result.due = chunks.reduce((n, c) => n + c.length, 0);
  const [first, ...rest] = chunks;
  const [claim, fannedOut] = await Promise.all([claimAndEnqueue(ctx, first!), fanOut(ctx, rest)]);
  Object.assign(result, claim, { fannedOut });
  log("info", "scheduler_tick", { ...result });
  return result;
}

/**
 * Hands chunks to `publish-claims`. A send that fails leaves its posts scheduled: the next tick finds them again
 * (so does an overlapping tick, whose duplicate claim messages then claim nothing).
 */
async function fanOut(ctx: ServiceContext, chunks: string[][]): Promise<number> {
  let sent = 0;
  const sends: Promise<void>[] = [];
  for (let i = 0; i < chunks.length; i += CLAIM_MESSAGES_PER_SEND) {
    const batch = chunks.slice(i, i + CLAIM_MESSAGES_PER_SEND);
    sends.push(
      ctx.env.CLAIM_QUEUE.sendBatch(
        batch.map((ids) => ({ body: { claim_post_ids: ids } satisfies ClaimMessage, contentType: "json" as const })),
      ).then(
        () => {
          sent += batch.length;
        },
        (err) => log("error", "scheduler_fan_out_failed", { chunks: batch.length, ...errorFields(err) }),
      ),
    );
  }
  await Promise.all(sends);
  return sent;
}

/** One claim: the posts of `ids` still scheduled and due, then one publish message per enabled row. */
export async function claimAndEnqueue(ctx: ServiceContext, ids: string[]): Promise<ClaimResult> {
  const now = ctx.now();
  const claimed = await ctx.db
    .update(posts)
    .set({ status: "publishing", updatedAt: now })
    // By id (the chunk), the status a filter: the due index would walk every due post of every chunk.
    .where(
      and(
        eqFilterOnly(posts.status, "scheduled"),
        lte(posts.scheduledAt, now),
        inJsonArray(posts.id, ids),
        notInPausedQueue,
      ),
    )
    .returning({ id: posts.id, workspaceId: posts.workspaceId });
  if (claimed.length === 0) return { claimedPosts: 0, enqueued: 0 };
  const enqueued = await enqueueClaimed(ctx, claimed, now);
  log("info", "scheduler_claim", { claimed: claimed.length, enqueued });
  return { claimedPosts: claimed.length, enqueued };
}

/** The `publish-claims` consumer: each message is one chunk; the chunks of a batch are claimed concurrently. */
export async function handleClaimBatch(ctx: ServiceContext, batch: MessageBatch<unknown>): Promise<void> {
  await Promise.all(
    batch.messages.map(async (message) => {
      const parsed = ClaimMessageSchema.safeParse(message.body);
      if (!parsed.success) {
        log("error", "claim_message_invalid", { message_id: message.id });
        return message.ack();
      }
      try {
        await claimAndEnqueue(ctx, parsed.data.claim_post_ids);
        message.ack();
      } catch (err) {
        // Posts not claimed stay scheduled; the next delivery (or the next tick) claims them.
        log("error", "claim_message_error", { message_id: message.id, ...errorFields(err) });
        message.retry({ delaySeconds: 1 });
      }
    }),
  );
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
          eqFilterOnly(postPlatforms.status, "failed"),
        ),
      ),
    ctx.db
      .select({ id: postPlatforms.id, postId: postPlatforms.postId })
      .from(postPlatforms)
      .where(
        and(
          inJsonArray(postPlatforms.postId, ids),
          eq(postPlatforms.enabled, true),
          eqFilterOnly(postPlatforms.status, "pending"),
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
      .where(and(eqFilterOnly(posts.status, "publishing"), inJsonArray(posts.id, [...failedPosts])));
  }
  return sent;
}
