import { and, eq, exists, gte, lt, type SQL, sql } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { type PostStatus, postLabels, postPlatforms, posts } from "../../db/schema";
import { parseUserDateTime } from "../../lib/time";
import type { PostResource } from "../../presenters/post";
import { loadPostResources, POST_RESOURCE_COLUMNS, type PostResourceRow, presentPostRow } from "./load-posts";
import { type HeldPost, heldPosts, lastPageIds, rememberPage } from "./rendered-posts";

export const POSTS_PER_PAGE = 15;

export interface ListPostsInput {
  page: number;
  status?: PostStatus;
  label_id?: string;
  /** Only posts with a row for this social account. */
  social_account_id?: string;
  /** `scheduled_at` window: at or after `scheduled_from`, before `scheduled_to` (dates the route has validated). */
  scheduled_from?: string;
  scheduled_to?: string;
}

/** The filters that change which posts a page holds, in the order the page links and the page key carry them. */
const FILTERS = ["status", "label_id", "social_account_id", "scheduled_from", "scheduled_to"] as const;

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

/** The page's rows, newest first; `rid` breaks ties in insertion order. Every page statement selects from it. */
const pageRows = (where: SQL | undefined, page: number) => sql`(
      SELECT posts.id AS id, posts.revision AS revision, posts.scheduled_at AS scheduled_at,
        posts.created_at AS created_at, posts.rowid AS rid
      FROM posts WHERE ${where}
      ORDER BY posts.scheduled_at DESC, posts.created_at DESC, posts.rowid DESC
      LIMIT ${POSTS_PER_PAGE} OFFSET ${(page - 1) * POSTS_PER_PAGE}
    ) page`;
const PAGE_ORDER = sql`ORDER BY page.scheduled_at DESC, page.created_at DESC, page.rid DESC`;
/** The one-row count every page statement starts from, so an empty page still answers its total. */
const countRow = (where: SQL | undefined) => sql`(SELECT count(*) AS total FROM posts WHERE ${where}) c`;

/** A row that found its post: on an empty page the LEFT JOINs leave only the count row, with `id` null. */
const hasPost = <R extends { id: string | null }>(row: R): row is R & { id: string } => row.id !== null;

interface PageRead {
  total: number;
  data: PostResource[];
}

/**
 * One statement: the count, joined with the page's ids (sorted and limited before any JSON is built), each expanded
 * to its whole resource. An empty page still returns the count row (id null).
 */
async function readPage(ctx: WorkspaceContext, where: SQL | undefined, page: number): Promise<PageRead> {
  const rows = await ctx.db.all<PostResourceRow & { total: number }>(sql`
    SELECT c.total AS total, ${POST_RESOURCE_COLUMNS}
    FROM ${countRow(where)}
    LEFT JOIN ${pageRows(where, page)} ON 1
    LEFT JOIN posts ON posts.id = page.id
    ${PAGE_ORDER}`);
  return {
    total: rows[0]?.total ?? 0,
    data: rows.filter(hasPost).map((row) => presentPostRow(ctx, row)),
  };
}

/**
 * A page whose posts this isolate may hold rendered (from the last read of the same page): one statement for the
 * count, ids and revisions only; the posts whose revision moved — or that are new to the page — are then rendered by
 * a second statement (`loadPostResources`), so the page costs at most two statements whatever it holds. A post
 * deleted between the two statements is left out of the page.
 */
async function readPageReusing(
  ctx: WorkspaceContext,
  where: SQL | undefined,
  page: number,
  held: Map<string, HeldPost>,
): Promise<PageRead> {
  const rows = await ctx.db.all<{ total: number; id: string | null; revision: number | null }>(sql`
    SELECT c.total AS total, page.id AS id, page.revision AS revision
    FROM ${countRow(where)}
    LEFT JOIN ${pageRows(where, page)} ON 1
    ${PAGE_ORDER}`);
  const current = (id: string, revision: number | null) => {
    const post = held.get(id);
    return post && post.revision === revision ? post.resource : undefined;
  };
  const found = rows.filter(hasPost);
  const stale = found.filter((r) => !current(r.id, r.revision)).map((r) => r.id);
  const rendered = new Map((stale.length ? await loadPostResources(ctx, stale) : []).map((post) => [post.id, post]));
  return {
    total: rows[0]?.total ?? 0,
    data: found.flatMap((r) => {
      const post = current(r.id, r.revision) ?? rendered.get(r.id);
      return post ? [post] : [];
    }),
  };
}

/**
 * One page of posts, `scheduled_at` desc then `created_at` desc, in Laravel's paginator shape (decisions §6).
 * One D1 statement per page whatever the posts hold (count, page rows, and their platforms, media and labels); when
 * this isolate holds the page's posts rendered from an earlier read, the statement reads only ids and revisions, and
 * a second one renders the posts that changed, if any (rendered-posts.ts).
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
  if (input.social_account_id) {
    const accountId = input.social_account_id;
    filters.push(
      exists(
        ctx.db
          .select({ one: sql`1` })
          .from(postPlatforms)
          .where(and(eq(postPlatforms.postId, posts.id), eq(postPlatforms.socialAccountId, accountId))),
      ),
    );
  }
  const from = input.scheduled_from ? parseUserDateTime(input.scheduled_from) : null;
  const to = input.scheduled_to ? parseUserDateTime(input.scheduled_to) : null;
  if (from !== null) filters.push(gte(posts.scheduledAt, from));
  if (to !== null) filters.push(lt(posts.scheduledAt, to));
  const where = and(...filters);
  const pageKey = [ctx.workspaceId, ...FILTERS.map((f) => input[f] ?? ""), page].join("|");
  const held = heldPosts(ctx, lastPageIds(pageKey));
  const { total, data } = held.size ? await readPageReusing(ctx, where, page, held) : await readPage(ctx, where, page);
  rememberPage(
    pageKey,
    data.map((post) => post.id),
  );

  const path = `${ctx.origin}/api/posts`;
  const query = new URLSearchParams();
  for (const f of FILTERS) if (input[f]) query.set(f, input[f]);
  const url = (n: number) => {
    const q = new URLSearchParams(query);
    q.set("page", String(n));
    return `${path}?${q.toString()}`;
  };
  const lastPage = Math.max(1, Math.ceil(total / POSTS_PER_PAGE));
  const prev = page > 1 ? url(page - 1) : null;
  const next = page < lastPage ? url(page + 1) : null;
  const first = data.length ? (page - 1) * POSTS_PER_PAGE + 1 : null;
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
      from: first,
      last_page: lastPage,
      links,
      path,
      per_page: POSTS_PER_PAGE,
      to: first === null ? null : first + data.length - 1,
      total,
    },
  };
}
