import type { WorkspaceContext } from "../../context";
import { notFound } from "../../lib/errors";
import type { PostResource } from "../../presenters/post";
import { copyPostStatements, readCopySource } from "./copy-post";
import { postResourceQuery, presentPostQueryResult } from "./load-posts";

/**
 * Issue 40: `POST /api/posts/{post}/duplicate` — a new draft with the post's content, targets (each row's network,
 * content type, meta, own text, thread and first comment), media and labels; no time, no queue, no repeat rule, and
 * rows that start over (pending, nothing on the network). Any post of the workspace can be duplicated, a published
 * one included (the usual way to post something again). One write batch, answered from its own last statement.
 */
export async function duplicatePost(ctx: WorkspaceContext, postId: string): Promise<PostResource> {
  const source = await readCopySource(ctx.db, postId);
  // Another workspace's post is "not found", as every post route answers it.
  if (!source || source.post.workspaceId !== ctx.workspaceId) throw notFound();
  const copy = copyPostStatements(ctx.db, source, {
    status: "draft",
    content: source.post.content,
    scheduledAt: null,
    queueId: null,
    repeat: null,
    repeatOf: null,
    repeatIndex: 0,
    now: ctx.now(),
  });
  const [first, ...rest] = copy.statements;
  const results = await ctx.db.batch([first!, ...rest, postResourceQuery(ctx, copy.id)]);
  return presentPostQueryResult(ctx, results[results.length - 1] as Parameters<typeof presentPostQueryResult>[1]);
}
