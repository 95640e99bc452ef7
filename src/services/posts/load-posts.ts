import { and, eq, sql } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { eqFilterOnly, inJsonArray } from "../../db/json-params";
import { posts } from "../../db/schema";
import { notFound } from "../../lib/errors";
import { type PostResource, presentPost } from "../../presenters/post";
import {
  accountJson,
  decodePostParts,
  labelJson,
  mediaJson,
  platformJson,
  postJson,
  type RawPostParts,
} from "./post-rows";
import { rememberRendered } from "./rendered-posts";

/**
 * Issue 20: the media a row's thread items name, as a third element of each platform entry (empty without a thread,
 * at no cost). `json(...)` keeps the JSON subtype across the subquery boundary.
 */
const THREAD_MEDIA_SQL = `CASE WHEN pp.thread IS NULL THEN json_array() ELSE json((SELECT json_group_array(${mediaJson.sql})
      FROM media m WHERE m.id IN (SELECT tm.value FROM json_each(pp.thread) ti, json_each(ti.value, '$.media') tm))) END`;

/**
 * The SELECT list of one whole Post resource for the `posts` row in scope (`presentPostRow` turns a row into the
 * resource): its `id` and `revision`, the post itself, its platforms (each `[row, account]`) in position order, its
 * media in position order and its labels by name — each a JSON text of positional rows (src/db/json-rows.ts). Children come from correlated subqueries, so a statement returning N
 * posts is one statement whatever they hold. The four parts stay separate columns: nesting them into one JSON value
 * would make SQLite re-parse every child array (`json(...)` across the subquery boundary), which measured ≈ 20 %
 * slower in the local D1 simulator (bench/RESULTS.md). Every value stays one post long, far below D1's 2 MB limit.
 */
const PLATFORMS_SQL = `(SELECT json_group_array(json_array(${platformJson.sql}, ${accountJson.sql}, ${THREAD_MEDIA_SQL}) ORDER BY pp.position, pp.created_at)
    FROM post_platforms pp JOIN social_accounts sa ON sa.id = pp.social_account_id WHERE pp.post_id = posts.id)`;
const MEDIA_SQL = `(SELECT json_group_array(${mediaJson.sql} ORDER BY pm.position)
    FROM post_media pm JOIN media m ON m.id = pm.media_id WHERE pm.post_id = posts.id)`;
const LABELS_SQL = `(SELECT json_group_array(${labelJson.sql} ORDER BY l.name, l.created_at)
    FROM post_labels pl JOIN labels l ON l.id = pl.label_id WHERE pl.post_id = posts.id)`;

export const POST_RESOURCE_COLUMNS = sql.raw(`posts.id AS id, posts.revision AS revision,
  ${postJson.sql} AS post,
  ${PLATFORMS_SQL} AS platforms,
  ${MEDIA_SQL} AS media,
  ${LABELS_SQL} AS labels`);

/**
 * One post's resource row as a query builder, so a write batch can end with it (the media attach verbs: the answer
 * comes back in the write's own round trip, issue 28). Same columns as `POST_RESOURCE_COLUMNS`.
 */
export function postResourceQuery(ctx: WorkspaceContext, postId: string) {
  return ctx.db
    .select({
      id: posts.id,
      revision: posts.revision,
      post: sql<string>`${sql.raw(postJson.sql)}`,
      platforms: sql<string>`${sql.raw(PLATFORMS_SQL)}`,
      media: sql<string>`${sql.raw(MEDIA_SQL)}`,
      labels: sql<string>`${sql.raw(LABELS_SQL)}`,
    })
    .from(posts)
    .where(and(eq(posts.id, postId), eq(posts.workspaceId, ctx.workspaceId)));
}

/** The resource of `postResourceQuery`'s answer; 404 when the post is gone. */
export function presentPostQueryResult(
  ctx: WorkspaceContext,
  rows: (PostResourceRow & { id: string })[],
): PostResource {
  const first = rows[0];
  if (!first) throw notFound();
  return presentPostRow(ctx, first);
}

/** A row selected with `POST_RESOURCE_COLUMNS`; `id` is null where a LEFT JOIN found no post. */
export interface PostResourceRow {
  id: string | null;
  revision: number;
  post: string;
  platforms: string;
  media: string;
  labels: string;
}

/** The resource of one row selected with `POST_RESOURCE_COLUMNS`, remembered for reads that follow (rendered-posts.ts). */
export function presentPostRow(ctx: WorkspaceContext, row: PostResourceRow & { id: string }): PostResource {
  const parts = [row.post, row.platforms, row.media, row.labels].map((part) => JSON.parse(part)) as RawPostParts;
  const resource = presentPost(ctx, decodePostParts(parts));
  rememberRendered(ctx, row.id, row.revision, resource);
  return resource;
}

/**
 * Full Post resources of this workspace's posts, in the order of `postIds`; ids that are absent or in another
 * workspace are left out. One D1 statement however many posts, platforms, media and labels: the ids are one bound
 * JSON array (src/db/json-params.ts). Callers ask for at most a page (15) at a time.
 */
export async function loadPostResources(ctx: WorkspaceContext, postIds: string[]): Promise<PostResource[]> {
  const unique = [...new Set(postIds)];
  const found = new Map<string, PostResource>();
  const rows = await ctx.db.all<PostResourceRow & { id: string }>(
    sql`SELECT ${POST_RESOURCE_COLUMNS} FROM posts WHERE ${and(inJsonArray(posts.id, unique), eqFilterOnly(posts.workspaceId, ctx.workspaceId))}`,
  );
  for (const row of rows) {
    const post = presentPostRow(ctx, row);
    found.set(post.id, post);
  }
  return unique.flatMap((id) => {
    const resource = found.get(id);
    return resource ? [resource] : [];
  });
}
