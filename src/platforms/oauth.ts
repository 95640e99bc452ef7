import type { AccountCredentials } from "../services/social-accounts/credentials";
import { refreshExpiresAtFrom } from "./connect";
import { type AdapterAccount, PlatformError, type RefreshedCredentials } from "./types";

/** The fields every OAuth 2.0 token endpoint answers with. */
export interface OAuthTokenResponse {
  access_token?: string | null;
  refresh_token?: string | null;
  expires_in?: number | null;
  /** LinkedIn, Pinterest, Google (time-based access): seconds the refresh token has left. */
  refresh_token_expires_in?: number | null;
  /** TikTok's name for it. */
  refresh_expires_in?: number | null;
}

/**
 * Maps a successful refresh answer to stored credentials. Platforms re-send a refresh token only when they rotate
 * it (X, TikTok, Pinterest, LinkedIn sometimes; Google rarely): keep the previous one otherwise. Other stored
 * fields (Bluesky sessions, app passwords) are kept as they were.
 */
export function refreshedFromTokenResponse(
  body: OAuthTokenResponse,
  previous: AccountCredentials,
  nowMs: number,
): RefreshedCredentials {
  if (!body.access_token) throw new PlatformError("auth", "The token endpoint answered without an access token.");
  const expiresAt = typeof body.expires_in === "number" && body.expires_in > 0 ? nowMs + body.expires_in * 1000 : null;
  return {
    credentials: {
      ...previous,
      access_token: body.access_token,
      refresh_token: body.refresh_token || previous.refresh_token,
      expires_at: expiresAt,
      // The refresh token's own end as the answer gives it (a rotated token brings a new one; LinkedIn re-sends
      // what is left of the same one); kept when the answer does not say.
      refresh_expires_at: refreshExpiresAtFrom(body, nowMs) ?? previous.refresh_expires_at,
    },
    expiresAt,
  };
}

/** The account's stored token, or an `auth` failure naming the platform (a reconnect is the fix). */
export function requireToken(account: AdapterAccount, kind: "access" | "refresh", label: string): string {
  const token = kind === "access" ? account.credentials.access_token : account.credentials.refresh_token;
  if (!token) throw new PlatformError("auth", `The ${label} account has no ${kind} token.`);
  return token;
}
