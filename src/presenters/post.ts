import type { Config } from "../config";
import type { labels, media, postPlatforms, posts, socialAccounts } from "../db/schema";
import { mediaPublicUrl } from "../lib/media-url";
import { formatYmdHis } from "../lib/time";
import { presentLabel } from "./resources";

/** Wire shape of a Post (api.md "Post", "PostPlatform", "Media"; decisions §6, §8). */
type PostRow = typeof posts.$inferSelect;
type PostPlatformRow = typeof postPlatforms.$inferSelect;
type AccountRow = Pick<
  typeof socialAccounts.$inferSelect,
  "id" | "platform" | "displayName" | "username" | "isActive" | "status"
>;
type MediaRow = typeof media.$inferSelect;
type LabelRow = typeof labels.$inferSelect;

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
