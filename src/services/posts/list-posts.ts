import { and, eq, exists, type SQL, sql } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { type PostStatus, postLabels, posts } from "../../db/schema";
import type { PostResource } from "../../presenters/post";
import { knownSource, POST_RESOURCE_COLUMNS, type PostResourceRow, presentPostRows } from "./load-posts";
import { knownPosts, lastPageIds, rememberPage } from "./rendered-posts";

export const POSTS_PER_PAGE = 15;

export interface ListPostsInput {
  page: number;
  status?: PostStatus;
  label_id?: string;
}

interface PageLink {
  url: string | null;
  label: string;
  page: number | null;
  active: boolean;
}

export interface PostPage {
  data: PostResource[];
  links: { first: string; last: string; prev: string | null; next: string | null };
  meta: {
    current_page: number;
    from: number | null;
    last_page: number;
    links: PageLink[];
    path: string;
    per_page: number;
    to: number | null;
    total: number;
  };
}

/**
 * One page of posts, `scheduled_at` desc then `created_at` desc, in Laravel's paginator shape (decisions §6).
 * One D1 statement per page whatever the posts hold: count, page rows, and their platforms, media and labels (left
 * out for the posts this isolate already holds rendered at their current revision).
 * Page links keep the filters (`?status=draft&page=2`), like Laravel's `withQueryString()`.
 */
export async function listPosts(ctx: WorkspaceContext, input: ListPostsInput): Promise<PostPage> {
  const page = input.page;
  const filters: SQL[] = [eq(posts.workspaceId, ctx.workspaceId)];
  if (input.status) filters.push(eq(posts.status, input.status));
  if (input.label_id) {
    const labelId = input.label_id;
    filters.push(
      exists(
        ctx.db
          .select({ one: sql`1` })
          .from(postLabels)
          .where(and(eq(postLabels.postId, posts.id), eq(postLabels.labelId, labelId))),
      ),
    );
  }
  const where = and(...filters);
  // The posts this page showed last time in this isolate, if it still holds them rendered: SQLite leaves those out
  // unless they changed since (rendered-posts.ts).
  const pageKey = [ctx.workspaceId, input.status ?? "", input.label_id ?? "", page].join("|");
  const known = knownPosts(ctx, lastPageIds(pageKey));
  // One statement: the count, joined with the page's ids (sorted and limited before any JSON is built), each
  // expanded to its whole resource. An empty page still returns the count row (id null).
  const rows = await ctx.db.all<PostResourceRow & { total: number }>(sql`
    SELECT c.total AS total, ${POST_RESOURCE_COLUMNS}
    FROM (SELECT count(*) AS total FROM posts WHERE ${where}) c
    CROSS JOIN ${knownSource(known)}
    LEFT JOIN (
      SELECT posts.id AS id, posts.scheduled_at AS scheduled_at, posts.created_at AS created_at, posts.rowid AS rid
      FROM posts WHERE ${where}
      ORDER BY posts.scheduled_at DESC, posts.created_at DESC, posts.rowid DESC
      LIMIT ${POSTS_PER_PAGE} OFFSET ${(page - 1) * POSTS_PER_PAGE}
    ) page ON 1
    LEFT JOIN posts ON posts.id = page.id
    ORDER BY page.scheduled_at DESC, page.created_at DESC, page.rid DESC`);
  const total = rows[0]?.total ?? 0;
  const data = presentPostRows(ctx, rows, known);
  rememberPage(
    pageKey,
    data.map((post) => post.id),
  );

  const path = `${ctx.origin}/api/posts`;
  const query = new URLSearchParams();
  if (input.status) query.set("status", input.status);
  if (input.label_id) query.set("label_id", input.label_id);
  const url = (n: number) => {
    const q = new URLSearchParams(query);
    q.set("page", String(n));
    return `${path}?${q.toString()}`;
  };
  const lastPage = Math.max(1, Math.ceil(total / POSTS_PER_PAGE));
  const prev = page > 1 ? url(page - 1) : null;
  const next = page < lastPage ? url(page + 1) : null;
  const from = data.length ? (page - 1) * POSTS_PER_PAGE + 1 : null;
  const links: PageLink[] = [
    { url: prev, label: "&laquo; Previous", page: page > 1 ? page - 1 : null, active: false },
    ...Array.from({ length: lastPage }, (_, i) => ({
      url: url(i + 1),
      label: String(i + 1),
      page: i + 1,
      active: i + 1 === page,
    })),
    { url: next, label: "Next &raquo;", page: next ? page + 1 : null, active: false },
  ];
  return {
    data,
    links: { first: url(1), last: url(lastPage), prev, next },
    meta: {
      current_page: page,
      from,
      last_page: lastPage,
      links,
      path,
      per_page: POSTS_PER_PAGE,
      to: from === null ? null : from + data.length - 1,
      total,
    },
  };
}
