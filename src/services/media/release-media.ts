import { and, eq, notExists, sql } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { inJsonArray } from "../../db/json-params";
import { media, postMedia, postThreadMedia } from "../../db/schema";
import { deleteVariants } from "../../media/variants";

/**
 * After media were detached (post deleted, media list replaced), deletes the media rows that nothing references
 * any more and their R2 objects. A media row stays while a post links it (or a thread item names it) or while it is a workspace upload asset
 * (it carries an upload_token); an R2 object stays while any media row still points at its path.
 */
export async function releaseUnreferencedMedia(ctx: ServiceContext, mediaIds: string[]): Promise<void> {
  if (mediaIds.length === 0) return;
  const orphans = await releaseOrphansStatement(ctx, mediaIds);
  const paths = [...new Set(orphans.map((o) => o.path))];
  if (paths.length === 0) return;
  const stillUsed = await stillUsedPathsStatement(ctx, paths);
  await deleteReleasedObjects(ctx, paths, stillUsed);
}

/**
 * The statement that deletes the media rows of `mediaIds` nothing references any more, returning their paths: for a
 * caller that runs it in its own write batch (deletePost), after the statements that detached them.
 */
export function releaseOrphansStatement(ctx: ServiceContext, mediaIds: string[]) {
  return ctx.db
    .delete(media)
    .where(
      and(
        inJsonArray(media.id, mediaIds),
        // A filter, not an index walk: SQLite would otherwise use the upload-token index for IS NULL and read every
        // media row of every workspace that has none (test/db/reads-by-key.test.ts).
        sql`+${media.uploadToken} IS NULL`,
        notExists(ctx.db.select({ one: postMedia.mediaId }).from(postMedia).where(eq(postMedia.mediaId, media.id))),
        // Issue 20: media a thread item names stay too (docs/threads.md): post_thread_media, kept by triggers
        // (migration 0021), answers by index whatever the workspace holds.
        notExists(
          ctx.db
            .select({ one: postThreadMedia.mediaId })
            .from(postThreadMedia)
            .where(eq(postThreadMedia.mediaId, media.id)),
        ),
      ),
    )
    .returning({ path: media.path });
}

/** Which of `paths` a media row still points at (run after `releaseOrphansStatement`, in the same batch or after). */
export function stillUsedPathsStatement(ctx: ServiceContext, paths: string[]) {
  return ctx.db.select({ path: media.path }).from(media).where(inJsonArray(media.path, paths));
}

/** Deletes from R2 the released paths no media row points at any more, with their fitted variants. */
export async function deleteReleasedObjects(
  ctx: ServiceContext,
  released: string[],
  stillUsed: { path: string }[],
): Promise<void> {
  const used = new Set(stillUsed.map((r) => r.path));
  const toDelete = [...new Set(released)].filter((p) => !used.has(p));
  if (toDelete.length > 0) {
    await ctx.env.MEDIA_BUCKET.delete(toDelete);
    // Their fitted variants go with them (issue 16, src/media/variants.ts).
    await deleteVariants(ctx.env.MEDIA_BUCKET, toDelete);
  }
}
