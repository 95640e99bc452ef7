import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../types";

/**
 * An answer to a request that carries credentials (an `Authorization` header or a cookie) is one tenant's data:
 * no shared cache or browser cache keeps it (`Cache-Control: no-store`, unless the route chose a policy of its own),
 * and any cache that still looks is told the answer depends on those headers (`Vary`). Issue 35, review 4 (Low).
 */
export const privateAnswers: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  if (c.req.header("Authorization") === undefined && c.req.header("Cookie") === undefined) return;
  const setCache = !c.res.headers.has("Cache-Control");
  const vary = c.res.headers.get("Vary");
  const have = new Set((vary ?? "").split(",").map((v) => v.trim().toLowerCase()));
  const add = ["Authorization", "Cookie"].filter((h) => !have.has(h.toLowerCase()));
  if (!setCache && add.length === 0) return;
  const headers = new Headers(c.res.headers);
  if (setCache) headers.set("Cache-Control", "no-store");
  if (add.length > 0) headers.set("Vary", [vary, ...add].filter(Boolean).join(", "));
  // A new Response: one passed through from a binding (an asset, R2) has headers that cannot be changed in place.
  c.res = new Response(c.res.body, { status: c.res.status, statusText: c.res.statusText, headers });
};
