import { buildUrl, exchangeCode, getJson, type PlatformConnector, splitScopes } from "../connect";
import { completeFacebookLogin, facebookConfigured, facebookDialogUrl } from "../meta/login";
import { exchangeForLongLivedToken } from "../meta/long-lived";
import { registerConnector } from "../registry";

/**
 * Instagram via Facebook Login (`instagram-facebook`): the Instagram business accounts behind the user's Pages,
 * each published with its Page's token. Instagram API with Instagram Login (`instagram`): Business Login for
 * Instagram (its own app id/secret), short-lived token → long-lived (`ig_exchange_token`, 60 days).
 */
const FB_SCOPES = [
  "instagram_basic",
  "instagram_content_publish",
  "instagram_manage_insights",
  "pages_show_list",
  "pages_read_engagement",
  "business_management",
  // First comments (issue 20); asked, not required: without it only the comment fails.
  "instagram_manage_comments",
];

export const instagramFacebookConnector: PlatformConnector = {
  platform: "instagram-facebook",
  label: "Instagram (via Facebook)",
  // Facebook Login, which supports PKCE (src/platforms/meta/login.ts cites the page).
  pkce: true,
  selection: "many",
  scopes: FB_SCOPES,
  requiredScopes: ["instagram_basic", "instagram_content_publish", "pages_show_list"],
  configured: facebookConfigured,
  authorizeUrl: async (ctx, input) => facebookDialogUrl(ctx, input, FB_SCOPES),
  async complete(ctx, input) {
    const login = await completeFacebookLogin(ctx, input.code, input.redirectUri, input.codeVerifier);
    return {
      grantedScopes: login.grantedScopes,
      candidates: login.pages
        .filter((page) => page.instagram_business_account?.id)
        .map((page) => {
          const ig = page.instagram_business_account!;
          return {
            platform: "instagram-facebook" as const,
            platformUserId: ig.id,
            displayName: ig.name || ig.username || `Instagram ${ig.id}`,
            username: ig.username ?? ig.id,
            avatarUrl: ig.profile_picture_url ?? null,
            credentials: { access_token: page.access_token, expires_at: null },
            tokenExpiresAt: null,
            meta: { page_id: page.id },
            detail: `Instagram business account of the Page ${page.name ?? page.id}`,
          };
        }),
    };
  },
};

const IG_SCOPES = [
  "instagram_business_basic",
  "instagram_business_content_publish",
  "instagram_business_manage_insights",
  // First comments (issue 20); asked, not required: without it only the comment fails.
  "instagram_business_manage_comments",
];

export const instagramConnector: PlatformConnector = {
  platform: "instagram",
  label: "Instagram",
  // No PKCE: the Authorization Window takes client_id, redirect_uri, response_type, scope and state only
  // (https://developers.facebook.com/documentation/instagram-platform/reference/oauth-authorize, checked 2026-11-27).
  pkce: false,
  selection: "single",
  scopes: IG_SCOPES,
  requiredScopes: ["instagram_business_basic", "instagram_business_content_publish"],
  configured: (c) => !!(c.INSTAGRAM_APP_ID && c.INSTAGRAM_APP_SECRET),
  async authorizeUrl(ctx, input) {
    return buildUrl(`${ctx.config.INSTAGRAM_AUTH_URL}/oauth/authorize`, {
      client_id: ctx.config.INSTAGRAM_APP_ID,
      redirect_uri: input.redirectUri,
      response_type: "code",
      scope: IG_SCOPES.join(","),
      state: input.state,
    });
  },
  async complete(ctx, input) {
    const { config } = ctx;
    const short = await exchangeCode(ctx, "Instagram", `${config.INSTAGRAM_OAUTH_URL}/oauth/access_token`, {
      client_id: config.INSTAGRAM_APP_ID,
      client_secret: config.INSTAGRAM_APP_SECRET,
      grant_type: "authorization_code",
      redirect_uri: input.redirectUri,
      code: input.code,
    });
    // Current answers wrap the token in `data[0]`; older ones were flat.
    const grant = short.data?.[0] ?? short;
    const long = await exchangeForLongLivedToken(ctx, {
      label: "Instagram",
      graphUrl: config.INSTAGRAM_GRAPH_URL,
      grantType: "ig_exchange_token",
      clientSecret: config.INSTAGRAM_APP_SECRET,
      shortLivedToken: grant.access_token,
    });
    const me = await getJson(
      ctx,
      "Instagram",
      `${config.INSTAGRAM_GRAPH_URL}/${config.META_GRAPH_API_VERSION}/me?fields=user_id,username,name,profile_picture_url`,
      long.accessToken,
    );
    const id = me.user_id ?? grant.user_id;
    return {
      grantedScopes: splitScopes(grant.permissions),
      candidates: id
        ? [
            {
              platform: "instagram" as const,
              platformUserId: String(id),
              displayName: me.name || me.username || "Instagram account",
              username: me.username ?? "",
              avatarUrl: me.profile_picture_url ?? null,
              credentials: { access_token: long.accessToken, expires_at: long.expiresAt },
              tokenExpiresAt: long.expiresAt,
              meta: {},
            },
          ]
        : [],
    };
  },
};

registerConnector(instagramFacebookConnector);
registerConnector(instagramConnector);
