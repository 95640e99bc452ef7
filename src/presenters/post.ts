import type { Config } from "../config";
import type { FollowUpResult, labels, media, postPlatforms, posts, socialAccounts } from "../db/schema";
import { mediaPublicUrl } from "../lib/media-url";
import { formatYmdHis } from "../lib/time";
import { webLink } from "../lib/web-link";
import { presentRepeat, type StoredRepeat } from "../services/posts/repeat-rule";
import { presentLabel } from "./resources";

/** Wire shape of a Post (api.md "Post", "PostPlatform", "Media"; decisions §6, §8). */

/** The columns each part of a Post resource shows; the loader selects exactly these (src/services/posts/load-posts.ts). */
export const POST_FIELDS = [
  "id",
  "content",
  "status",
  "scheduledAt",
  "publishedAt",
  "queueId",
  "repeat",
  "repeatOf",
  "createdAt",
  "updatedAt",
] as const;
export const POST_PLATFORM_FIELDS = [
  "id",
  "platform",
  "contentType",
  "status",
  "enabled",
  "platformUrl",
  "publishedAt",
  "errorMessage",
  "displayName",
  "displayUsername",
  "displayAvatar",
  "meta",
  "platformPostId",
  "content",
  "thread",
  "firstComment",
  "followUps",
] as const;
export const ACCOUNT_FIELDS = ["id", "platform", "displayName", "username", "isActive", "status"] as const;
export const MEDIA_FIELDS = [
  "id",
  "path",
  "type",
  "mimeType",
  "originalFilename",
  "size",
  "width",
  "height",
  "durationSeconds",
  "alt",
] as const;
export const LABEL_FIELDS = ["id", "name", "color", "createdAt", "updatedAt"] as const;

type PostRow = Pick<typeof posts.$inferSelect, (typeof POST_FIELDS)[number]>;
type PostPlatformRow = Pick<typeof postPlatforms.$inferSelect, (typeof POST_PLATFORM_FIELDS)[number]>;
type AccountRow = Pick<typeof socialAccounts.$inferSelect, (typeof ACCOUNT_FIELDS)[number]>;
type MediaRow = Pick<typeof media.$inferSelect, (typeof MEDIA_FIELDS)[number]>;
type LabelRow = Pick<typeof labels.$inferSelect, (typeof LABEL_FIELDS)[number]>;

export interface PresentPostInput {
  post: PostRow;
  /** `itemMedia`: the media the row's thread items name (issue 20), in any order. */
  platforms: { row: PostPlatformRow; account: AccountRow; itemMedia?: MediaRow[] }[];
  media: MediaRow[];
  labels: LabelRow[];
}

export const presentMedia = (config: Pick<Config, "MEDIA_URL">, origin: string, m: MediaRow) => ({
  id: m.id,
  path: m.path,
  url: mediaPublicUrl(config, origin, m.path),
  type: m.type,
  mime_type: m.mimeType,
  original_filename: m.originalFilename,
  size: m.size,
  width: m.width,
  height: m.height,
  /** Issue 16: videos' duration from the container (null for images); width/height are as displayed. */
  duration_seconds: m.durationSeconds,
  /** Issue 29: the description sent to networks that take one (null: none). */
  alt: m.alt,
});

interface MediaBase {
  config: Pick<Config, "MEDIA_URL">;
  origin: string;
}

const pendingResult = { status: "pending" as const, platform_post_id: null, platform_url: null, error_message: null };

/** A follow-up's result as shown: its status, id, URL and error (never the stored reply_ref). */
const presentResult = (r: FollowUpResult | undefined) =>
  r
    ? {
        status: r.status,
        platform_post_id: r.platform_post_id,
        platform_url: webLink(r.platform_url),
        error_message: r.error_message,
      }
    : pendingResult;

/**
 * Issue 20: `content`, `thread` and `first_comment` of a row, each only when the row has it — a client that never
 * sets them sees the PostPlatform exactly as before (decisions §13).
 */
function presentRowTexts(ctx: MediaBase, row: PostPlatformRow, itemMedia: MediaRow[]) {
  const out: {
    content?: string;
    thread?: {
      content: string;
      media: MediaResource[];
      status: "pending" | "published" | "failed";
      platform_post_id: string | null;
      platform_url: string | null;
      error_message: string | null;
    }[];
    first_comment?: {
      content: string;
      status: "pending" | "published" | "failed";
      platform_post_id: string | null;
      platform_url: string | null;
      error_message: string | null;
    };
  } = {};
  if (row.content !== null && row.content !== undefined) out.content = row.content;
  const results = row.followUps ?? {};
  if (row.thread && row.thread.length > 0) {
    const byId = new Map(itemMedia.map((m) => [m.id, m]));
    out.thread = row.thread.map((item, i) => ({
      content: item.content,
      media: item.media.flatMap((id) => {
        const m = byId.get(id);
        return m ? [presentMedia(ctx.config, ctx.origin, m)] : [];
      }),
      ...presentResult(results[`t${i + 1}`]),
    }));
  }
  if (row.firstComment !== null && row.firstComment !== undefined) {
    out.first_comment = { content: row.firstComment, ...presentResult(results.c) };
  }
  return out;
}

export const presentPostPlatform = (
  row: PostPlatformRow,
  account: AccountRow,
  ctx?: MediaBase,
  itemMedia: MediaRow[] = [],
) => ({
  id: row.id,
  platform: row.platform,
  content_type: row.contentType,
  status: row.status,
  enabled: row.enabled,
  platform_url: webLink(row.platformUrl),
  published_at: formatYmdHis(row.publishedAt),
  error_message: row.errorMessage,
  display_name: row.displayName,
  display_username: row.displayUsername,
  display_avatar: row.displayAvatar,
  social_account: {
    id: account.id,
    platform: account.platform,
    display_name: account.displayName,
    username: account.username,
    is_active: account.isActive,
    status: account.status,
  },
  meta: row.meta ?? {},
  platform_post_id: row.platformPostId,
  ...presentRowTexts(ctx ?? { config: { MEDIA_URL: "" }, origin: "" }, row, itemMedia),
});

export function presentPost(ctx: { config: Pick<Config, "MEDIA_URL">; origin: string }, input: PresentPostInput) {
  const { post } = input;
  return {
    id: post.id,
    content: post.content,
    media: input.media.map((m) => presentMedia(ctx.config, ctx.origin, m)),
    status: post.status,
    scheduled_at: formatYmdHis(post.scheduledAt),
    published_at: formatYmdHis(post.publishedAt),
    queue_id: post.queueId,
    repeat: presentRepeat(post.repeat as StoredRepeat | null),
    repeat_of: post.repeatOf,
    platforms: input.platforms.map((p) => presentPostPlatform(p.row, p.account, ctx, p.itemMedia)),
    labels: input.labels.map(presentLabel),
    created_at: formatYmdHis(post.createdAt),
    updated_at: formatYmdHis(post.updatedAt),
  };
}

export type PostResource = ReturnType<typeof presentPost>;
export type PostPlatformResource = ReturnType<typeof presentPostPlatform>;
export type MediaResource = ReturnType<typeof presentMedia>;
