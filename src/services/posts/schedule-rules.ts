/**
 * The rules `status=scheduled` checks on a post as it will be (decisions §6), shared by PUT /api/posts/{post} and
 * POST /api/posts with `queue_id` (issue 37: created and queued in one call).
 */
import { checkRowTexts } from "../../catalog/follow-ups";
import type { RuleMedia } from "../../catalog/media-rules";
import { type AccountTextLimits, accountTextLimits } from "../../catalog/rules";
import type { postPlatforms } from "../../db/schema";
import type { ErrorBag } from "../../lib/errors";
import { type References, SCHEDULED_AT_AFTER_NOW } from "./references";
import { threadForRules } from "./row-texts";

export const NO_ENABLED_PLATFORM = "At least one platform must be enabled.";

/** What the rules read of a platform row. */
export type ScheduleRuleRow = Pick<
  typeof postPlatforms.$inferSelect,
  "id" | "platform" | "contentType" | "socialAccountId" | "content" | "thread" | "firstComment"
>;

/** Mastodon rows' limits from their instance, as stored on the account (docs/text-counting.md). */
export function textLimitsOf(refs: References, rows: readonly ScheduleRuleRow[]): Map<string, AccountTextLimits> {
  const out = new Map<string, AccountTextLimits>();
  for (const row of rows) {
    const limits = accountTextLimits(row.platform, refs.accounts.get(row.socialAccountId)?.meta);
    if (limits) out.set(row.socialAccountId, limits);
  }
  return out;
}

/** decisions §6 `status=scheduled`: future time, an enabled row, and every enabled row's length and media rules. */
export function checkSchedule(
  bag: ErrorBag,
  s: {
    requireFuture: boolean;
    scheduledAt: number | null;
    now: number;
    content: string | null;
    media: RuleMedia[];
    rows: ScheduleRuleRow[];
    /** Each row's index in the post's `platforms` (names its own texts' errors: `platforms.2.thread.1.content`). */
    indexOf: ReadonlyMap<string, number>;
    /** Rule columns of the media the rows' thread items name. */
    threadMedia: ReadonlyMap<string, RuleMedia>;
    /** Fields that failed the shape check: their rules are not run against the old values. */
    skip?: ReadonlySet<string>;
    limits: Map<string, AccountTextLimits>;
  },
): void {
  if (s.scheduledAt === null) bag.add("scheduled_at", "The scheduled at field is required when status is scheduled.");
  else if (s.requireFuture && s.scheduledAt <= s.now) bag.add("scheduled_at", SCHEDULED_AT_AFTER_NOW);
  if (s.rows.length === 0) bag.add("platforms", NO_ENABLED_PLATFORM);
  for (const row of s.rows) {
    for (const problem of checkRowTexts({
      platform: row.platform,
      contentType: row.contentType,
      postContent: s.content,
      postMedia: s.media,
      content: row.content,
      thread: threadForRules(row.thread, s.threadMedia),
      firstComment: row.firstComment,
      limits: s.limits.get(row.socialAccountId),
    })) {
      // The post's content and media are shared: their problems keep the post's fields (`content`, `media`); a
      // row's own texts name the row and item.
      const field = problem.shared ? problem.field : `platforms.${s.indexOf.get(row.id)}.${problem.field}`;
      if (s.skip?.has(problem.shared ? problem.field : "platforms")) continue;
      // One message per platform even when two rows share a platform and a content type.
      if (!bag.errors[field]?.includes(problem.message)) bag.add(field, problem.message);
    }
  }
}
