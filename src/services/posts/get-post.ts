import { and, eq } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { posts } from "../../db/schema";
import { notFound } from "../../lib/errors";
import type { PostResource } from "../../presenters/post";
import { loadPostResources } from "./load-posts";

export { loadPostResources } from "./load-posts";

/** One Post of this workspace with platforms, media and labels (one D1 round trip); 404 when absent or elsewhere. */
export async function getPost(ctx: WorkspaceContext, postId: string): Promise<PostResource> {
  const [post] = await loadPostResources(ctx, [postId]);
  if (!post) throw notFound();
  return post;
}

/** The bare post row of this workspace, or 404. */
export async function findPostRow(ctx: WorkspaceContext, postId: string) {
  const row = await ctx.db
    .select()
    .from(posts)
    .where(and(eq(posts.id, postId), eq(posts.workspaceId, ctx.workspaceId)))
    .get();
  if (!row) throw notFound();
  return row;
}
