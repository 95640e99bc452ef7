import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { apiKeys } from "../../db/schema";
import { sha256Hex } from "../../lib/crypto";

/** `last_used_at` is written at most once a minute per key, after the response, so reads stay one query. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/**
 * Resolves a plain bearer token to its key: one indexed D1 read by hash. Revoked and expired keys do not
 * authenticate. Returns null when the token is not a live key.
 */
export async function authenticateApiKey(ctx: ServiceContext, plainToken: string) {
  if (plainToken.length > 512) return null;
  return authenticateTokenHash(ctx, await sha256Hex(plainToken));
}

/** The same, for a token already hashed with SHA-256 (hex). */
export async function authenticateTokenHash(ctx: ServiceContext, hash: string) {
  const key = await ctx.db
    .select({
      id: apiKeys.id,
      workspaceId: apiKeys.workspaceId,
      expiresAt: apiKeys.expiresAt,
      lastUsedAt: apiKeys.lastUsedAt,
    })
    .from(apiKeys)
    .where(and(eq(apiKeys.tokenHash, hash), isNull(apiKeys.revokedAt)))
    .get();
  if (!key) return null;
  const now = ctx.now();
  if (key.expiresAt !== null && key.expiresAt <= now) return null;
  if (key.lastUsedAt === null || now - key.lastUsedAt >= LAST_USED_WRITE_INTERVAL_MS) {
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
  return key;
}
