import { and, eq, sql } from "drizzle-orm";
import type { ServiceContext } from "../context";
import type { Db } from "../db/client";
import { constraintFailure } from "../db/errors";
import { posts } from "../db/schema";
import { countEach } from "../lib/logger";
import { copyPostStatements, readCopySource } from "../services/posts/copy-post";
import { nextOccurrence, occurrenceContent, type StoredRepeat } from "../services/posts/repeat-rule";
import { postEvent } from "../services/webhooks/outbox";

/** Occurrences one cron run continues at most (the rest wait a minute); each costs two D1 round trips. */
export const REPEATS_PER_RUN = 50;

// Settled: published, partially published or failed — an occurrence that failed still lets its series go on (its
// own retry is separate).

/**
 * Settled occurrences still to continue, from the partial index `posts_repeat_due_idx` (only posts with a rule not
 * yet continued): the conditions are literals, as SQLite needs them to use a partial index — a bound `0` would send
 * it through every published post instead.
 */
export function dueOccurrences(db: Db, scope?: { workspaceId: string }) {
  return db
    .select({
      id: posts.id,
      scheduledAt: posts.scheduledAt,
      publishedAt: posts.publishedAt,
      repeat: posts.repeat,
      repeatOf: posts.repeatOf,
      repeatIndex: posts.repeatIndex,
    })
    .from(posts)
    .where(
      and(
        sql`${posts.repeat} IS NOT NULL AND ${posts.repeatContinued} = 0`,
        sql`${posts.status} IN ('published', 'partially_published', 'failed')`,
        scope ? eq(posts.workspaceId, scope.workspaceId) : undefined,
      ),
    )
    .limit(REPEATS_PER_RUN);
}

/**
 * Issue 37 (docs/queues.md, "Repeating posts"): for each settled occurrence of a repeating post not yet continued,
 * create the next occurrence as its own scheduled post — same targets, media and labels, its own rows — at its time
 * (`repeat-rule.ts`), or note that the series has ended. Every minute from the cron, so a lost run is caught up by
 * the next. The new post's INSERT is UNIQUE on (repeat_of, repeat_index): two runs at once create it once, the
 * loser's batch failing whole. `scope` keeps a test to its own workspace.
 */
export async function continueRepeats(ctx: ServiceContext, scope?: { workspaceId: string }): Promise<number> {
  const due = await dueOccurrences(ctx.db, scope);
  return countEach(
    due,
    (o) => continueOne(ctx, o),
    "repeat_continue_failed",
    (o) => ({
      request_id: ctx.requestId,
      post_id: o.id,
    }),
  );
}

interface Occurrence {
  id: string;
  scheduledAt: number | null;
  publishedAt: number | null;
  repeat: StoredRepeat | null;
  repeatOf: string | null;
  repeatIndex: number;
}

async function continueOne(ctx: ServiceContext, o: Occurrence): Promise<boolean> {
  const rule = o.repeat as StoredRepeat;
  const now = ctx.now();
  const at = o.scheduledAt ?? o.publishedAt ?? now;
  const markContinued = ctx.db
    .update(posts)
    .set({ repeatContinued: true })
    .where(and(eq(posts.id, o.id), eq(posts.repeatContinued, false)));
  const next = nextOccurrence(rule, o.repeatIndex, at, now);
  const source = next ? await readCopySource(ctx.db, o.id) : null;
  if (!next || !source) {
    await markContinued;
    return false;
  }
  const copy = copyPostStatements(ctx.db, source, {
    status: "scheduled",
    content: occurrenceContent(rule, next.index, source.post.content),
    scheduledAt: next.at,
    queueId: null,
    // The series counts from its anchor: this occurrence, when the rule has none yet.
    repeat: { ...rule, anchor_at: rule.anchor_at ?? at, anchor_index: rule.anchor_index ?? o.repeatIndex },
    repeatOf: o.repeatOf ?? o.id,
    repeatIndex: next.index,
    now,
  });
  try {
    // One transaction: the mark, the copy (whose INSERT a second copy fails on), then its post.scheduled.
    await ctx.db.batch([markContinued, ...copy.statements, postEvent(ctx, "post.scheduled", copy.id)]);
    return true;
  } catch (err) {
    if (!constraintFailure(err)?.startsWith("UNIQUE")) throw err;
    // This occurrence exists already (another run made it first): the post is continued either way.
    await markContinued;
    return false;
  }
}
