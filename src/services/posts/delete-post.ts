import { and, eq, ne, sql } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { media, postMedia, posts } from "../../db/schema";
import { conflict, notFound } from "../../lib/errors";
import { deleteReleasedObjects, releaseOrphansStatement, stillUsedPathsStatement } from "../media/release-media";

export const DELETE_WHILE_PUBLISHING = "The post is being published and cannot be deleted.";

/**
 * Deletes a post with its platform rows, media links and label links (foreign keys cascade). Nothing is deleted on
 * the networks. 409 while publishing: the delete is conditional, so it cannot race the publish claim.
 * Media no other post uses are released (rows, then their R2 objects).
 *
 * Round trips (issue 28): one read (the post's status, and the media it links or its thread items name) and one write
 * batch (the conditional delete, the release of the media it left unreferenced, and which of their paths are still
 * used). A post that turned `publishing` or went away between the two costs one more read, to say which.
 */
export async function deletePost(ctx: WorkspaceContext, postId: string): Promise<void> {
  const [found, attached] = await ctx.db.batch([
    ctx.db
      .select({ status: posts.status })
      .from(posts)
      .where(and(eq(posts.id, postId), eq(posts.workspaceId, ctx.workspaceId))),
    ctx.db
      .select({ id: media.id, path: media.path })
      .from(media)
      .where(
        sql`${media.id} IN (SELECT ${postMedia.mediaId} FROM ${postMedia} WHERE ${postMedia.postId} = ${postId}
          UNION SELECT tm.value FROM post_platforms pp, json_each(pp.thread) ti, json_each(ti.value, '$.media') tm
          WHERE pp.post_id = ${postId} AND pp.thread IS NOT NULL)`,
      ),
  ]);
  const status = found[0]?.status;
  if (status === undefined) throw notFound();
  if (status === "publishing") throw conflict(DELETE_WHILE_PUBLISHING);
  const ids = attached.map((m) => m.id);
  const paths = [...new Set(attached.map((m) => m.path))];
  const remove = ctx.db
    .delete(posts)
    .where(and(eq(posts.id, postId), eq(posts.workspaceId, ctx.workspaceId), ne(posts.status, "publishing")))
    .returning({ id: posts.id });
  if (ids.length === 0) {
    if ((await remove).length === 0) await explainNotDeleted(ctx, postId);
    return;
  }
  const [deleted, orphans, stillUsed] = await ctx.db.batch([
    remove,
    releaseOrphansStatement(ctx, ids),
    stillUsedPathsStatement(ctx, paths),
  ]);
  // Rows released even when the post stayed are media nothing referenced anyway; their objects go the same way.
  await deleteReleasedObjects(
    ctx,
    orphans.map((o) => o.path),
    stillUsed,
  );
  if (deleted.length === 0) await explainNotDeleted(ctx, postId);
}

/** The conditional delete removed nothing: the post turned `publishing` (409) or is gone (404) since the read. */
async function explainNotDeleted(ctx: WorkspaceContext, postId: string): Promise<never> {
  const row = await ctx.db
    .select({ status: posts.status })
    .from(posts)
    .where(and(eq(posts.id, postId), eq(posts.workspaceId, ctx.workspaceId)))
    .get();
  if (row?.status === "publishing") throw conflict(DELETE_WHILE_PUBLISHING);
  throw notFound();
}
