import { and, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import type { Platform } from "../catalog/platforms";
import type { ServiceContext } from "../context";
import { socialAccounts } from "../db/schema";
import { errorFields, log } from "../lib/logger";
import { adapterFor } from "../platforms";
import { type AdapterContext, PlatformError } from "../platforms/types";
import { type AccountRow, loadAccount, REFRESH_LEASE_MS, refreshAccount, tokenExpiresAt } from "./accounts";
import { createAdapterContext } from "./context";
import {
  nextRefreshAt,
  PROACTIVE_REFRESH_PLATFORMS,
  REFRESH_RECHECK_MS,
  REFRESH_RETRY_MS,
  REFRESH_SCHEDULES,
} from "./token-schedule";

/** Accounts claimed per tick: the work is spread over ticks, the most urgent first. */
export const TOKEN_REFRESH_CLAIM_LIMIT = 50;
/** Refresh calls in flight at once. */
const REFRESH_CONCURRENCY = 4;

export interface TokenRefreshResult {
  claimed: number;
  refreshed: number;
  expired: number;
  failed: number;
  /** Looked at but not due yet (first sight of a new token, the 24-hour rule, or nothing to refresh with). */
  rescheduled: number;
}

type Outcome = { kind: "refreshed" | "expired" } | { kind: "failed" | "rescheduled"; at: number };

/**
 * The cron's refresh step (docs/token-refresh.md): claims up to TOKEN_REFRESH_CLAIM_LIMIT connected accounts
 * whose refresh is due — soonest first, with one conditional `UPDATE … RETURNING` that sets their lease, so two
 * overlapping ticks (or a publish refreshing the same account) never refresh one account twice — then refreshes
 * each on its network's schedule. Only a network's refusal marks an account `token_expired`; a transient failure
 * tries again later. Statements per tick: one claim, one per refreshed account, one for every reschedule.
 */
export async function runTokenRefresh(
  ctx: ServiceContext,
  opts: { adapterContext?: Partial<AdapterContext> } = {},
): Promise<TokenRefreshResult> {
  const now = ctx.now();
  const leaseFree = or(isNull(socialAccounts.tokenRefreshLeaseUntil), lte(socialAccounts.tokenRefreshLeaseUntil, now));
  const due = ctx.db
    .select({ id: socialAccounts.id })
    .from(socialAccounts)
    .where(
      and(
        eq(socialAccounts.status, "connected"),
        or(isNull(socialAccounts.tokenRefreshDueAt), lte(socialAccounts.tokenRefreshDueAt, now)),
        // One bound parameter for the platform list.
        sql`${socialAccounts.platform} IN (SELECT value FROM json_each(${JSON.stringify(PROACTIVE_REFRESH_PLATFORMS)}))`,
        leaseFree,
      ),
    )
    // Soonest first; a schedule not computed yet (a new token) counts from its expiry, or first when unknown.
    .orderBy(sql`COALESCE(${socialAccounts.tokenRefreshDueAt}, ${socialAccounts.tokenExpiresAt}, 0)`)
    .limit(TOKEN_REFRESH_CLAIM_LIMIT);
  const claimed = await ctx.db
    .update(socialAccounts)
    .set({ tokenRefreshLeaseUntil: now + REFRESH_LEASE_MS })
    .where(and(inArray(socialAccounts.id, due), eq(socialAccounts.status, "connected"), leaseFree))
    .returning();

  const result: TokenRefreshResult = { claimed: claimed.length, refreshed: 0, expired: 0, failed: 0, rescheduled: 0 };
  if (claimed.length === 0) return result;

  const actx = createAdapterContext(ctx, opts.adapterContext);
  const reschedules: { id: string; at: number }[] = [];
  let next = 0;
  const worker = async () => {
    while (next < claimed.length) {
      const row = claimed[next++]!;
      const outcome = await refreshClaimed(ctx, actx, row, now);
      result[outcome.kind]++;
      if ("at" in outcome) reschedules.push({ id: row.id, at: outcome.at });
    }
  };
  await Promise.all(Array.from({ length: Math.min(REFRESH_CONCURRENCY, claimed.length) }, worker));

  if (reschedules.length > 0) {
    // Every reschedule in one statement, whatever their number: one bound JSON array.
    await ctx.db.run(sql`
      UPDATE social_accounts
      SET token_refresh_due_at = json_extract(j.value, '$.at'), token_refresh_lease_until = NULL
      FROM json_each(${JSON.stringify(reschedules)}) AS j
      WHERE social_accounts.id = json_extract(j.value, '$.id')`);
  }
  if (result.refreshed + result.expired + result.failed > 0) log("info", "token_refresh_tick", { ...result });
  return result;
}

async function refreshClaimed(
  ctx: ServiceContext,
  actx: AdapterContext,
  row: AccountRow,
  now: number,
): Promise<Outcome> {
  const schedule = REFRESH_SCHEDULES[row.platform as Platform];
  const adapter = adapterFor(row.platform);
  if (!schedule || !adapter?.refresh) return { kind: "rescheduled", at: now + REFRESH_RECHECK_MS };
  try {
    const loaded = await loadAccount(ctx, row);
    // Nothing to refresh with (an access token connected without its refresh token): leave the account alone;
    // its token may well work, and only the network's refusal ends a session.
    if (!schedule.needs(loaded.account.credentials)) return { kind: "rescheduled", at: now + REFRESH_RECHECK_MS };
    const dueAt = nextRefreshAt(schedule, tokenExpiresAt(loaded), row.tokenRefreshedAt ?? row.createdAt);
    if (dueAt > now) return { kind: "rescheduled", at: dueAt };
    // Where the refresh credential is not the access token, a refusal ahead of the expiry leaves the access token
    // working until then: the account is kept, and tried once more when it expires.
    const accessValidUntil = schedule.refusalEndsToken ? null : tokenExpiresAt(loaded);
    const outcome = await refreshAccount(ctx, actx, adapter, loaded, { leaseHeld: true, accessValidUntil });
    if (!outcome.ok && outcome.stillValidUntil !== undefined)
      return { kind: "rescheduled", at: outcome.stillValidUntil };
    return { kind: outcome.ok ? "refreshed" : "expired" };
  } catch (err) {
    const hint = err instanceof PlatformError ? (err.retryAfterSeconds ?? 0) * 1000 : 0;
    log("warn", "token_refresh_failed", { social_account_id: row.id, platform: row.platform, ...errorFields(err) });
    return { kind: "failed", at: now + Math.max(REFRESH_RETRY_MS, hint) };
  }
}
