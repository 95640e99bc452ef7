import type { Context } from "hono";
import { routePath } from "hono/route";
import type { AppEnv } from "../types";

/**
 * The request's path for a log line, or undefined where it may hold a secret (issue 35): a route whose pattern has a
 * `:token` parameter (`/connect/:token`, `/connect/:token/start`, `/connect/select/:token`, `/api/uploads/:token`)
 * and a path no route matched (the pattern is then a middleware's wildcard; an old link such as
 * `/api/invitations/lookup/<token>` lands there). The route pattern is logged in every case.
 */
export function loggablePath(c: Context<AppEnv>): string | undefined {
  const route = routePath(c);
  if (route.includes("*") || /[:{]token\b/.test(route)) return undefined;
  return new URL(c.req.url).pathname;
}
