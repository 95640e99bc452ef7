import { and, eq, lt, sql } from "drizzle-orm";
import type { ServiceContext } from "../context";
import { postPlatforms, posts } from "../db/schema";
import { log } from "../lib/logger";
import { postPlatformEvents, postSettledEvent } from "../services/webhooks/outbox";
import { PUBLISH_ERRORS } from "./errors";
import { recomputePostStatus } from "./status";

/** A row in `publishing` longer than this is failed by the cron (decisions §7). */
export const STUCK_ROW_TIMEOUT_MS = 60 * 60 * 1000;

/**
 * Fails rows stuck in `publishing` for over an hour (claimed but never finished: a crashed consumer, a lost
 * message), and pending rows of posts that have been publishing for over an hour (their message never arrived),
 * then settles the status of the posts they belong to.
 */
export async function sweepStuckRows(ctx: ServiceContext): Promise<number> {
  const now = ctx.now();
  const cutoff = now - STUCK_ROW_TIMEOUT_MS;
  const timedOut = { status: "failed" as const, errorMessage: PUBLISH_ERRORS.timedOut, updatedAt: now };
  const [claimed, orphaned, , stalePosts] = await ctx.db.batch([
    ctx.db
      .update(postPlatforms)
      .set(timedOut)
      .where(
        and(
          eq(postPlatforms.enabled, true),
          eq(postPlatforms.status, "publishing"),
          lt(postPlatforms.claimedAt, cutoff),
        ),
      )
      .returning({ postId: postPlatforms.postId }),
    ctx.db
      .update(postPlatforms)
      .set(timedOut)
      .where(
        and(
          eq(postPlatforms.enabled, true),
          eq(postPlatforms.status, "pending"),
          sql`${postPlatforms.postId} IN (SELECT id FROM posts WHERE status = 'publishing' AND updated_at < ${cutoff})`,
        ),
      )
      .returning({ postId: postPlatforms.postId }),
    // One statement for the rows of both updates: exactly those written just now with the timeout message.
    postPlatformEvents(ctx, sql`pp.error_message = ${PUBLISH_ERRORS.timedOut}`, now, { afterChange: false }),
    ctx.db
      .select({ postId: posts.id })
      .from(posts)
      .where(and(eq(posts.status, "publishing"), lt(posts.updatedAt, cutoff)))
      .limit(500),
  ]);
  const postIds = [...new Set([...claimed, ...orphaned, ...stalePosts].map((r) => r.postId))];
  if (postIds.length > 0) {
    const [first, ...rest] = postIds.flatMap((id) => [recomputePostStatus(ctx.db, id, now), postSettledEvent(ctx, id)]);
    await ctx.db.batch([first!, ...rest]);
  }
  const failed = claimed.length + orphaned.length;
  if (failed > 0) log("warn", "publish_rows_timed_out", { rows: failed, posts: postIds.length });
  return failed;
}
