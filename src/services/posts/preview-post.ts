import { and, asc, eq } from "drizzle-orm";
import { accountTextLimits, checkPlatformRules, measurePlatform } from "../../catalog/rules";
import type { WorkspaceContext } from "../../context";
import { aliased } from "../../db/aliased";
import { media, postMedia, postPlatforms, posts, socialAccounts } from "../../db/schema";
import { notFound } from "../../lib/errors";
import { RULE_MEDIA_COLUMNS } from "../media/rule-media";

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
      .select({ content: posts.content })
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
  return rows.map(({ row, account }) => {
    const input = {
      platform: row.platform,
      contentType: row.contentType,
      content: post.content,
      media: mediaRows,
      limits: accountTextLimits(row.platform, account.meta),
    };
    return {
      post_platform_id: row.id,
      platform: row.platform,
      content_type: row.contentType,
      ...measurePlatform(input),
      problems: [...accountProblems(account, row), ...checkPlatformRules(input, "publish").map((p) => p.message)],
    };
  });
}
