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
 *
 * The challenge is NOT RFC 7636's base64url: TikTok's Login Kit ("Code Verifier and Code Challenge",
 * https://developers.tiktok.com/doc/login-kit-desktop, checked 2026-12-07) says "You must use hex encoding of SHA256
 * to generate the code challenge" — `code_challenge = hex(SHA256(code_verifier))`, 64 lowercase hex digits. A
 * base64url challenge passes the consent page and then fails the token exchange with "Code verifier or code
 * challenge is invalid." (issue 35). The connect service hands every connector the RFC 7636 form; TikTok's is the
 * same digest re-encoded (tiktokChallenge).
 */
/** RFC 7636 S256 challenge (base64url of the SHA-256 digest) → TikTok's: the same 32 bytes in lowercase hex. */
export function tiktokChallenge(base64UrlChallenge: string): string {
  const b64 = base64UrlChallenge.replace(/-/g, "+").replace(/_/g, "/");
  const bytes = atob(b64.padEnd(Math.ceil(b64.length / 4) * 4, "="));
  let hex = "";
  for (let i = 0; i < bytes.length; i++) hex += bytes.charCodeAt(i).toString(16).padStart(2, "0");
  return hex;
}

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
      code_challenge: input.codeChallenge ? tiktokChallenge(input.codeChallenge) : null,
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
