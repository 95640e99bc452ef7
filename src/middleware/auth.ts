import type { MiddlewareHandler } from "hono";
import type { WindowResult } from "../durable-objects/upload-guard";
import { sha256Hex } from "../lib/crypto";
import { tooManyRequests, unauthenticated } from "../lib/errors";
import { hitRateLimit } from "../lib/rate-limit";
import { authenticateTokenHash } from "../services/api-keys/authenticate-api-key";
import type { AppEnv } from "../types";

/**
 * Token hashes this isolate has already seen authenticate, with their key id. It never decides whether a key is
 * valid (every request still reads the key row, so revocation and expiry act at once); it only lets the throttle's
 * Durable Object call run in parallel with that read for keys known to exist.
 */
const KNOWN_KEYS_MAX = 1000;
const knownKeyIds = new Map<string, string>();

function remember(hash: string, keyId: string): void {
  if (knownKeyIds.size >= KNOWN_KEYS_MAX) knownKeyIds.delete(knownKeyIds.keys().next().value as string);
  knownKeyIds.set(hash, keyId);
}

/**
 * Bearer API-key authentication (one D1 read) and the per-key throttle (one Durable Object call, concurrent with
 * the read for keys this isolate has seen). Sets `workspace` on the context and the `X-RateLimit-*` headers.
 */
export const requireApiKey: MiddlewareHandler<AppEnv> = async (c, next) => {
  const header = c.req.header("Authorization") ?? "";
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  if (!token || token.length > 512) throw unauthenticated();
  const service = c.get("service");
  const limit = service.config.API_RATE_LIMIT_PER_MINUTE;
  const hash = await sha256Hex(token);

  const knownId = knownKeyIds.get(hash);
  let key: Awaited<ReturnType<typeof authenticateTokenHash>>;
  let window: WindowResult;
  if (knownId) {
    [key, window] = await Promise.all([
      authenticateTokenHash(service, hash),
      hitRateLimit(c.env, `api-key:${knownId}`, limit),
    ]);
    if (!key) knownKeyIds.delete(hash);
  } else {
    key = await authenticateTokenHash(service, hash);
    window = key ? await hitRateLimit(c.env, `api-key:${key.id}`, limit) : (null as never);
  }
  if (!key) throw unauthenticated();
  remember(hash, key.id);
  c.set("workspace", { ...service, workspaceId: key.workspaceId, apiKeyId: key.id });

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
