import { and, eq, ne } from "drizzle-orm";
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
  const attached = await ctx.db.select({ id: postMedia.mediaId }).from(postMedia).where(eq(postMedia.postId, postId));
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
