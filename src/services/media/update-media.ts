import { and, eq } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { media } from "../../db/schema";
import { AppError } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { presentMedia } from "../../presenters/post";
import { normalizeAlt } from "./upload-post-media";

export const MEDIA_NOT_FOUND = "Media not found.";

/**
 * Issue 29: `PATCH /api/media/{media}` (MCP `update-media-tool`): sets or clears a media item's alt text — on every
 * post that shows it (the post revision triggers follow `media.alt`, migrations/0015_media_alt_text.sql). A blank or
 * null `alt` removes it; more than MEDIA_ALT_MAX characters is a 422 `errors.alt`.
 */
export async function updateMediaAlt(ctx: WorkspaceContext, mediaId: string, input: { alt: string | null }) {
  if (!isUuid(mediaId)) throw new AppError("not_found", MEDIA_NOT_FOUND);
  const alt = normalizeAlt(input.alt);
  const row = await ctx.db
    .update(media)
    .set({ alt })
    .where(and(eq(media.id, mediaId), eq(media.workspaceId, ctx.workspaceId)))
    .returning()
    .get();
  if (!row) throw new AppError("not_found", MEDIA_NOT_FOUND);
  return presentMedia(ctx.config, ctx.origin, row);
}

/** Sets the alt text of several of this workspace's media at once (from-URL `alts`, the attach tool). */
export async function setMediaAlt(ctx: WorkspaceContext, mediaId: string, alt: string | null): Promise<void> {
  await ctx.db
    .update(media)
    .set({ alt: normalizeAlt(alt) })
    .where(and(eq(media.id, mediaId), eq(media.workspaceId, ctx.workspaceId)));
}
