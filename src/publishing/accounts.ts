import { and, eq, isNull, lte, or } from "drizzle-orm";
import type { Platform } from "../catalog/platforms";
import type { ServiceContext } from "../context";
import { socialAccounts } from "../db/schema";
import { log } from "../lib/logger";
import type { AdapterAccount, AdapterContext, PlatformAdapter } from "../platforms/types";
import { PlatformError } from "../platforms/types";
import { EXPIRING_WINDOW_MS, tokenExpiredStatements } from "../services/social-accounts/account-health";
import { openCredentials, sealCredentials } from "../services/social-accounts/credentials";
import { nextRefreshAt, REFRESH_SCHEDULES } from "./token-schedule";

/**
 * Token refresh orchestration shared by the publish job, metrics and the refresh cron (token-refresh.ts): the
 * publish job and metrics refresh when the token expires within 15 minutes or the platform rejected it; the cron
 * refreshes ahead of time on each network's schedule (token-schedule.ts). A refusal marks the account
 * `token_expired`.
 */
export const TOKEN_REFRESH_MARGIN_MS = 15 * 60 * 1000;

export type AccountRow = typeof socialAccounts.$inferSelect;

export interface LoadedAccount {
  row: AccountRow;
  account: AdapterAccount;
}

export async function loadAccount(ctx: ServiceContext, row: AccountRow): Promise<LoadedAccount> {
  const credentials = row.credentials ? await openCredentials(ctx, row.id, row.credentials) : {};
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

/** `stillValidUntil`: the refresh was refused but the account was kept — its access token works until then. */
export type RefreshOutcome = { ok: true; loaded: LoadedAccount } | { ok: false; stillValidUntil?: number };

/** How long one refresh may hold an account's lease (a refresh call times out after 30 s). */
export const REFRESH_LEASE_MS = 2 * 60_000;
/** A caller finding another refresh in flight waits for its result this many times this long. */
const LEASE_WAIT = { polls: 10, intervalMs: 1_000 };

/**
 * Refreshes once. Only one refresh of an account runs at a time: it first claims the account's lease (a
 * conditional UPDATE, like the scheduler's claim), so the publish job, metrics and the refresh cron never spend a
 * rotating refresh token (X, TikTok) twice. A caller that finds the lease taken waits for the other refresh and
 * adopts its credentials. Writes are also compare-and-swap on the sealed credentials.
 * Throws transient PlatformErrors (the caller retries later); returns `{ok:false}` when the platform refused —
 * only then is the account marked `token_expired`, unless `accessValidUntil` says its access token still works
 * (a separate refresh credential was refused ahead of the expiry): then it is kept until that time.
 */
export async function refreshAccount(
  ctx: ServiceContext,
  actx: AdapterContext,
  adapter: PlatformAdapter,
  loaded: LoadedAccount,
  opts: { leaseHeld?: boolean; accessValidUntil?: number | null } = {},
): Promise<RefreshOutcome> {
  if (!adapter.refresh) return markTokenExpired(ctx, loaded);
  if (!opts.leaseHeld && !(await claimRefreshLease(ctx, loaded.row.id))) {
    return awaitOtherRefresh(ctx, actx, adapter, loaded);
  }
  try {
    const refreshed = await adapter.refresh(actx, loaded.account);
    const sealed = await sealCredentials(ctx, loaded.row.id, refreshed.credentials);
    const now = ctx.now();
    const dueAt = nextDueAfterRefresh(loaded, refreshed.expiresAt, now);
    const ends = accessEndAfterRefresh(ctx, loaded, refreshed.credentials.refresh_expires_at, now);
    const [row] = await ctx.db
      .update(socialAccounts)
      .set({
        credentials: sealed,
        tokenExpiresAt: refreshed.expiresAt,
        status: "connected",
        updatedAt: now,
        tokenRefreshedAt: now,
        tokenRefreshDueAt: dueAt,
        tokenRefreshLeaseUntil: null,
        // A network that renewed the token is one the service can renew (Facebook's check renews nothing).
        ...(REFRESH_SCHEDULES[loaded.row.platform as Platform] ? { refreshable: true } : {}),
        ...ends,
      })
      .where(casCondition(loaded.row))
      .returning();
    if (row) {
      log("info", "token_refreshed", { social_account_id: row.id, platform: row.platform });
      return { ok: true, loaded: await loadAccount(ctx, row) };
    }
    // Someone else changed the credentials meanwhile: theirs win.
    await releaseRefreshLease(ctx, loaded.row.id);
    return adoptNewer(ctx, loaded);
  } catch (err) {
    if (err instanceof PlatformError && err.kind === "auth") {
      const newer = await adoptNewer(ctx, loaded);
      if (newer.ok) {
        await releaseRefreshLease(ctx, loaded.row.id);
        return newer;
      }
      // A refused refresh token does not end an access token that still has time (the cron refreshes ahead of
      // the expiry): the account stays connected while the network still takes its token.
      const until = opts.accessValidUntil ?? null;
      if (until !== null && ctx.now() < until) {
        await releaseRefreshLease(ctx, loaded.row.id);
        log("warn", "token_refresh_refused", { social_account_id: loaded.row.id, platform: loaded.row.platform });
        return { ok: false, stillValidUntil: until };
      }
      return markTokenExpired(ctx, loaded);
    }
    await releaseRefreshLease(ctx, loaded.row.id);
    throw err;
  }
}

/**
 * When the cron refreshes a token just obtained by a refresh. A network that answered no longer a life than the
 * token already had is running out its refresh credential (LinkedIn's refresh token ends 365 days after the
 * authorization, and the access tokens it mints end with it): refreshing again minutes later would change nothing,
 * so the next try is half-way to the expiry — still before it, and the one after the expiry finds the refusal.
 */
function nextDueAfterRefresh(loaded: LoadedAccount, expiresAt: number | null, now: number): number | null {
  const schedule = REFRESH_SCHEDULES[loaded.row.platform as Platform];
  if (!schedule) return null;
  const due = nextRefreshAt(schedule, expiresAt, now, true);
  const before = tokenExpiresAt(loaded);
  const noLonger = expiresAt !== null && before !== null && expiresAt <= before;
  return noLonger ? Math.max(due, now + Math.floor((expiresAt - now) / 2)) : due;
}

/**
 * The access end after a refresh whose answer gave the refresh token's own end (docs/account-health.md): that end
 * (the earlier one where Google's Testing end is already set); an account `expiring` whose new end is past the
 * warning window (a rotated refresh token with a fresh life — Pinterest continuous refresh, TikTok) is `ok` again.
 */
function accessEndAfterRefresh(
  ctx: ServiceContext,
  loaded: LoadedAccount,
  refreshEndsAt: number | null | undefined,
  now: number,
) {
  if (typeof refreshEndsAt !== "number") return {};
  const testingEnd =
    loaded.row.platform === "youtube" && ctx.config.GOOGLE_OAUTH_APP_TESTING ? loaded.row.accessEndsAt : null;
  const accessEndsAt = testingEnd ? Math.min(testingEnd, refreshEndsAt) : refreshEndsAt;
  const healed = loaded.row.health === "expiring" && accessEndsAt > now + EXPIRING_WINDOW_MS;
  return {
    accessEndsAt,
    ...(healed ? { health: "ok" as const, healthReason: null, healthChangedAt: now } : {}),
  };
}

/** Takes the account's refresh lease if nobody holds it; false when another refresh is in flight. */
export async function claimRefreshLease(ctx: ServiceContext, accountId: string): Promise<boolean> {
  const now = ctx.now();
  const claimed = await ctx.db
    .update(socialAccounts)
    .set({ tokenRefreshLeaseUntil: now + REFRESH_LEASE_MS })
    .where(
      and(
        eq(socialAccounts.id, accountId),
        eq(socialAccounts.status, "connected"),
        or(isNull(socialAccounts.tokenRefreshLeaseUntil), lte(socialAccounts.tokenRefreshLeaseUntil, now)),
      ),
    )
    .returning({ id: socialAccounts.id });
  return claimed.length > 0;
}

async function releaseRefreshLease(ctx: ServiceContext, accountId: string): Promise<void> {
  await ctx.db.update(socialAccounts).set({ tokenRefreshLeaseUntil: null }).where(eq(socialAccounts.id, accountId));
}

/** Another caller holds the lease: wait for its outcome and adopt it, or take over if it gave up. */
async function awaitOtherRefresh(
  ctx: ServiceContext,
  actx: AdapterContext,
  adapter: PlatformAdapter,
  loaded: LoadedAccount,
): Promise<RefreshOutcome> {
  for (let poll = 0; poll < LEASE_WAIT.polls; poll++) {
    await actx.sleep(LEASE_WAIT.intervalMs);
    const current = await ctx.db.select().from(socialAccounts).where(eq(socialAccounts.id, loaded.row.id)).get();
    if (current?.status !== "connected" || !current.credentials) return { ok: false };
    if (current.credentials !== loaded.row.credentials) return { ok: true, loaded: await loadAccount(ctx, current) };
    const lease = current.tokenRefreshLeaseUntil;
    if ((lease === null || lease <= ctx.now()) && (await claimRefreshLease(ctx, current.id))) {
      // The other refresh ended without new credentials (a transient failure): try once ourselves.
      return refreshAccount(ctx, actx, adapter, await loadAccount(ctx, current), { leaseHeld: true });
    }
  }
  throw new PlatformError("transient", "Another refresh of this account's token is still running.");
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
  // Also `needs_reconnect` (docs/account-health.md): `account.token_expired`, then `account.needs_reconnect`.
  await ctx.db.batch([...tokenExpiredStatements(ctx, loaded.row.id, ctx.now())]);
  log("warn", "token_expired", { social_account_id: loaded.row.id, platform: loaded.row.platform });
  return { ok: false };
}

/**
 * Whether an account marked `needs_reconnect` is asked again before its next row fails (issue 35): a mark of a
 * permission refusal is (the permission may have been granted again, or the refusal was the network's passing
 * mistake); an account whose access has ended by time (`access_ends_at` passed) is not — the cron would only mark it
 * again.
 */
export function askAgainAfterMark(row: AccountRow, now: number): boolean {
  return row.health === "needs_reconnect" && (row.accessEndsAt === null || row.accessEndsAt > now);
}
