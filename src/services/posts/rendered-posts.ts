import type { ServiceContext } from "../../context";
import { mediaPublicUrl } from "../../lib/media-url";
import type { PostResource } from "../../presenters/post";

/**
 * Post resources this isolate has rendered, reused while the post's revision is unchanged.
 *
 * Building a resource is most of a post read's cost: SQLite assembles the post's platforms, accounts, media and
 * labels as JSON, the JSON crosses the D1 binding, and the Worker parses and presents it. Every change to anything a
 * resource shows moves `posts.revision` forward — database triggers do it, whoever writes
 * (migrations/0001_post_revisions.sql) — so a resource rendered at revision R is still exact while the row says R.
 * A read therefore tells its one statement which `id:revision` pairs it already holds, and SQLite leaves those
 * posts' resource columns NULL (src/services/posts/load-posts.ts). The revision is checked in the same statement
 * that reads the page, so a reuse is never staler than the read itself.
 *
 * Entries also expire after `RENDERED_POST_TTL_MS`, which bounds what a change outside the triggers' reach could
 * cost. A rendered resource is shared between requests: nothing may mutate it.
 */
export const RENDERED_POST_TTL_MS = 60_000;
const RENDERED_POST_MAX = 500;
/** Remembered list pages (their post ids), so the next read of the same page can name what it holds. */
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

/** What a statement may leave unrendered: `,id:revision,…,` for SQL, and the resources behind those tokens. */
export interface KnownPosts {
  tokens: string;
  resources: Map<string, PostResource>;
}

export const revisionToken = (id: string, revision: number) => `${id}:${revision}`;

const mediaBaseOf = (ctx: ServiceContext) => mediaPublicUrl(ctx.config, ctx.origin, "");

function setBounded<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  if (map.size >= max) map.delete(map.keys().next().value as string);
  map.set(key, value);
}

/**
 * A snapshot of the rendered resources this isolate holds for `ids`. The caller keeps it across its statement, so an
 * entry replaced or evicted meanwhile by another request cannot change what this one returns.
 */
export function knownPosts(ctx: ServiceContext, ids: Iterable<string>): KnownPosts {
  const mediaBase = mediaBaseOf(ctx);
  const now = Date.now();
  const resources = new Map<string, PostResource>();
  for (const id of ids) {
    const entry = rendered.get(id);
    if (!entry || entry.mediaBase !== mediaBase || now - entry.renderedAt > RENDERED_POST_TTL_MS) continue;
    resources.set(revisionToken(id, entry.revision), entry.resource);
  }
  return { tokens: `,${[...resources.keys()].join(",")},`, resources };
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
