import { and, eq } from "drizzle-orm";
import type { Platform } from "../catalog/platforms";
import type { ServiceContext } from "../context";
import { socialAccounts } from "../db/schema";
import { log } from "../lib/logger";
import type { AdapterAccount, AdapterContext, PlatformAdapter } from "../platforms/types";
import { PlatformError } from "../platforms/types";
import { openCredentials, sealCredentials } from "../services/social-accounts/credentials";

/**
 * Token refresh orchestration shared by the publish job and metrics: refresh when the token expires within
 * 15 minutes or the platform rejected it; a refusal marks the account `token_expired`.
 */
export const TOKEN_REFRESH_MARGIN_MS = 15 * 60 * 1000;

export type AccountRow = typeof socialAccounts.$inferSelect;

export interface LoadedAccount {
  row: AccountRow;
  account: AdapterAccount;
}

export async function loadAccount(ctx: ServiceContext, row: AccountRow): Promise<LoadedAccount> {
  const credentials = row.credentials ? await openCredentials(ctx, row.credentials) : {};
  return {
    row,
    account: {
      id: row.id,
      platform: row.platform as Platform,
      platformUserId: row.platformUserId,
      username: row.username,
      displayName: row.displayName,
      meta: row.meta ?? {},
      credentials,
    },
  };
}

/** When the access token expires (epoch ms), or null when unknown / never. */
export function tokenExpiresAt(loaded: LoadedAccount): number | null {
  return loaded.row.tokenExpiresAt ?? loaded.account.credentials.expires_at ?? null;
}

export function needsRefresh(adapter: PlatformAdapter, loaded: LoadedAccount, now: number): boolean {
  if (!adapter.refresh) return false;
  const expires = tokenExpiresAt(loaded);
  return expires !== null && expires - now < TOKEN_REFRESH_MARGIN_MS;
}

export type RefreshOutcome = { ok: true; loaded: LoadedAccount } | { ok: false };

/**
 * Refreshes once. Several rows of one account may refresh at the same time and some platforms rotate refresh
 * tokens (X), so writes are compare-and-swap on the sealed credentials: if another worker refreshed first, its
 * credentials are adopted instead of calling the refusal a dead session.
 * Throws transient PlatformErrors (the caller retries later); returns `{ok:false}` when the platform refused.
 */
export async function refreshAccount(
  ctx: ServiceContext,
  actx: AdapterContext,
  adapter: PlatformAdapter,
  loaded: LoadedAccount,
): Promise<RefreshOutcome> {
  if (!adapter.refresh) return markTokenExpired(ctx, loaded);
  try {
    const refreshed = await adapter.refresh(actx, loaded.account);
    const sealed = await sealCredentials(ctx, refreshed.credentials);
    const now = ctx.now();
    const [row] = await ctx.db
      .update(socialAccounts)
      .set({ credentials: sealed, tokenExpiresAt: refreshed.expiresAt, status: "connected", updatedAt: now })
      .where(casCondition(loaded.row))
      .returning();
    if (row) {
      log("info", "token_refreshed", { social_account_id: row.id, platform: row.platform });
      return { ok: true, loaded: await loadAccount(ctx, row) };
    }
    // Someone else changed the credentials meanwhile: theirs win.
    return adoptNewer(ctx, loaded);
  } catch (err) {
    if (err instanceof PlatformError && err.kind === "auth") {
      const newer = await adoptNewer(ctx, loaded);
      if (newer.ok) return newer;
      return markTokenExpired(ctx, loaded);
    }
    throw err;
  }
}

function casCondition(row: AccountRow) {
  return row.credentials === null
    ? and(eq(socialAccounts.id, row.id), eq(socialAccounts.status, row.status))
    : and(eq(socialAccounts.id, row.id), eq(socialAccounts.credentials, row.credentials));
}

async function adoptNewer(ctx: ServiceContext, loaded: LoadedAccount): Promise<RefreshOutcome> {
  const current = await ctx.db.select().from(socialAccounts).where(eq(socialAccounts.id, loaded.row.id)).get();
  if (current?.credentials && current.credentials !== loaded.row.credentials && current.status === "connected") {
    return { ok: true, loaded: await loadAccount(ctx, current) };
  }
  return { ok: false };
}

/** The platform refused the account's token for good: it needs a reconnect. */
export async function markTokenExpired(ctx: ServiceContext, loaded: LoadedAccount): Promise<RefreshOutcome> {
  await ctx.db
    .update(socialAccounts)
    .set({ status: "token_expired", updatedAt: ctx.now() })
    .where(and(eq(socialAccounts.id, loaded.row.id), eq(socialAccounts.status, "connected")));
  log("warn", "token_expired", { social_account_id: loaded.row.id, platform: loaded.row.platform });
  return { ok: false };
}
