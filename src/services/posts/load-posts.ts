import { and, eq, inArray, sql } from "drizzle-orm";
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
import { type KnownPosts, knownPosts, rememberRendered, revisionToken } from "./rendered-posts";

/** D1 binds at most 100 parameters per statement. */
const IDS_PER_STATEMENT = 90;

// Only the columns the resource shows: every column returned costs D1 time.
const postJson = jsonRow(posts, "posts", POST_FIELDS);
const platformJson = jsonRow(postPlatforms, "pp", POST_PLATFORM_FIELDS);
const accountJson = jsonRow(socialAccounts, "sa", ACCOUNT_FIELDS);
const mediaJson = jsonRow(media, "m", MEDIA_FIELDS);
const labelJson = jsonRow(labels, "l", LABEL_FIELDS);

/** `expr`, or NULL when the statement's `known` tokens name this post at its current revision (rendered-posts.ts). */
const unlessKnown = (expr: string) =>
  `CASE WHEN instr(known.tokens, ',' || posts.id || ':' || posts.revision || ',') > 0 THEN NULL ELSE ${expr} END`;

/**
 * The SELECT list of one whole Post resource for the `posts` row in scope (`presentPostRows` turns rows into
 * resources): its `id` and `revision`, the post itself, its platforms (each `[row, account]`) in position order, its
 * media in position order and its labels by name — each a JSON text of positional rows (src/db/json-rows.ts). Children
 * come from correlated subqueries, so a statement returning N posts is one statement whatever they hold. The four
 * parts stay separate columns: nesting them into one JSON value would make SQLite re-parse every child array
 * (`json(...)` across the subquery boundary), which measured ≈ 20 % slower in the local D1 simulator
 * (bench/RESULTS.md). Every value stays one post long, far below D1's 2 MB limit.
 *
 * The statement must also have a one-row `known` in scope (`knownSource`): posts it names at their current revision
 * come back with the four parts NULL, because the Worker already holds their resources.
 */
export const POST_RESOURCE_COLUMNS = sql.raw(`posts.id AS id, posts.revision AS revision,
  ${unlessKnown(postJson.sql)} AS post,
  ${unlessKnown(`(SELECT json_group_array(json_array(${platformJson.sql}, ${accountJson.sql}) ORDER BY pp.position, pp.created_at)
    FROM post_platforms pp JOIN social_accounts sa ON sa.id = pp.social_account_id WHERE pp.post_id = posts.id)`)} AS platforms,
  ${unlessKnown(`(SELECT json_group_array(${mediaJson.sql} ORDER BY pm.position)
    FROM post_media pm JOIN media m ON m.id = pm.media_id WHERE pm.post_id = posts.id)`)} AS media,
  ${unlessKnown(`(SELECT json_group_array(${labelJson.sql} ORDER BY l.name, l.created_at)
    FROM post_labels pl JOIN labels l ON l.id = pl.label_id WHERE pl.post_id = posts.id)`)} AS labels`);

/** The one-row `known` source `POST_RESOURCE_COLUMNS` reads: the `id:revision` tokens the Worker holds. */
export const knownSource = (known: KnownPosts) => sql`(SELECT ${known.tokens} AS tokens) known`;

/** A row selected with `POST_RESOURCE_COLUMNS`; `id` is null where a LEFT JOIN found no post. */
export interface PostResourceRow {
  id: string | null;
  revision: number;
  /** The four parts are null when the post was named in `known` at this revision. */
  post: string | null;
  platforms: string | null;
  media: string | null;
  labels: string | null;
}

type RawRow = unknown[];

function renderPostRow(ctx: WorkspaceContext, row: PostResourceRow): PostResource {
  const input: PresentPostInput = {
    post: postJson.decode(JSON.parse(row.post as string) as RawRow),
    platforms: (JSON.parse(row.platforms as string) as [RawRow, RawRow][]).map(([platform, account]) => ({
      row: platformJson.decode(platform),
      account: accountJson.decode(account),
    })),
    media: (JSON.parse(row.media as string) as RawRow[]).map(mediaJson.decode),
    labels: (JSON.parse(row.labels as string) as RawRow[]).map(labelJson.decode),
  };
  return presentPost(ctx, input);
}

/**
 * The resources of rows selected with `POST_RESOURCE_COLUMNS` (rows without a post are skipped): the snapshot's
 * resource where the statement left a post out, a fresh rendering — remembered for the next read — otherwise.
 */
export function presentPostRows(ctx: WorkspaceContext, rows: PostResourceRow[], known: KnownPosts): PostResource[] {
  const resources: PostResource[] = [];
  for (const row of rows) {
    if (row.id === null) continue;
    if (row.post === null) {
      const held = known.resources.get(revisionToken(row.id, row.revision));
      // The statement only leaves out posts whose token it was given, and every given token is in the snapshot.
      if (!held) throw new Error(`post ${row.id} came back unrendered at a revision this request does not hold`);
      resources.push(held);
      continue;
    }
    const resource = renderPostRow(ctx, row);
    rememberRendered(ctx, row.id, row.revision, resource);
    resources.push(resource);
  }
  return resources;
}

/**
 * Full Post resources of this workspace's posts, in the order of `postIds`; ids that are absent or in another
 * workspace are left out. One D1 statement per 90 posts, however many platforms, media and labels they have; posts
 * this isolate rendered at their current revision are not rendered again (rendered-posts.ts).
 */
export async function loadPostResources(ctx: WorkspaceContext, postIds: string[]): Promise<PostResource[]> {
  const unique = [...new Set(postIds)];
  const found = new Map<string, PostResource>();
  for (let i = 0; i < unique.length; i += IDS_PER_STATEMENT) {
    const ids = unique.slice(i, i + IDS_PER_STATEMENT);
    const known = knownPosts(ctx, ids);
    const rows = await ctx.db.all<PostResourceRow>(
      sql`SELECT ${POST_RESOURCE_COLUMNS} FROM ${knownSource(known)} CROSS JOIN posts
        WHERE ${and(inArray(posts.id, ids), eq(posts.workspaceId, ctx.workspaceId))}`,
    );
    for (const post of presentPostRows(ctx, rows, known)) found.set(post.id, post);
  }
  return unique.flatMap((id) => {
    const resource = found.get(id);
    return resource ? [resource] : [];
  });
}
