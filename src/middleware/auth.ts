import type { MiddlewareHandler } from "hono";
import { tooManyRequests, unauthenticated } from "../lib/errors";
import { authenticateApiKey } from "../services/api-keys/authenticate-api-key";
import type { AppEnv } from "../types";

/**
 * Bearer API-key authentication and the per-key throttle (src/services/api-keys/authenticate-api-key.ts).
 * Sets `workspace` on the context and the `X-RateLimit-*` headers on the response.
 */
export const requireApiKey: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("Authorization") ?? "")?.[1];
  if (!token) throw unauthenticated();
  const service = c.get("service");
  const limit = service.config.API_RATE_LIMIT_PER_MINUTE;
  const auth = await authenticateApiKey(service, token, limit);
  if (!auth) throw unauthenticated();
  c.set("workspace", { ...service, workspaceId: auth.key.workspaceId, apiKeyId: auth.key.id });

  if (!auth.window.allowed) {
    const err = tooManyRequests(auth.window.retryAfterSeconds);
    err.headers!["X-RateLimit-Limit"] = String(limit);
    err.headers!["X-RateLimit-Remaining"] = "0";
    throw err;
  }
  await next();
  c.res.headers.set("X-RateLimit-Limit", String(limit));
  c.res.headers.set("X-RateLimit-Remaining", String(auth.window.remaining));
};
