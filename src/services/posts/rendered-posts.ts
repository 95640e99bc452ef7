import type { ServiceContext } from "../../context";
import { setBounded } from "../../lib/bounded-map";
import { mediaPublicUrl } from "../../lib/media-url";
import type { PostResource } from "../../presenters/post";

/**
 * Post resources this isolate has rendered, reused while the post's revision is unchanged.
 *
 * Building a resource is most of a post read's cost: SQLite assembles the post's platforms, accounts, media and
 * labels as JSON, the JSON crosses the D1 binding, and the Worker parses and presents it. Every change to anything a
 * resource shows moves `posts.revision` forward — database triggers do it, whoever writes
 * (migrations/0001_post_revisions.sql) — so a resource rendered at revision R is still exact while the row says R.
 * `GET /api/posts` uses this: when it holds a page's posts from an earlier read, it reads only the page's ids and
 * revisions and renders just the posts whose revision moved (src/services/posts/list-posts.ts).
 *
 * Entries also expire after `RENDERED_POST_TTL_MS`, which bounds what a change outside the triggers' reach could
 * cost. A rendered resource is shared between requests: nothing may mutate it.
 */
export const RENDERED_POST_TTL_MS = 60_000;
const RENDERED_POST_MAX = 500;
/** Remembered list pages (their post ids), so the next read of the same page knows which posts it may hold. */
const PAGE_MAX = 200;

interface RenderedPost {
  revision: number;
  /** Media URLs depend on MEDIA_URL or the request's origin: a resource is reused only for the same base. */
  mediaBase: string;
  renderedAt: number;
  resource: PostResource;
}

const rendered = new Map<string, RenderedPost>();
const pages = new Map<string, string[]>();

export interface HeldPost {
  revision: number;
  resource: PostResource;
}

const mediaBaseOf = (ctx: ServiceContext) => mediaPublicUrl(ctx.config, ctx.origin, "");

/**
 * The rendered resources this isolate holds for `ids`, by id — a snapshot: an entry replaced or evicted by another
 * request meanwhile does not change what the caller holds.
 */
export function heldPosts(ctx: ServiceContext, ids: Iterable<string>): Map<string, HeldPost> {
  const mediaBase = mediaBaseOf(ctx);
  const now = Date.now();
  const held = new Map<string, HeldPost>();
  for (const id of ids) {
    const entry = rendered.get(id);
    if (!entry || entry.mediaBase !== mediaBase || now - entry.renderedAt > RENDERED_POST_TTL_MS) continue;
    held.set(id, { revision: entry.revision, resource: entry.resource });
  }
  return held;
}

export function rememberRendered(ctx: ServiceContext, id: string, revision: number, resource: PostResource): void {
  setBounded(
    rendered,
    id,
    { revision, mediaBase: mediaBaseOf(ctx), renderedAt: Date.now(), resource },
    RENDERED_POST_MAX,
  );
}

/** The post ids a list page showed last time in this isolate (empty if none). */
export const lastPageIds = (pageKey: string): string[] => pages.get(pageKey) ?? [];

export function rememberPage(pageKey: string, ids: string[]): void {
  setBounded(pages, pageKey, ids, PAGE_MAX);
}
