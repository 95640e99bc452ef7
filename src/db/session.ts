import { AppError } from "../lib/errors";

/**
 * D1 read replication through the Sessions API (docs/consistency.md;
 * https://developers.cloudflare.com/d1/best-practices/read-replication/). Every HTTP request runs its queries in one
 * D1 session: read routes start where the client's bookmark says, or anywhere (the nearest replica), writes start at
 * the primary. The response carries the session's last bookmark so the client's next request sees its own writes.
 */

/** The header Cloudflare's documentation uses for the bookmark, both ways. */
export const BOOKMARK_HEADER = "x-d1-bookmark";

/**
 * A D1 bookmark: four hex fields, `00000000-0000000f-00000000-<32 hex>` (what `getBookmark()` returns, locally and
 * in production). Anything else is refused with 400 before it reaches D1, which would otherwise fail the first query
 * of the request (a 500) in production and accept it silently locally.
 */
export const BOOKMARK_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

export type Consistency = "replica" | "primary";

/**
 * Which routes may start on a replica. Reads (GET, HEAD) under /api do, except the OAuth callback: it is the second
 * step of a flow a write started (`POST …/connect` stored the state), reached by a browser redirect that cannot carry
 * a bookmark, so it reads the primary. The hosted connect pages (/connect/*) are steps of such flows too. Every other
 * method writes, and /mcp's tool calls may write and its clients do not carry bookmarks between calls: primary.
 * Routes that touch no D1 (media files, the API reference) are read routes; their session is never used.
 */
export function consistencyFor(method: string, path: string): Consistency {
  if (method !== "GET" && method !== "HEAD") return "primary";
  if (path.startsWith("/api/oauth/") || path.startsWith("/connect/") || path === "/mcp") return "primary";
  return "replica";
}

/** The request's bookmark header: null when absent or empty; a 400 AppError when it is not a D1 bookmark. */
export function requestBookmark(value: string | undefined | null): string | null {
  if (value === undefined || value === null || value === "") return null;
  if (value.length > 128 || !BOOKMARK_PATTERN.test(value))
    throw new AppError(
      "bad_request",
      `The ${BOOKMARK_HEADER} header is not a D1 bookmark (send back the value a response carried).`,
    );
  return value;
}

/**
 * The session a request's queries run in: a replica route starts at the client's bookmark when it sent one (so it
 * sees at least everything that bookmark saw), else anywhere; a primary route starts at the primary, which is newer
 * than any bookmark.
 */
export function openSession(db: D1Database, consistency: Consistency, bookmark: string | null): D1DatabaseSession {
  if (consistency === "primary") return db.withSession("first-primary");
  return db.withSession(bookmark ?? "first-unconstrained");
}

/**
 * The later of two bookmarks (null when both are): D1 orders them as strings, as its own session does when it keeps
 * the newest bookmark it saw (workerd's d1-api `_updateBookmark`).
 */
export function laterBookmark(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a.localeCompare(b) < 0 ? b : a;
}
