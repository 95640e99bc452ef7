import type { MiddlewareHandler } from "hono";
import { tooManyRequests, unauthenticated } from "../lib/errors";
import { hitRateLimit } from "../lib/rate-limit";
import { authenticateApiKey } from "../services/api-keys/authenticate-api-key";
import type { AppEnv } from "../types";

/**
 * Bearer API-key authentication (one D1 read) followed by the per-key throttle (one Durable Object call).
 * Sets `workspace` on the context and the `X-RateLimit-*` headers on the response.
 */
export const requireApiKey: MiddlewareHandler<AppEnv> = async (c, next) => {
  const header = c.req.header("Authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw unauthenticated();
  const service = c.get("service");
  const key = await authenticateApiKey(service, match[1]);
  if (!key) throw unauthenticated();
  c.set("workspace", { ...service, workspaceId: key.workspaceId, apiKeyId: key.id });

  const limit = service.config.API_RATE_LIMIT_PER_MINUTE;
  const window = await hitRateLimit(c.env, `api-key:${key.id}`, limit);
  if (!window.allowed) {
    const err = tooManyRequests(window.retryAfterSeconds);
    err.headers!["X-RateLimit-Limit"] = String(limit);
    err.headers!["X-RateLimit-Remaining"] = "0";
    throw err;
  }
  await next();
  c.res.headers.set("X-RateLimit-Limit", String(limit));
  c.res.headers.set("X-RateLimit-Remaining", String(window.remaining));
};
