import { and, asc, eq } from "drizzle-orm";
import { checkRowTexts, FIRST_COMMENT_MAX, rowText, supportsFirstComment } from "../../catalog/follow-ups";
import { accountTextLimits, measurePlatform } from "../../catalog/rules";
import { contentLength } from "../../catalog/text-length";
import type { WorkspaceContext } from "../../context";
import { aliased } from "../../db/aliased";
import { media, postMedia, postPlatforms, posts, socialAccounts } from "../../db/schema";
import { notFound } from "../../lib/errors";
import { RULE_MEDIA_COLUMNS } from "../media/rule-media";
import type { StoredRepeat } from "./repeat-rule";
import { loadThreadMedia, threadForRules } from "./row-texts";

/** Networks that refuse a text identical to one the account posted before (issue 37: warned for repeats). */
const REFUSE_IDENTICAL_TEXT = new Set(["x", "linkedin", "linkedin-page"]);
export const REPEAT_SAME_TEXT =
  "This post repeats with the same text each time, and this network refuses an identical text: add variations to the repeat.";

/**
 * Issue 37: a repeating post whose occurrences would send this row the same text again — no variations, or the row
 * has its own text (variations replace the shared text only).
 */
const repeatsSameText = (repeat: StoredRepeat | null, platform: string, rowContent: string | null) =>
  repeat !== null &&
  REFUSE_IDENTICAL_TEXT.has(platform) &&
  ((repeat.variations?.length ?? 0) === 0 || rowContent !== null);

export interface PreviewItem {
  post_platform_id: string;
  platform: string;
  content_type: string;
  content_length: number;
  max_content_length: number;
  media_count: number;
  max_media_count: number;
  /** Empty when the row would publish. */
  problems: string[];
  /** Issue 20: each thread item measured like the row (only when the row has a thread). */
  thread?: { content_length: number; max_content_length: number; media_count: number; max_media_count: number }[];
  /** Issue 20: the first comment measured (only when the row has one). */
  first_comment?: { content_length: number; max_content_length: number };
}

/** Problems the publish job would hit before calling the network (decisions §7 wording). */
export function accountProblems(
  account: { isActive: boolean; status: string; meta: Record<string, unknown> | null },
  row: { platform: string; meta: Record<string, unknown> | null },
): string[] {
  const problems: string[] = [];
  if (account.status === "disconnected") problems.push("Social account is disconnected.");
  else if (!account.isActive) problems.push("Social account is deactivated.");
  else if (account.status === "token_expired") problems.push("Social account session expired — please reconnect.");
  if (row.platform === "pinterest" && !row.meta?.board_id && !account.meta?.default_board_id) {
    problems.push("Pinterest board_id is required.");
  }
  return problems;
}

/**
 * Per enabled row: length counted as its platform counts, caps, media count, and every problem that would fail it
 * at publish time — length and media (the shared rules, publish wording), account state and Pinterest board.
 */
export async function previewPost(ctx: WorkspaceContext, postId: string): Promise<PreviewItem[]> {
  const [[post], rows, mediaRows] = await ctx.db.batch([
    ctx.db
      .select({ content: posts.content, repeat: posts.repeat })
      .from(posts)
      .where(and(eq(posts.id, postId), eq(posts.workspaceId, ctx.workspaceId))),
    ctx.db
      .select({
        row: postPlatforms,
        account: {
          isActive: aliased(socialAccounts.isActive, "account_is_active"),
          status: aliased(socialAccounts.status, "account_status"),
          meta: aliased(socialAccounts.meta, "account_meta"),
        },
      })
      .from(postPlatforms)
      .innerJoin(socialAccounts, eq(socialAccounts.id, postPlatforms.socialAccountId))
      .where(and(eq(postPlatforms.postId, postId), eq(postPlatforms.enabled, true)))
      .orderBy(asc(postPlatforms.position), asc(postPlatforms.createdAt)),
    ctx.db
      .select(RULE_MEDIA_COLUMNS)
      .from(postMedia)
      .innerJoin(media, eq(media.id, postMedia.mediaId))
      .where(eq(postMedia.postId, postId))
      .orderBy(asc(postMedia.position)),
  ]);
  if (!post) throw notFound();
  const threadMedia = await loadThreadMedia(
    ctx,
    rows.map(({ row }) => row.thread),
  );
  return rows.map(({ row, account }) => {
    const limits = accountTextLimits(row.platform, account.meta);
    const input = {
      platform: row.platform,
      contentType: row.contentType,
      content: rowText(row.content, post.content),
      media: mediaRows,
      limits,
    };
    const thread = threadForRules(row.thread, threadMedia);
    const texts = {
      platform: row.platform,
      contentType: row.contentType,
      postContent: post.content,
      postMedia: mediaRows,
      content: row.content,
      thread,
      firstComment: row.firstComment,
      limits,
    };
    const item: PreviewItem = {
      post_platform_id: row.id,
      platform: row.platform,
      content_type: row.contentType,
      ...measurePlatform(input),
      problems: [
        ...accountProblems(account, row),
        ...checkRowTexts(texts, "publish").map((p) => p.message),
        ...(repeatsSameText(post.repeat as StoredRepeat | null, row.platform, row.content) ? [REPEAT_SAME_TEXT] : []),
      ],
    };
    if (thread.length > 0) {
      item.thread = thread.map((t) => {
        const m = measurePlatform({ ...input, content: t.content, media: t.media });
        return {
          content_length: m.content_length,
          max_content_length: m.max_content_length,
          media_count: m.media_count,
          max_media_count: m.max_media_count,
        };
      });
    }
    if (row.firstComment !== null && supportsFirstComment(row.platform)) {
      item.first_comment = {
        content_length: contentLength(row.platform, row.firstComment, { urlLength: limits?.urlLength }),
        max_content_length: FIRST_COMMENT_MAX[row.platform] ?? measurePlatform(input).max_content_length,
      };
    }
    return item;
  });
}
