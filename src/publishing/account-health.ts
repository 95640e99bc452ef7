import { and, eq, gt, isNotNull, isNull, lte, ne, sql } from "drizzle-orm";
import type { ServiceContext } from "../context";
import { socialAccounts } from "../db/schema";
import { errorFields, log } from "../lib/logger";
import { accessFacts, EXPIRING_WINDOW_MS } from "../services/social-accounts/account-health";
import { openCredentials } from "../services/social-accounts/credentials";
import { accountHealthEvents } from "../services/webhooks/outbox";

/** Accounts from before the health fields whose credentials are opened per tick to fill them in. */
export const HEALTH_BACKFILL_LIMIT = 50;

export interface AccountHealthResult {
  backfilled: number;
  expiring: number;
  needsReconnect: number;
}

/** `2027-01-26 10:00:00 UTC` from the column, in SQL (the reason is written by the UPDATE itself). */
const endsAtText = sql`strftime('%Y-%m-%d %H:%M:%S', ${socialAccounts.accessEndsAt} / 1000, 'unixepoch') || ' UTC'`;

/**
 * The cron's account-health step (docs/account-health.md), every tick:
 * 1. fills `refreshable` / `access_ends_at` of accounts from before these fields (their credentials opened, at most
 *    HEALTH_BACKFILL_LIMIT a tick; one statement for all);
 * 2. `ok` → `expiring` for connected accounts whose access ends within 7 days and that the service cannot renew,
 *    with one `account.expiring` each;
 * 3. → `needs_reconnect` for connected accounts whose access has ended, with one `account.needs_reconnect` each.
 * Steps 2 and 3 are each one conditional UPDATE and its events in one batch: the UPDATE matches only accounts not
 * yet in that state, so overlapping or later ticks record nothing again — one event per occurrence.
 */
export async function runAccountHealth(ctx: ServiceContext): Promise<AccountHealthResult> {
  const now = ctx.now();
  const backfilled = await backfill(ctx, now);

  const [expiring] = await ctx.db.batch([
    ctx.db
      .update(socialAccounts)
      .set({
        health: "expiring",
        healthReason: sql`'Access ends ' || ${endsAtText} || ' and the service cannot renew it: reconnect the account before then.'`,
        healthChangedAt: now,
      })
      .where(
        and(
          eq(socialAccounts.status, "connected"),
          eq(socialAccounts.health, "ok"),
          isNotNull(socialAccounts.accessEndsAt),
          gt(socialAccounts.accessEndsAt, now),
          lte(socialAccounts.accessEndsAt, now + EXPIRING_WINDOW_MS),
        ),
      )
      .returning({ id: socialAccounts.id }),
    accountHealthEvents(ctx, "account.expiring", now, { afterChange: true }),
  ]);
  const [ended] = await ctx.db.batch([
    ctx.db
      .update(socialAccounts)
      .set({
        health: "needs_reconnect",
        healthReason: sql`'Access ended ' || ${endsAtText} || ': reconnect the account.'`,
        healthChangedAt: now,
      })
      .where(
        and(
          eq(socialAccounts.status, "connected"),
          ne(socialAccounts.health, "needs_reconnect"),
          isNotNull(socialAccounts.accessEndsAt),
          lte(socialAccounts.accessEndsAt, now),
        ),
      )
      .returning({ id: socialAccounts.id }),
    accountHealthEvents(ctx, "account.needs_reconnect", now, { afterChange: true }),
  ]);
  const result = { backfilled, expiring: expiring.length, needsReconnect: ended.length };
  if (result.backfilled + result.expiring + result.needsReconnect > 0)
    log("info", "account_health_tick", { ...result });
  return result;
}

async function backfill(ctx: ServiceContext, now: number): Promise<number> {
  const rows = await ctx.db
    .select()
    .from(socialAccounts)
    .where(
      and(
        isNull(socialAccounts.refreshable),
        eq(socialAccounts.status, "connected"),
        isNotNull(socialAccounts.credentials),
      ),
    )
    .limit(HEALTH_BACKFILL_LIMIT);
  if (rows.length === 0) return 0;
  const facts: { id: string; refreshable: number; ends: number | null }[] = [];
  for (const row of rows) {
    try {
      const credentials = await openCredentials(ctx, row.id, row.credentials!);
      // When the credentials were obtained is not known: a limited refresh token (Google Testing) counts from now,
      // so the account gets its full warning.
      const f = accessFacts(ctx.config, row.platform, credentials, row.tokenExpiresAt, now);
      facts.push({ id: row.id, refreshable: f.refreshable ? 1 : 0, ends: f.accessEndsAt });
    } catch (err) {
      log("warn", "account_health_backfill_failed", { social_account_id: row.id, ...errorFields(err) });
    }
  }
  if (facts.length === 0) return 0;
  await ctx.db.run(sql`
    UPDATE social_accounts
    SET refreshable = json_extract(j.value, '$.refreshable'), access_ends_at = json_extract(j.value, '$.ends')
    FROM json_each(${JSON.stringify(facts)}) AS j
    WHERE social_accounts.id = json_extract(j.value, '$.id') AND social_accounts.refreshable IS NULL`);
  return facts.length;
}
