import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { jsonRow } from "../../db/json-rows";
import { labels, media, postPlatforms, posts, socialAccounts } from "../../db/schema";
import {
  ACCOUNT_FIELDS,
  LABEL_FIELDS,
  MEDIA_FIELDS,
  POST_FIELDS,
  POST_PLATFORM_FIELDS,
  type PostResource,
  type PresentPostInput,
  presentPost,
} from "../../presenters/post";

/** D1 binds at most 100 parameters per statement. */
const IDS_PER_STATEMENT = 90;

// Only the columns the resource shows: every column returned costs D1 time.
const postJson = jsonRow(posts, "posts", POST_FIELDS);
const platformJson = jsonRow(postPlatforms, "pp", POST_PLATFORM_FIELDS);
const accountJson = jsonRow(socialAccounts, "sa", ACCOUNT_FIELDS);
const mediaJson = jsonRow(media, "m", MEDIA_FIELDS);
const labelJson = jsonRow(labels, "l", LABEL_FIELDS);

/**
 * One whole Post resource of the `posts` row in scope, as a JSON text `[post, platforms, media, labels]`: the post,
 * its platforms (each `[row, account]`) in position order, its media in position order, and its labels by name — all
 * rows positional (src/db/json-rows.ts). Children are nested by correlated subqueries, so a statement returning N
 * posts is one statement whatever they hold. `json(...)` keeps each child array JSON after the subquery boundary
 * (SQLite drops the JSON subtype there). One row per post keeps each value far below D1's 2 MB per-value limit
 * (content ≤ 10 000 characters, bodies ≤ 1 MiB).
 */
const POST_RESOURCE = sql.raw(`json_array(
  ${postJson.sql},
  json((SELECT json_group_array(json_array(${platformJson.sql}, ${accountJson.sql}) ORDER BY pp.position, pp.created_at)
    FROM post_platforms pp JOIN social_accounts sa ON sa.id = pp.social_account_id WHERE pp.post_id = posts.id)),
  json((SELECT json_group_array(${mediaJson.sql} ORDER BY pm.position)
    FROM post_media pm JOIN media m ON m.id = pm.media_id WHERE pm.post_id = posts.id)),
  json((SELECT json_group_array(${labelJson.sql} ORDER BY l.name, l.created_at)
    FROM post_labels pl JOIN labels l ON l.id = pl.label_id WHERE pl.post_id = posts.id))
)`);

type RawRow = unknown[];
type RawResource = [RawRow, [RawRow, RawRow][], RawRow[], RawRow[]];

/** The SELECT expression (over a `posts` row in scope) whose value `presentPostJson` turns into a Post resource. */
export const postResourceColumn = (): SQL => POST_RESOURCE;

export function presentPostJson(ctx: WorkspaceContext, json: string): PostResource {
  const [post, platforms, mediaRows, labelRows] = JSON.parse(json) as RawResource;
  const input: PresentPostInput = {
    post: postJson.decode(post),
    platforms: platforms.map(([row, account]) => ({
      row: platformJson.decode(row),
      account: accountJson.decode(account),
    })),
    media: mediaRows.map(mediaJson.decode),
    labels: labelRows.map(labelJson.decode),
  };
  return presentPost(ctx, input);
}

/**
 * Full Post resources of this workspace's posts, in the order of `postIds`; ids that are absent or in another
 * workspace are left out. One D1 statement per 90 posts, however many platforms, media and labels they have.
 */
export async function loadPostResources(ctx: WorkspaceContext, postIds: string[]): Promise<PostResource[]> {
  const unique = [...new Set(postIds)];
  const found = new Map<string, PostResource>();
  for (let i = 0; i < unique.length; i += IDS_PER_STATEMENT) {
    const ids = unique.slice(i, i + IDS_PER_STATEMENT);
    const rows = await ctx.db.all<{ resource: string }>(
      sql`SELECT ${POST_RESOURCE} AS resource FROM posts WHERE ${and(inArray(posts.id, ids), eq(posts.workspaceId, ctx.workspaceId))}`,
    );
    for (const { resource } of rows) {
      const post = presentPostJson(ctx, resource);
      found.set(post.id, post);
    }
  }
  return unique.flatMap((id) => {
    const resource = found.get(id);
    return resource ? [resource] : [];
  });
}
