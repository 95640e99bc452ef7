import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { createDb } from "../../db/client";
import { apiKeys } from "../../db/schema";
import { setBounded } from "../../lib/bounded-map";
import { sha256Hex } from "../../lib/crypto";
import { personThrottleId, takeApiKeyHits, workspaceThrottleId } from "../../lib/rate-limit";
import { InFlight } from "../../lib/shared-wait";
import type { ApiKeyScope } from "./scopes";
import { countKeyRequest, dropKeyLease, type ThrottleResult } from "./throttle-leases";

/** `last_used_at` is written at most once a minute per key, after the response. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;
/** How long an isolate keeps a key lookup. Revocation does not wait for it (see below); it bounds memory staleness. */
export const KEY_CACHE_TTL_MS = 60_000;
const KEY_CACHE_MAX = 1000;

interface KnownKey {
  id: string;
  workspaceId: string;
  scope: ApiKeyScope;
  expiresAt: number | null;
  lastUsedAt: number | null;
  cachedAt: number;
}

/**
 * Token hash → key, per isolate. Revocation does not depend on it: the key's Durable Object, which `deleteApiKey`
 * tells before it marks the row, refuses the key at the next throttle lease renewal — at once in the isolate that
 * revoked it, within `LEASE_MS` anywhere else (throttle-leases.ts). Expiry is checked against `expires_at`.
 */
const knownKeys = new Map<string, KnownKey>();

function remember(hash: string, key: KnownKey): void {
  setBounded(knownKeys, hash, key, KEY_CACHE_MAX);
}

/**
 * Lookups in flight per token hash: concurrent first requests of a key share one D1 read. A request waits for
 * another's read at most `SHARED_WAIT_MS`, then reads itself (src/lib/shared-wait.ts).
 */
const lookups = new InFlight<KnownKey | null>();

function readKey(ctx: ServiceContext, hash: string): Promise<KnownKey | null> {
  // Cached as soon as it is read, so requests arriving after this lookup settles do not read again.
  return lookups.run(hash, async () => {
    const key = await selectKey(ctx, hash);
    if (key) remember(hash, key);
    return key;
  });
}

async function selectKey(ctx: ServiceContext, hash: string): Promise<KnownKey | null> {
  const row = await ctx.db
    .select({
      id: apiKeys.id,
      workspaceId: apiKeys.workspaceId,
      scope: apiKeys.scope,
      expiresAt: apiKeys.expiresAt,
      lastUsedAt: apiKeys.lastUsedAt,
    })
    .from(apiKeys)
    .where(and(eq(apiKeys.tokenHash, hash), isNull(apiKeys.revokedAt)))
    .get();
  return row ? { ...row, cachedAt: ctx.now() } : null;
}

function touchLastUsed(ctx: ServiceContext, key: KnownKey, now: number): void {
  if (key.lastUsedAt !== null && now - key.lastUsedAt < LAST_USED_WRITE_INTERVAL_MS) return;
  key.lastUsedAt = now;
  ctx.waitUntil(
    ctx.db
      .update(apiKeys)
      .set({ lastUsedAt: now })
      .where(
        and(
          eq(apiKeys.id, key.id),
          or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, now - LAST_USED_WRITE_INTERVAL_MS)),
        ),
      )
      .run(),
  );
}

export interface AuthenticatedKey {
  id: string;
  workspaceId: string;
  scope: ApiKeyScope;
  expiresAt: number | null;
}

export type AuthResult = { key: AuthenticatedKey; window: ThrottleResult } | null;

/**
 * The window that binds: the one that refused (the key's first), else the key's window with the smaller remainder
 * of the two, so `X-RateLimit-Remaining` never promises more than the workspace has left.
 */
function bindingWindow(key: ThrottleResult, workspace: ThrottleResult): ThrottleResult {
  if (!key.allowed) return key;
  if (!workspace.allowed) return { ...workspace, revoked: key.revoked };
  return { ...key, remaining: Math.min(key.remaining, workspace.remaining) };
}

/** Forgets everything this isolate holds about a key (called when it is revoked here). */
export function forgetApiKey(keyId: string): void {
  dropKeyLease(keyId);
  for (const [hash, key] of knownKeys) if (key.id === keyId) knownKeys.delete(hash);
}

/**
 * Resolves a bearer token to a live key and counts the request in the key's throttle window. A busy key costs no
 * I/O at all (cached lookup, leased throttle hits); otherwise one Durable Object call, plus one indexed D1 read
 * when this isolate has not seen the key in the last minute. Returns null for an unknown, revoked or expired key.
 */
export async function authenticateApiKey(
  ctx: ServiceContext,
  plainToken: string,
  limitPerMinute: number,
): Promise<AuthResult> {
  if (plainToken.length > 512) return null;
  const hash = await sha256Hex(plainToken);
  const now = ctx.now();
  let key: KnownKey | null | undefined = knownKeys.get(hash);
  if (key && now - key.cachedAt > KEY_CACHE_TTL_MS) key = undefined;
  // A key minted moments ago may not have reached the replica this request's session started on (GET routes,
  // docs/consistency.md): a miss asks the primary before answering 401. Unknown tokens pay one read more.
  key ??= (await readKey(ctx, hash)) ?? (await readKey({ ...ctx, db: createDb(ctx.env.DB) }, hash));
  if (!key || (key.expiresAt !== null && key.expiresAt <= now)) {
    knownKeys.delete(hash);
    return null;
  }
  const [keyWindow, workspaceWindow] = await Promise.all([
    countKeyRequest(ctx.env, key.id, limitPerMinute, now),
    countKeyRequest(ctx.env, workspaceThrottleId(key.workspaceId), ctx.config.API_WORKSPACE_RATE_LIMIT_PER_MINUTE, now),
  ]);
  const window = bindingWindow(keyWindow, workspaceWindow);
  if (keyWindow.revoked) {
    knownKeys.delete(hash);
    return null;
  }
  remember(hash, key);
  touchLastUsed(ctx, key, now);
  return { key: { id: key.id, workspaceId: key.workspaceId, scope: key.scope, expiresAt: key.expiresAt }, window };
}

/**
 * Counts one request of a signed-in person (throttle id `user:<id>`) against `SESSION_RATE_LIMIT_PER_MINUTE`, and against
 * the workspace's window like every key of the workspace: the same windows and leases as a key.
 */
export async function countPersonRequest(
  ctx: ServiceContext,
  userId: string,
  workspaceId: string,
): Promise<ThrottleResult> {
  const now = ctx.now();
  const [personWindow, workspaceWindow] = await Promise.all([
    countKeyRequest(ctx.env, personThrottleId(userId), ctx.config.SESSION_RATE_LIMIT_PER_MINUTE, now),
    countKeyRequest(ctx.env, workspaceThrottleId(workspaceId), ctx.config.API_WORKSPACE_RATE_LIMIT_PER_MINUTE, now),
  ]);
  return bindingWindow(personWindow, workspaceWindow);
}

/**
 * Counts `extra` more requests of an authenticated key at once, against its window and its workspace's (one
 * Durable Object call each, no lease): an MCP JSON-RPC batch counts every message it carries, not one HTTP
 * request. Not allowed unless both windows had room for all of them.
 */
export async function countAdditionalRequests(
  ctx: ServiceContext,
  key: { id: string; workspaceId: string },
  extra: number,
): Promise<ThrottleResult> {
  const now = ctx.now();
  const take = async (throttleId: string, limit: number): Promise<ThrottleResult> => {
    const hits = await takeApiKeyHits(ctx.env, throttleId, limit, now, extra);
    const allowed = hits.allowed && hits.granted >= extra;
    return {
      revoked: hits.revoked,
      allowed,
      limit,
      remaining: hits.remaining,
      retryAfterSeconds: hits.retryAfterSeconds,
    };
  };
  const [keyWindow, workspaceWindow] = await Promise.all([
    take(key.id, ctx.config.API_RATE_LIMIT_PER_MINUTE),
    take(workspaceThrottleId(key.workspaceId), ctx.config.API_WORKSPACE_RATE_LIMIT_PER_MINUTE),
  ]);
  return bindingWindow(keyWindow, workspaceWindow);
}
