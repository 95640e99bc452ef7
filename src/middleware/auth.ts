import type { MiddlewareHandler } from "hono";
import { tooManyRequests, unauthenticated } from "../lib/errors";
import { authenticateApiKey } from "../services/api-keys/authenticate-api-key";
import { type ApiKeyScope, scopeAllows, scopeForbidden } from "../services/api-keys/scopes";
import type { AppEnv } from "../types";

/**
 * Bearer API-key authentication, the per-key and per-workspace throttle
 * (src/services/api-keys/authenticate-api-key.ts). Sets `workspace` on the context (with the key's scope) and the
 * `X-RateLimit-*` headers on the response. The scope is checked by `requireScope` (REST) or the tool wrapper (MCP).
 */
export const requireApiKey: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("Authorization") ?? "")?.[1];
  if (!token) throw unauthenticated();
  const service = c.get("service");
  const auth = await authenticateApiKey(service, token, service.config.API_RATE_LIMIT_PER_MINUTE);
  if (!auth) throw unauthenticated();
  c.set("workspace", {
    ...service,
    workspaceId: auth.key.workspaceId,
    apiKeyId: auth.key.id,
    apiKeyScope: auth.key.scope,
    apiKeyExpiresAt: auth.key.expiresAt,
  });

  const { window } = auth;
  if (!window.allowed) {
    const err = tooManyRequests(window.retryAfterSeconds);
    err.headers!["X-RateLimit-Limit"] = String(window.limit);
    err.headers!["X-RateLimit-Remaining"] = "0";
    throw err;
  }
  await next();
  c.res.headers.set("X-RateLimit-Limit", String(window.limit));
  // A route that counted more (an MCP batch) says what is left after it.
  c.res.headers.set("X-RateLimit-Remaining", String(c.get("rateLimitRemaining") ?? window.remaining));
};

/** 403 unless the authenticated key's scope covers `need` (runs after `requireApiKey`). */
export const requireScope =
  (need: ApiKeyScope): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const have = c.get("workspace").apiKeyScope;
    if (!scopeAllows(have, need)) throw scopeForbidden(have, need);
    await next();
  };
