import type { Platform } from "../catalog/platforms";
import type { AccountCredentials } from "../services/social-accounts/credentials";

/**
 * When each network's tokens are refreshed ahead of time (docs/token-refresh.md has the sources per network).
 *
 * - `margin`: refresh this long before the known expiry — days for the 60-day tokens, minutes to hours for the
 *   short-lived ones (their refresh tokens or sessions are what must stay alive).
 * - `every`: the schedule when no expiry is known, counted from the last refresh (or the connection).
 * - `minAge`: the network refuses to refresh a younger token (Instagram Login and Threads: 24 hours).
 * - `needs`: the stored credential the refresh grant needs; an account without it is left alone (its token may
 *   still work; only a network's refusal ends a session).
 * - `refusalEndsToken`: see below.
 *
 * Facebook Pages and Instagram via Facebook Login are absent on purpose: a Page token obtained from a long-lived
 * user token does not expire, so there is nothing to renew (their adapters' `refresh` only checks the token).
 * Mastodon tokens do not expire.
 */
export interface RefreshSchedule {
  margin: number;
  every: number;
  minAge: number;
  needs: (c: AccountCredentials) => boolean;
  /**
   * The refresh grant is the access token itself (Instagram Login, Threads): a refusal is the token's own, so the
   * account is marked at once. Otherwise a refused refresh credential leaves the access token working until it
   * expires, and the account is kept until then.
   */
  refusalEndsToken?: boolean;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const refreshToken = (c: AccountCredentials) => Boolean(c.refresh_token);
const accessToken = (c: AccountCredentials) => Boolean(c.access_token);

/** Instagram Login and Threads: 60-day tokens, refreshable once at least 24 hours old and until they expire. */
const longLivedMeta: RefreshSchedule = {
  margin: 10 * DAY,
  every: 50 * DAY,
  minAge: DAY,
  needs: accessToken,
  refusalEndsToken: true,
};

export const REFRESH_SCHEDULES: Partial<Record<Platform, RefreshSchedule>> = {
  instagram: longLivedMeta,
  threads: longLivedMeta,
  // 60-day access tokens, 365-day refresh tokens (programmatic refresh for approved apps).
  linkedin: { margin: 10 * DAY, every: 50 * DAY, minAge: 0, needs: refreshToken },
  "linkedin-page": { margin: 10 * DAY, every: 50 * DAY, minAge: 0, needs: refreshToken },
  // 30-day access tokens; continuous refresh tokens of 60 days, renewed (a new one) by every refresh, so a refresh
  // every 25 days keeps the account alive indefinitely (developers.pinterest.com/docs/getting-started/scopes/).
  pinterest: { margin: 5 * DAY, every: 25 * DAY, minAge: 0, needs: refreshToken },
  // 2-hour access tokens, 180-day refresh tokens that rotate on every use (TikTok, November 2026).
  tiktok: { margin: 20 * MINUTE, every: 100 * MINUTE, minAge: 0, needs: refreshToken },
  // 2-hour access tokens; the refresh token rotates on every use.
  x: { margin: 20 * MINUTE, every: 100 * MINUTE, minAge: 0, needs: refreshToken },
  // 1-hour Google access tokens; an unused refresh token lapses after months (days for apps in testing).
  youtube: { margin: 10 * MINUTE, every: 50 * MINUTE, minAge: 0, needs: refreshToken },
  // ~2-hour access JWT; refreshSession, or a new session from the stored app password.
  bluesky: {
    margin: 15 * MINUTE,
    every: 90 * MINUTE,
    minAge: 0,
    needs: (c) => Boolean(c.refresh_jwt || (c.identifier && c.app_password)),
  },
};

/** Platforms the refresh cron looks at. */
export const PROACTIVE_REFRESH_PLATFORMS = Object.keys(REFRESH_SCHEDULES);

/** After a transient failure the cron tries again this much later (or after the network's hint, if longer). */
export const REFRESH_RETRY_MS = 15 * MINUTE;
/** An account the cron cannot refresh (no refresh token) is looked at again this much later. */
export const REFRESH_RECHECK_MS = 7 * DAY;
/** No token is refreshed again sooner than this after a refresh (a network answering a very short expiry). */
const MIN_GAP_MS = 5 * MINUTE;

/**
 * When the cron should next refresh a token obtained at `obtainedAt` that expires at `expiresAt` (null: unknown
 * or never). Never earlier than the network's minimum age; `refreshed`: the token was just obtained by a refresh,
 * so the next one waits at least a few minutes whatever the expiry.
 */
export function nextRefreshAt(
  schedule: RefreshSchedule,
  expiresAt: number | null,
  obtainedAt: number,
  refreshed = false,
): number {
  const planned = expiresAt !== null ? expiresAt - schedule.margin : obtainedAt + schedule.every;
  let at = Math.max(planned, obtainedAt + schedule.minAge);
  // A token connected close to its expiry: the age rule counts from the connection (its real age is unknown),
  // so rather than wait past the expiry, try an hour before it.
  if (expiresAt !== null && at > expiresAt - HOUR) at = Math.max(planned, expiresAt - HOUR);
  return refreshed ? Math.max(at, obtainedAt + MIN_GAP_MS) : at;
}
