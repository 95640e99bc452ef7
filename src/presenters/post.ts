import type { Config } from "../config";
import type { labels, media, postPlatforms, posts, socialAccounts } from "../db/schema";
import { mediaPublicUrl } from "../lib/media-url";
import { formatYmdHis } from "../lib/time";
import { presentLabel } from "./resources";

/** Wire shape of a Post (api.md "Post", "PostPlatform", "Media"; decisions §6, §8). */

/** The columns each part of a Post resource shows; the loader selects exactly these (src/services/posts/load-posts.ts). */
export const POST_FIELDS = ["id", "content", "status", "scheduledAt", "publishedAt", "createdAt", "updatedAt"] as const;
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
] as const;
export const LABEL_FIELDS = ["id", "name", "color", "createdAt", "updatedAt"] as const;

type PostRow = Pick<typeof posts.$inferSelect, (typeof POST_FIELDS)[number]>;
type PostPlatformRow = Pick<typeof postPlatforms.$inferSelect, (typeof POST_PLATFORM_FIELDS)[number]>;
type AccountRow = Pick<typeof socialAccounts.$inferSelect, (typeof ACCOUNT_FIELDS)[number]>;
type MediaRow = Pick<typeof media.$inferSelect, (typeof MEDIA_FIELDS)[number]>;
type LabelRow = Pick<typeof labels.$inferSelect, (typeof LABEL_FIELDS)[number]>;

export interface PresentPostInput {
  post: PostRow;
  platforms: { row: PostPlatformRow; account: AccountRow }[];
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
});

export const presentPostPlatform = (row: PostPlatformRow, account: AccountRow) => ({
  id: row.id,
  platform: row.platform,
  content_type: row.contentType,
  status: row.status,
  enabled: row.enabled,
  platform_url: row.platformUrl,
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
    platforms: input.platforms.map((p) => presentPostPlatform(p.row, p.account)),
    labels: input.labels.map(presentLabel),
    created_at: formatYmdHis(post.createdAt),
    updated_at: formatYmdHis(post.updatedAt),
  };
}

export type PostResource = ReturnType<typeof presentPost>;
export type PostPlatformResource = ReturnType<typeof presentPostPlatform>;
export type MediaResource = ReturnType<typeof presentMedia>;
