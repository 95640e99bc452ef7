import {
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
 * TikTok Login Kit v2 with PKCE (S256, required for web: https://developers.tiktok.com/doc/login-kit-web, checked
 * 2026-11-27): `client_key` (not client_id), comma-separated scopes, token answer with
 * `open_id` and `scope`; errors `{error, error_description, log_id}`. Profile from `/v2/user/info/`.
 */
const SCOPES = ["user.info.basic", "user.info.profile", "video.publish", "video.upload"];

export const tiktokConnector: PlatformConnector = {
  platform: "tiktok",
  label: "TikTok",
  pkce: true,
  selection: "single",
  scopes: SCOPES,
  requiredScopes: ["user.info.basic", "video.publish"],
  configured: (c) => !!(c.TIKTOK_CLIENT_KEY && c.TIKTOK_CLIENT_SECRET),
  async authorizeUrl(ctx, input) {
    return buildUrl(`${ctx.config.TIKTOK_AUTH_URL}/v2/auth/authorize/`, {
      client_key: ctx.config.TIKTOK_CLIENT_KEY,
      response_type: "code",
      scope: SCOPES.join(","),
      redirect_uri: input.redirectUri,
      state: input.state,
      code_challenge: input.codeChallenge,
      code_challenge_method: "S256",
    });
  },
  async complete(ctx, input) {
    const { config } = ctx;
    const token = await exchangeCode(ctx, "TikTok", `${config.TIKTOK_API_URL}/v2/oauth/token/`, {
      client_key: config.TIKTOK_CLIENT_KEY,
      client_secret: config.TIKTOK_CLIENT_SECRET,
      code: input.code,
      grant_type: "authorization_code",
      redirect_uri: input.redirectUri,
      code_verifier: input.codeVerifier,
    });
    const info = await getJson(
      ctx,
      "TikTok",
      `${config.TIKTOK_API_URL}/v2/user/info/?fields=open_id,union_id,avatar_url,display_name,username`,
      token.access_token,
    );
    const user = info.data?.user ?? {};
    const id = user.open_id ?? token.open_id;
    const expiresAt = expiresAtFrom(token.expires_in, ctx.now());
    return {
      grantedScopes: splitScopes(token.scope),
      candidates: id
        ? [
            {
              platform: "tiktok" as const,
              platformUserId: String(id),
              displayName: user.display_name || user.username || "TikTok account",
              username: user.username ?? "",
              avatarUrl: user.avatar_url ?? null,
              credentials: {
                access_token: token.access_token,
                refresh_token: token.refresh_token,
                expires_at: expiresAt,
                refresh_expires_at: refreshExpiresAtFrom(token, ctx.now()),
              },
              tokenExpiresAt: expiresAt,
              meta: {},
            },
          ]
        : [],
    };
  },
};

registerConnector(tiktokConnector);
