import { and, asc, type Column, eq, inArray, type SQLWrapper, sql } from "drizzle-orm";
import type { ServiceContext, WorkspaceContext } from "../../context";
import { labels, media, postLabels, postMedia, postPlatforms, posts, socialAccounts } from "../../db/schema";
import { type PostResource, type PresentPostInput, presentPost } from "../../presenters/post";

type PostRow = typeof posts.$inferSelect;

/** D1 binds at most 100 parameters per statement. */
const IDS_PER_STATEMENT = 90;

const chunks = <T>(items: T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

/**
 * drizzle maps D1 batch results from row objects keyed by column name, so a join whose tables share column names
 * (`id`, `platform`, `status`, …) must alias them or the values collide.
 */
export const aliased = <T extends Column>(column: T, alias: string) =>
  sql<T["_"]["data"]>`${column}`.mapWith(column).as(alias);

const accountColumns = {
  id: aliased(socialAccounts.id, "account_id"),
  platform: aliased(socialAccounts.platform, "account_platform"),
  displayName: aliased(socialAccounts.displayName, "account_display_name"),
  username: aliased(socialAccounts.username, "account_username"),
  isActive: aliased(socialAccounts.isActive, "account_is_active"),
  status: aliased(socialAccounts.status, "account_status"),
};

/**
 * The three child statements (platforms with their account, media, labels) of a set of posts, given as ids or as
 * a subquery selecting the ids (so a page and its children can go in one D1 round trip).
 */
export function childQueries(ctx: ServiceContext, ids: string[] | SQLWrapper) {
  return [
    ctx.db
      .select({ row: postPlatforms, account: accountColumns })
      .from(postPlatforms)
      .innerJoin(socialAccounts, eq(socialAccounts.id, postPlatforms.socialAccountId))
      .where(inArray(postPlatforms.postId, ids))
      .orderBy(asc(postPlatforms.position), asc(postPlatforms.createdAt)),
    ctx.db
      .select({ postId: postMedia.postId, media })
      .from(postMedia)
      .innerJoin(media, eq(media.id, postMedia.mediaId))
      .where(inArray(postMedia.postId, ids))
      .orderBy(asc(postMedia.position)),
    ctx.db
      .select({ postId: postLabels.postId, label: labels })
      .from(postLabels)
      .innerJoin(labels, eq(labels.id, postLabels.labelId))
      .where(inArray(postLabels.postId, ids))
      .orderBy(asc(labels.name), asc(labels.createdAt)),
  ] as const;
}

type PlatformJoin = Awaited<ReturnType<typeof childQueries>[0]>;
type MediaJoin = Awaited<ReturnType<typeof childQueries>[1]>;
type LabelJoin = Awaited<ReturnType<typeof childQueries>[2]>;

export function assemble(rows: PostRow[], platformRows: PlatformJoin, mediaRows: MediaJoin, labelRows: LabelJoin) {
  const inputs = new Map<string, PresentPostInput>(
    rows.map((post) => [post.id, { post, platforms: [], media: [], labels: [] }]),
  );
  for (const p of platformRows) inputs.get(p.row.postId)?.platforms.push(p);
  for (const m of mediaRows) inputs.get(m.postId)?.media.push(m.media);
  for (const l of labelRows) inputs.get(l.postId)?.labels.push(l.label);
  return inputs;
}

/** Full Post resources for post rows, in the order given; a constant number of statements per 90 posts. */
export async function buildPostResources(ctx: ServiceContext, rows: PostRow[]): Promise<PostResource[]> {
  const out = new Map<string, PostResource>();
  for (const part of chunks(rows, IDS_PER_STATEMENT)) {
    const [platformRows, mediaRows, labelRows] = await ctx.db.batch(
      childQueries(
        ctx,
        part.map((r) => r.id),
      ),
    );
    for (const [id, input] of assemble(part, platformRows, mediaRows, labelRows)) out.set(id, presentPost(ctx, input));
  }
  return rows.map((row) => out.get(row.id)!);
}

/**
 * Full Post resources of this workspace's posts, in the order of `postIds`; ids that are absent or in another
 * workspace are left out. Four statements in one D1 round trip per 90 posts, however many platforms, media and
 * labels they have.
 */
export async function loadPostResources(ctx: WorkspaceContext, postIds: string[]): Promise<PostResource[]> {
  const unique = [...new Set(postIds)];
  const found = new Map<string, PostResource>();
  for (const ids of chunks(unique, IDS_PER_STATEMENT)) {
    const [postRows, platformRows, mediaRows, labelRows] = await ctx.db.batch([
      ctx.db
        .select()
        .from(posts)
        .where(and(inArray(posts.id, ids), eq(posts.workspaceId, ctx.workspaceId))),
      ...childQueries(ctx, ids),
    ]);
    for (const [id, input] of assemble(postRows, platformRows, mediaRows, labelRows))
      found.set(id, presentPost(ctx, input));
  }
  return unique.flatMap((id) => {
    const resource = found.get(id);
    return resource ? [resource] : [];
  });
}
