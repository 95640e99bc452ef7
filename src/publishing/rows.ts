import { and, eq, lt, ne } from "drizzle-orm";
import type { ServiceContext } from "../context";
import { postPlatforms } from "../db/schema";
import type { PublishResult } from "../platforms/types";
import { postPlatformEvents, postSettledEvent } from "../services/webhooks/outbox";
import { postLink } from "./post-link";
import { recomputePostStatus } from "./status";

/**
 * Row transitions of the publish job. Every write is conditional: the claim decides which delivery may call the
 * platform, and `attempts` (the queue delivery number that holds the claim) fences later writes so a stale
 * delivery cannot overwrite a newer one.
 */
export type RowRecord = typeof postPlatforms.$inferSelect;

/** pending → publishing; the delivery that gets a row back owns the platform call. */
export async function claimPendingRow(ctx: ServiceContext, rowId: string, attempt: number) {
  const now = ctx.now();
  const [row] = await ctx.db
    .update(postPlatforms)
    .set({ status: "publishing", claimedAt: now, attempts: attempt, errorMessage: null, updatedAt: now })
    .where(and(eq(postPlatforms.id, rowId), eq(postPlatforms.status, "pending"), eq(postPlatforms.enabled, true)))
    .returning();
  return row;
}

/**
 * A retry (later delivery) re-claims a row it left in `publishing`. The row may already have reached the network,
 * so the caller checks `findExisting` before publishing again.
 */
export async function reclaimPublishingRow(ctx: ServiceContext, rowId: string, attempt: number) {
  const now = ctx.now();
  const [row] = await ctx.db
    .update(postPlatforms)
    .set({ claimedAt: now, attempts: attempt, updatedAt: now })
    .where(
      and(
        eq(postPlatforms.id, rowId),
        eq(postPlatforms.status, "publishing"),
        eq(postPlatforms.enabled, true),
        lt(postPlatforms.attempts, attempt),
      ),
    )
    .returning();
  return row;
}

/**
 * Records a success and recomputes the post in one batch. Not fenced on the attempt: a post that exists on the
 * network is the truth even if the row was swept meanwhile; it only never overwrites an earlier success.
 */
export async function markRowPublished(ctx: ServiceContext, row: RowRecord, result: PublishResult) {
  const now = ctx.now();
  await ctx.db.batch([
    ctx.db
      .update(postPlatforms)
      .set({
        status: "published",
        platformPostId: result.platformPostId,
        platformUrl: postLink(ctx.config, result.platformUrl),
        publishedAt: now,
        errorMessage: null,
        publishState: null,
        replyRef: result.replyRef ?? null,
        followUpState: null,
        updatedAt: now,
      })
      .where(and(eq(postPlatforms.id, row.id), ne(postPlatforms.status, "published"))),
    postPlatformEvents(ctx, [row.id], now),
    recomputePostStatus(ctx.db, row.postId, now),
    postSettledEvent(ctx, row.postId),
  ]);
}

/**
 * Issue 20: the row's own post is on the network but its follow-ups (thread, first comment) are still to come —
 * recorded at once (id, URL, what replies need), the row staying `publishing`, so a retry never posts it again
 * (publish-row.ts resumes from `platform_post_id`). Not fenced on the attempt, like `markRowPublished`.
 */
export async function recordMainPost(ctx: ServiceContext, row: RowRecord, result: PublishResult) {
  await ctx.db
    .update(postPlatforms)
    .set({
      platformPostId: result.platformPostId,
      platformUrl: postLink(ctx.config, result.platformUrl),
      replyRef: result.replyRef ?? null,
      publishState: null,
      updatedAt: ctx.now(),
    })
    .where(and(eq(postPlatforms.id, row.id), ne(postPlatforms.status, "published")));
}

export async function markRowFailed(ctx: ServiceContext, row: RowRecord, message: string) {
  const now = ctx.now();
  await ctx.db.batch([
    ctx.db
      .update(postPlatforms)
      // A failure the job decided ends what was saved: a user's retry of the failed row starts afresh. (Rows the
      // sweeper or the dead-letter consumer fail keep it, so a later retry still resumes from the handle.)
      .set({ status: "failed", errorMessage: message, publishState: null, updatedAt: now })
      .where(heldByThisDelivery(row)),
    postPlatformEvents(ctx, [row.id], now),
    recomputePostStatus(ctx.db, row.postId, now),
    postSettledEvent(ctx, row.postId),
  ]);
}

/** The claim moved on to another delivery: this one must not call the network any more. */
export class ClaimLost extends Error {}

/** The fence of every write a delivery makes to its row: still `publishing` under this delivery's attempt. */
export const heldByThisDelivery = (row: RowRecord) =>
  and(eq(postPlatforms.id, row.id), eq(postPlatforms.status, "publishing"), eq(postPlatforms.attempts, row.attempts));

/**
 * Saves the publish checkpoint before an irreversible platform call, fenced on the claim like every other write.
 * Throws ClaimLost when this delivery no longer holds the row.
 */
export async function savePublishState(ctx: ServiceContext, row: RowRecord, state: Record<string, unknown>) {
  const saved = await ctx.db
    .update(postPlatforms)
    .set({ publishState: state, updatedAt: ctx.now() })
    .where(heldByThisDelivery(row))
    .returning({ id: postPlatforms.id });
  if (saved.length === 0) throw new ClaimLost("The row was claimed by another delivery.");
}

/** Keeps the row in `publishing` until the retry, remembering the last error (shown if retries run out). */
export async function noteRetry(ctx: ServiceContext, row: RowRecord, message: string) {
  await ctx.db
    .update(postPlatforms)
    .set({ errorMessage: message, updatedAt: ctx.now() })
    .where(heldByThisDelivery(row));
}
