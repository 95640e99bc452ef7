import {
  basicAuth,
  buildUrl,
  exchangeCode,
  expiresAtFrom,
  getJson,
  type PlatformConnector,
  refreshExpiresAtFrom,
  splitScopes,
} from "../connect";
import { registerConnector } from "../registry";

/**
 * Pinterest OAuth (v5): Basic client auth at `/v5/oauth/token`; the account from `/v5/user_account`; its boards
 * from `/v5/boards` so the user picks the default board (every Pin needs one). No boards: the account is connected
 * without a default board (a post can still set `board_id`).
 */
const SCOPES = ["boards:read", "pins:read", "pins:write", "user_accounts:read"];
/** Boards offered on the selection page (one API page). */
const BOARD_PAGE_SIZE = 100;

export const pinterestConnector: PlatformConnector = {
  platform: "pinterest",
  label: "Pinterest",
  // No PKCE: Pinterest's OAuth guide documents client_id, redirect_uri, response_type, scope and state, and a token
  // exchange with Basic client auth; no code_challenge
  // (https://developers.pinterest.com/docs/getting-started/set-up-authentication-and-authorization/, checked 2026-11-27).
  pkce: false,
  selection: "one-of",
  scopes: SCOPES,
  requiredScopes: SCOPES,
  configured: (c) => !!(c.PINTEREST_CLIENT_ID && c.PINTEREST_CLIENT_SECRET),
  async authorizeUrl(ctx, input) {
    return buildUrl(`${ctx.config.PINTEREST_AUTH_URL}/oauth/`, {
      client_id: ctx.config.PINTEREST_CLIENT_ID,
      redirect_uri: input.redirectUri,
      response_type: "code",
      scope: SCOPES.join(","),
      state: input.state,
    });
  },
  async complete(ctx, input) {
    const { config } = ctx;
    const token = await exchangeCode(
      ctx,
      "Pinterest",
      `${config.PINTEREST_API_URL}/v5/oauth/token`,
      // Continuous refresh: "Pinterest no longer supports the legacy refresh token (365-day expiration, hard
      // limit)"; apps created before 2025-09-25 must send continuous_refresh=true, later ones have it by default
      // (developers.pinterest.com/docs/getting-started/scopes/, checked 2026-12-07). Sent always: the service
      // does not know when its app was created. The lifetimes are read from the answer (expires_in,
      // refresh_token_expires_in: 30 and 60 days today).
      {
        grant_type: "authorization_code",
        code: input.code,
        redirect_uri: input.redirectUri,
        continuous_refresh: "true",
      },
      { Authorization: basicAuth(config.PINTEREST_CLIENT_ID ?? "", config.PINTEREST_CLIENT_SECRET ?? "") },
    );
    const user = await getJson(ctx, "Pinterest", `${config.PINTEREST_API_URL}/v5/user_account`, token.access_token);
    if (!user.username) return { grantedScopes: splitScopes(token.scope), candidates: [] };
    const boards = await getJson(
      ctx,
      "Pinterest",
      `${config.PINTEREST_API_URL}/v5/boards?page_size=${BOARD_PAGE_SIZE}`,
      token.access_token,
    );
    const expiresAt = expiresAtFrom(token.expires_in, ctx.now());
    const base = {
      platform: "pinterest" as const,
      // `id` is in current user_account answers; the username is unique too and older answers only have it.
      platformUserId: String(user.id ?? user.username),
      displayName: user.business_name || user.username,
      username: user.username,
      avatarUrl: user.profile_image ?? null,
      credentials: {
        access_token: token.access_token,
        refresh_token: token.refresh_token,
        expires_at: expiresAt,
        refresh_expires_at: refreshExpiresAtFrom(token, ctx.now()),
      },
      tokenExpiresAt: expiresAt,
    };
    const items = (boards.items ?? []) as { id: string; name?: string }[];
    return {
      grantedScopes: splitScopes(token.scope),
      candidates: items.length
        ? items.map((b) => ({
            ...base,
            meta: { default_board_id: String(b.id) },
            detail: `Default board: ${b.name ?? b.id}`,
          }))
        : [{ ...base, meta: {} }],
    };
  },
};

registerConnector(pinterestConnector);
