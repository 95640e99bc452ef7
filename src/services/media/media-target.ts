import { and, eq } from "drizzle-orm";
import type { AccountMediaLimits } from "../../catalog/media-specs";
import { CONTENT_TYPES, contentTypeSpec, type MediaKind } from "../../catalog/platforms";
import { accountTextLimits } from "../../catalog/rules";
import type { Config } from "../../config";
import type { WorkspaceContext } from "../../context";
import { postPlatforms, posts, socialAccounts } from "../../db/schema";
import { type AppError, conflict, notFound, validationError } from "../../lib/errors";
import type { IngestLimits } from "../../media/ingest";
import { PUBLISHED_MESSAGE, PUBLISHING_MESSAGE } from "../posts/update-post";

const ALL_KINDS: readonly MediaKind[] = ["image", "video"];

/**
 * Kinds a post accepts (decisions §8): the intersection, over its enabled rows, of their content types' media
 * kinds; every kind when no row is enabled.
 */
export function acceptedKinds(contentTypes: readonly string[]): Set<MediaKind> {
  const accept = new Set<MediaKind>(ALL_KINDS);
  for (const ct of contentTypes) {
    const kinds = (CONTENT_TYPES as readonly string[]).includes(ct) ? contentTypeSpec(ct).allowed_media_types : [];
    for (const k of ALL_KINDS) if (!kinds.includes(k)) accept.delete(k);
  }
  return accept;
}

export interface MediaTarget {
  postId: string;
  accept: Set<MediaKind>;
  /**
   * The enabled rows, whose networks' per-file media rules a new file must meet (issue 16), each with the limits
   * its account's own server reports (a Mastodon instance's, as stored on the account), if any.
   */
  rows: { platform: string; contentType: string; limits?: AccountMediaLimits }[];
}

/**
 * The post of this workspace that media is being added to (404 otherwise) and the kinds it accepts. Like any
 * other edit (decisions §6), a published post refuses new media (422) and a publishing one answers 409.
 */
export async function mediaTarget(
  ctx: WorkspaceContext,
  postId: string,
  notFoundError: () => AppError = notFound,
): Promise<MediaTarget> {
  const [postRows, rows] = await ctx.db.batch([
    ctx.db
      .select({ id: posts.id, status: posts.status })
      .from(posts)
      .where(and(eq(posts.id, postId), eq(posts.workspaceId, ctx.workspaceId))),
    ctx.db
      .select({ platform: postPlatforms.platform, contentType: postPlatforms.contentType, meta: socialAccounts.meta })
      .from(postPlatforms)
      .innerJoin(posts, eq(posts.id, postPlatforms.postId))
      .leftJoin(socialAccounts, eq(socialAccounts.id, postPlatforms.socialAccountId))
      .where(
        and(eq(postPlatforms.postId, postId), eq(posts.workspaceId, ctx.workspaceId), eq(postPlatforms.enabled, true)),
      ),
  ]);
  const post = postRows[0];
  if (!post) throw notFoundError();
  if (post.status === "published") throw validationError({ media: [PUBLISHED_MESSAGE] });
  if (post.status === "publishing") throw conflict(PUBLISHING_MESSAGE);
  return {
    postId,
    accept: acceptedKinds(rows.map((r) => r.contentType)),
    rows: rows.map((r) => ({
      platform: r.platform,
      contentType: r.contentType,
      limits: accountTextLimits(r.platform, r.meta),
    })),
  };
}

export function ingestLimits(config: Config, accept: ReadonlySet<MediaKind>, maxBytes?: number): IngestLimits {
  return {
    imageMaxBytes: Math.min(config.MEDIA_IMAGE_MAX_BYTES, maxBytes ?? Number.POSITIVE_INFINITY),
    videoMaxBytes: Math.min(config.MEDIA_VIDEO_MAX_BYTES, maxBytes ?? Number.POSITIVE_INFINITY),
    maxPixels: config.MEDIA_MAX_IMAGE_PIXELS,
    maxFullDecodePixels: config.MEDIA_MAX_FULL_DECODE_PIXELS,
    accept,
  };
}
