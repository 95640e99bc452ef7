import { and, eq, ne, sql } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { postMedia, posts } from "../../db/schema";
import { conflict, notFound } from "../../lib/errors";
import { releaseUnreferencedMedia } from "../media/release-media";

export const DELETE_WHILE_PUBLISHING = "The post is being published and cannot be deleted.";

/**
 * Deletes a post with its platform rows, media links and label links (foreign keys cascade). Nothing is deleted on
 * the networks. 409 while publishing: the delete is conditional, so it cannot race the publish claim.
 * Media no other post uses are released afterwards.
 */
export async function deletePost(ctx: WorkspaceContext, postId: string): Promise<void> {
  // The post's media and (issue 20) those its thread items name: one read.
  const attached = await ctx.db.all<{ id: string }>(
    sql`SELECT ${postMedia.mediaId} AS id FROM ${postMedia} WHERE ${postMedia.postId} = ${postId}
      UNION SELECT tm.value AS id FROM post_platforms pp, json_each(pp.thread) ti, json_each(ti.value, '$.media') tm
      WHERE pp.post_id = ${postId} AND pp.thread IS NOT NULL`,
  );
  const deleted = await ctx.db
    .delete(posts)
    .where(and(eq(posts.id, postId), eq(posts.workspaceId, ctx.workspaceId), ne(posts.status, "publishing")))
    .returning({ id: posts.id });
  if (deleted.length === 0) {
    const row = await ctx.db
      .select({ status: posts.status })
      .from(posts)
      .where(and(eq(posts.id, postId), eq(posts.workspaceId, ctx.workspaceId)))
      .get();
    if (row?.status === "publishing") throw conflict(DELETE_WHILE_PUBLISHING);
    throw notFound();
  }
  await releaseUnreferencedMedia(
    ctx,
    attached.map((m) => m.id),
  );
}
