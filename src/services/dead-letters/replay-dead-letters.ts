import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { eqFilterOnly, inFilterOnly, inJsonArray } from "../../db/json-params";
import { deadLetters, postPlatforms, posts } from "../../db/schema";
import { log } from "../../lib/logger";
import { enqueuePublishMessages, type PublishMessage, PublishMessageSchema } from "../../publishing/messages";

/** Dead letters replayed by one call (one D1 batch, one sendBatch). */
export const REPLAY_MAX = 100;

/**
 * Admin: send dead-lettered publish jobs again — the given ids, or the oldest not yet replayed. Each job's row,
 * failed by the dead-letter consumer, goes back to `pending` and its post to `publishing` (as a rescheduled post
 * retries its failed rows, decisions §6) in one batch that also marks the letters replayed; then the messages go
 * to PUBLISH_QUEUE. A row published or re-enqueued since (not `failed`) is left alone: its letter is marked
 * replayed and the consumer's claim makes the extra message a no-op. A letter whose body does not parse is
 * reported and not sent.
 */
export async function replayDeadLetters(ctx: ServiceContext, input: { ids?: string[] }) {
  const letters = await ctx.db
    .select()
    .from(deadLetters)
    .where(and(isNull(deadLetters.replayedAt), input.ids ? inJsonArray(deadLetters.id, input.ids) : undefined))
    .orderBy(asc(deadLetters.createdAt), asc(deadLetters.id))
    .limit(REPLAY_MAX);
  const messages: PublishMessage[] = [];
  const unreadable: string[] = [];
  for (const letter of letters) {
    let body: unknown = null;
    try {
      body = JSON.parse(letter.body);
    } catch {}
    const parsed = PublishMessageSchema.safeParse(body);
    if (parsed.success) messages.push(parsed.data);
    else unreadable.push(letter.id);
  }
  const replayed = letters.filter((l) => !unreadable.includes(l.id)).map((l) => l.id);
  if (replayed.length === 0) return { replayed: [], unreadable };

  const now = ctx.now();
  const rowIds = messages.map((m) => m.post_platform_id);
  const postIds = [...new Set(messages.map((m) => m.post_id))];
  await ctx.db.batch([
    ctx.db
      .update(postPlatforms)
      .set({ status: "pending", errorMessage: null, updatedAt: now })
      .where(
        and(
          inJsonArray(postPlatforms.id, rowIds),
          eqFilterOnly(postPlatforms.status, "failed"),
          eq(postPlatforms.enabled, true),
        ),
      ),
    ctx.db
      .update(posts)
      .set({ status: "publishing", publishedAt: null, updatedAt: now })
      .where(
        and(
          inJsonArray(posts.id, postIds),
          inFilterOnly(posts.status, ["failed", "partially_published"]),
          sql`EXISTS (SELECT 1 FROM post_platforms pp WHERE pp.post_id = posts.id AND +pp.status = 'pending' AND pp.enabled = 1)`,
        ),
      ),
    ctx.db.update(deadLetters).set({ replayedAt: now }).where(inJsonArray(deadLetters.id, replayed)),
  ]);
  try {
    await enqueuePublishMessages(ctx.env.PUBLISH_QUEUE, messages);
  } catch (err) {
    // Not sent: the letters can be replayed again; the rows left pending are timed out by the sweeper.
    await ctx.db.update(deadLetters).set({ replayedAt: null }).where(inJsonArray(deadLetters.id, replayed));
    throw err;
  }
  log("info", "dead_letters_replayed", { count: replayed.length, unreadable: unreadable.length });
  return { replayed, unreadable };
}
