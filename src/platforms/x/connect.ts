import {
  basicAuth,
  buildUrl,
  exchangeCode,
  expiresAtFrom,
  getJson,
  type PlatformConnector,
  splitScopes,
} from "../connect";
import { registerConnector } from "../registry";

/**
 * X OAuth 2.0 Authorization Code with PKCE (S256 required; "OAuth 2.0 Authorization Code Flow with PKCE",
 * https://docs.x.com/resources/fundamentals/authentication/oauth-2-0/authorization-code, checked 2026-11-27);
 * confidential client → Basic auth at the token endpoint.
 */
const SCOPES = ["tweet.read", "tweet.write", "users.read", "media.write", "offline.access"];

export const xConnector: PlatformConnector = {
  platform: "x",
  label: "X",
  pkce: true,
  selection: "single",
  scopes: SCOPES,
  requiredScopes: SCOPES,
  configured: (c) => !!(c.X_CLIENT_ID && c.X_CLIENT_SECRET),
  async authorizeUrl(ctx, input) {
    return buildUrl(`${ctx.config.X_AUTH_URL}/i/oauth2/authorize`, {
      response_type: "code",
      client_id: ctx.config.X_CLIENT_ID,
      redirect_uri: input.redirectUri,
      scope: SCOPES.join(" "),
      state: input.state,
      code_challenge: input.codeChallenge,
      code_challenge_method: "S256",
    });
  },
  async complete(ctx, input) {
    const { config } = ctx;
    const token = await exchangeCode(
      ctx,
      "X",
      `${config.X_API_URL}/2/oauth2/token`,
      {
        grant_type: "authorization_code",
        code: input.code,
        redirect_uri: input.redirectUri,
        code_verifier: input.codeVerifier,
        client_id: config.X_CLIENT_ID,
      },
      { Authorization: basicAuth(config.X_CLIENT_ID ?? "", config.X_CLIENT_SECRET ?? "") },
    );
    const me = await getJson(
      ctx,
      "X",
      `${config.X_API_URL}/2/users/me?user.fields=profile_image_url`,
      token.access_token,
    );
    const user = me.data ?? {};
    const expiresAt = expiresAtFrom(token.expires_in, ctx.now());
    return {
      grantedScopes: splitScopes(token.scope),
      candidates: user.id
        ? [
            {
              platform: "x",
              platformUserId: String(user.id),
              displayName: user.name ?? user.username ?? "X account",
              username: user.username ?? "",
              avatarUrl: user.profile_image_url ?? null,
              credentials: {
                access_token: token.access_token,
                refresh_token: token.refresh_token,
                expires_at: expiresAt,
              },
              tokenExpiresAt: expiresAt,
              meta: {},
            },
          ]
        : [],
    };
  },
};

registerConnector(xConnector);
