import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { apiKeys } from "../../db/schema";
import { randomToken, sha256Hex } from "../../lib/crypto";
import { notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { revokeApiKeyEverywhere } from "../../lib/rate-limit";
import { presentApiKey } from "../../presenters/resources";
import { forgetApiKey } from "./authenticate-api-key";

/** Fixed prefix so secret scanners can match leaked keys; 32 random bytes follow (256 bits). */
export const API_KEY_PREFIX = "esp_";

export async function mintApiKey(workspaceId: string, name: string, expiresAt: number | null, now: number) {
  const plainToken = `${API_KEY_PREFIX}${randomToken(32)}`;
  const row: typeof apiKeys.$inferSelect = {
    id: newId(),
    workspaceId,
    name,
    tokenHash: await sha256Hex(plainToken),
    lastUsedAt: null,
    expiresAt,
    revokedAt: null,
    createdAt: now,
  };
  return { row, plainToken };
}

export async function createApiKey(ctx: WorkspaceContext, input: { name: string; expiresAt: number | null }) {
  const minted = await mintApiKey(ctx.workspaceId, input.name, input.expiresAt, ctx.now());
  await ctx.db.insert(apiKeys).values(minted.row);
  return { token: presentApiKey(minted.row), plain_token: minted.plainToken };
}

export async function listApiKeys(ctx: WorkspaceContext) {
  const rows = await ctx.db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.workspaceId, ctx.workspaceId), isNull(apiKeys.revokedAt)))
    .orderBy(desc(apiKeys.createdAt), desc(sql`rowid`));
  return rows.map(presentApiKey);
}

/**
 * Revokes a key. The key's Durable Object learns first (every throttle lease renewal asks it), this isolate drops
 * its cached lookup and lease, then the row is marked for cold lookups and listings. The key stops working at once
 * here and within `LEASE_MS` (1 s, throttle-leases.ts) in every other isolate.
 */
export async function deleteApiKey(ctx: WorkspaceContext, id: string) {
  const live = await ctx.db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, id), eq(apiKeys.workspaceId, ctx.workspaceId), isNull(apiKeys.revokedAt)))
    .get();
  if (!live) throw notFound();
  await revokeApiKeyEverywhere(ctx.env, id);
  forgetApiKey(id);
  const result = await ctx.db
    .update(apiKeys)
    .set({ revokedAt: ctx.now() })
    .where(and(eq(apiKeys.id, id), eq(apiKeys.workspaceId, ctx.workspaceId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  if (result.length === 0) throw notFound();
}
