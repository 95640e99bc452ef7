import { buildUrl, exchangeCode, getJson, type PlatformConnector } from "../connect";
import { exchangeForLongLivedToken } from "../meta/long-lived";
import { registerConnector } from "../registry";

/**
 * Threads (its own app id/secret): code → short-lived token (1 h) → long-lived (`th_exchange_token`, 60 days).
 * The token answers do not list granted permissions, so the scope check cannot run up front here: `/me` proves
 * `threads_basic`, and a missing `threads_content_publish` shows as a publish failure naming it.
 */
/**
 * Replies (issue 20 thread items and first comments): `threads_manage_replies` for posting them,
 * `threads_read_replies` for finding one whose answer was lost (`GET /{user}/replies`).
 */
const SCOPES = [
  "threads_basic",
  "threads_content_publish",
  "threads_manage_insights",
  "threads_manage_replies",
  "threads_read_replies",
];

export const threadsConnector: PlatformConnector = {
  platform: "threads",
  label: "Threads",
  // No PKCE: the Authorization Window takes client_id, redirect_uri, scope, response_type and state only
  // (https://developers.facebook.com/documentation/threads/get-started/get-access-tokens-and-permissions,
  // checked 2026-11-27).
  pkce: false,
  selection: "single",
  scopes: SCOPES,
  requiredScopes: ["threads_basic", "threads_content_publish"],
  configured: (c) => !!(c.THREADS_APP_ID && c.THREADS_APP_SECRET),
  async authorizeUrl(ctx, input) {
    return buildUrl(`${ctx.config.THREADS_AUTH_URL}/oauth/authorize`, {
      client_id: ctx.config.THREADS_APP_ID,
      redirect_uri: input.redirectUri,
      scope: SCOPES.join(","),
      response_type: "code",
      state: input.state,
    });
  },
  async complete(ctx, input) {
    const { config } = ctx;
    const short = await exchangeCode(ctx, "Threads", `${config.THREADS_GRAPH_URL}/oauth/access_token`, {
      client_id: config.THREADS_APP_ID,
      client_secret: config.THREADS_APP_SECRET,
      grant_type: "authorization_code",
      redirect_uri: input.redirectUri,
      code: input.code,
    });
    const long = await exchangeForLongLivedToken(ctx, {
      label: "Threads",
      graphUrl: config.THREADS_GRAPH_URL,
      grantType: "th_exchange_token",
      clientSecret: config.THREADS_APP_SECRET,
      shortLivedToken: short.access_token,
    });
    const me = await getJson(
      ctx,
      "Threads",
      `${config.THREADS_GRAPH_URL}/${config.THREADS_API_VERSION}/me?fields=id,username,name,threads_profile_picture_url`,
      long.accessToken,
    );
    const id = me.id ?? short.user_id;
    return {
      grantedScopes: null,
      candidates: id
        ? [
            {
              platform: "threads" as const,
              platformUserId: String(id),
              displayName: me.name || me.username || "Threads account",
              username: me.username ?? "",
              avatarUrl: me.threads_profile_picture_url ?? null,
              credentials: { access_token: long.accessToken, expires_at: long.expiresAt },
              tokenExpiresAt: long.expiresAt,
              meta: {},
            },
          ]
        : [],
    };
  },
};

registerConnector(threadsConnector);
