import { and, eq, gt, isNull, ne, or } from "drizzle-orm";
import type { Platform } from "../../catalog/platforms";
import type { Config } from "../../config";
import type { ServiceContext } from "../../context";
import { socialAccounts } from "../../db/schema";
import { log } from "../../lib/logger";
import { REFRESH_SCHEDULES } from "../../publishing/token-schedule";
import { accountEvent, accountHealthEvents } from "../webhooks/outbox";
import type { AccountCredentials } from "./credentials";

/**
 * Account health (issue 29, docs/account-health.md): whether the service can renew an account's access itself, when
 * that access ends without a reconnect, and the `ok` → `expiring` → `needs_reconnect` states with their events.
 */

const DAY = 24 * 60 * 60 * 1000;
/** An unrenewable access this close to its end is `expiring` (one `account.expiring` event). */
export const EXPIRING_WINDOW_MS = 7 * DAY;
/** Google apps in "Testing" publishing status: refresh tokens end 7 days after the consent. */
export const GOOGLE_TESTING_REFRESH_MS = 7 * DAY;

/** Networks whose tokens do not expire: nothing to renew, nothing ends (Facebook Login Page tokens, Mastodon). */
const NON_EXPIRING = new Set<string>(["facebook", "instagram-facebook", "mastodon"]);

export interface AccessFacts {
  refreshable: boolean;
  accessEndsAt: number | null;
}

/**
 * What fresh credentials say about the account's access (at connect, and for rows from before this field):
 * - a network with a refresh grant and the credential it needs (refresh token, long-lived Meta token, Bluesky
 *   refresh JWT or app password) → refreshable; access ends only where the network limits the refresh credential
 *   itself: where its token answer says so (`refresh_expires_at`, from `refresh_token_expires_in` /
 *   `refresh_expires_in`: LinkedIn and Pinterest 365 days, TikTok 180), and Google apps in Testing
 *   (`GOOGLE_OAUTH_APP_TESTING`: 7 days from `obtainedAt`) — the earlier of the two;
 * - the same network without that credential (LinkedIn for apps without programmatic refresh tokens — LinkedIn
 *   gives them to approved partners only) → not refreshable, access ends at the token's expiry (60 days);
 * - Facebook Pages, Instagram via Facebook Login, Mastodon: tokens that do not expire → not refreshable, no end.
 */
export function accessFacts(
  config: Pick<Config, "GOOGLE_OAUTH_APP_TESTING">,
  platform: string,
  credentials: AccountCredentials,
  tokenExpiresAt: number | null,
  obtainedAt: number,
): AccessFacts {
  if (NON_EXPIRING.has(platform)) return { refreshable: false, accessEndsAt: null };
  const schedule = REFRESH_SCHEDULES[platform as Platform];
  if (schedule?.needs(credentials)) {
    const testing = platform === "youtube" && config.GOOGLE_OAUTH_APP_TESTING;
    const ends = [testing ? obtainedAt + GOOGLE_TESTING_REFRESH_MS : null, credentials.refresh_expires_at ?? null];
    const known = ends.filter((e): e is number => typeof e === "number");
    return { refreshable: true, accessEndsAt: known.length > 0 ? Math.min(...known) : null };
  }
  return { refreshable: false, accessEndsAt: tokenExpiresAt ?? credentials.expires_at ?? null };
}

/** The columns a connect or reconnect writes: fresh facts, and health back to `ok` (a reconnect clears it). */
export function connectedHealth(facts: AccessFacts, now: number) {
  return {
    refreshable: facts.refreshable,
    accessEndsAt: facts.accessEndsAt,
    health: "ok" as const,
    healthReason: null,
    healthChangedAt: now,
  };
}

/**
 * The network refused the account a permission (a revoked scope, a Page role removed): `needs_reconnect` with the
 * network's reason and one `account.needs_reconnect` event — only if it was not so already, so the rows of the
 * account that meet the same refusal record it once.
 */
export async function markNeedsReconnect(ctx: ServiceContext, accountId: string, reason: string): Promise<void> {
  const now = ctx.now();
  await ctx.db.batch([
    ctx.db
      .update(socialAccounts)
      .set({ health: "needs_reconnect", healthReason: reason, healthChangedAt: now, updatedAt: now })
      .where(
        and(
          eq(socialAccounts.id, accountId),
          ne(socialAccounts.health, "needs_reconnect"),
          ne(socialAccounts.status, "disconnected"),
        ),
      ),
    accountHealthEvents(ctx, "account.needs_reconnect", now, { accountId, afterChange: true }),
  ]);
  log("warn", "account_needs_reconnect", { social_account_id: accountId, reason });
}

/**
 * The network took the account's post after a permission refusal had marked it: `needs_reconnect` → `ok`, reason
 * cleared, no event (as an `expiring` account healed by a refresh). Conditional, so concurrent rows clear it once.
 */
export async function clearNeedsReconnect(ctx: ServiceContext, accountId: string): Promise<void> {
  const now = ctx.now();
  const cleared = await ctx.db
    .update(socialAccounts)
    .set({ health: "ok", healthReason: null, healthChangedAt: now, updatedAt: now })
    .where(
      and(
        eq(socialAccounts.id, accountId),
        eq(socialAccounts.health, "needs_reconnect"),
        eq(socialAccounts.status, "connected"),
        or(isNull(socialAccounts.accessEndsAt), gt(socialAccounts.accessEndsAt, now)),
      ),
    )
    .returning({ id: socialAccounts.id });
  if (cleared.length > 0) log("info", "account_reconnect_mark_cleared", { social_account_id: accountId });
}

/**
 * `markTokenExpired`'s statements: the session is gone (`token_expired`, `account.token_expired`), so the account
 * needs a reconnect too (`account.needs_reconnect`) — each UPDATE conditional and followed by its own event, so a
 * second refusal records nothing, nor an account already marked for a permission.
 */
export function tokenExpiredStatements(ctx: ServiceContext, accountId: string, now: number) {
  return [
    ctx.db
      .update(socialAccounts)
      .set({ status: "token_expired", tokenRefreshLeaseUntil: null, updatedAt: now })
      .where(and(eq(socialAccounts.id, accountId), eq(socialAccounts.status, "connected"))),
    accountEvent(ctx, "account.token_expired", accountId, { afterChange: true }),
    ctx.db
      .update(socialAccounts)
      .set({
        health: "needs_reconnect",
        healthReason: "The network refused the session and its renewal.",
        healthChangedAt: now,
      })
      .where(
        and(
          eq(socialAccounts.id, accountId),
          eq(socialAccounts.status, "token_expired"),
          ne(socialAccounts.health, "needs_reconnect"),
        ),
      ),
    accountHealthEvents(ctx, "account.needs_reconnect", now, { accountId, afterChange: true }),
  ] as const;
}
