import type { PlatformConnector } from "../connect";
import { completeFacebookLogin, facebookConfigured, facebookDialogUrl } from "../meta/login";
import { registerConnector } from "../registry";

/** Facebook Pages: one login, every Page the user manages is offered; each picked Page keeps its Page token. */
const SCOPES = [
  "pages_show_list",
  "pages_read_engagement",
  "pages_manage_posts",
  "read_insights",
  "business_management",
  // First comments as the Page (issue 20); asked, not required: without it only the comment fails.
  "pages_manage_engagement",
];

export const facebookConnector: PlatformConnector = {
  platform: "facebook",
  label: "Facebook Page",
  // Supported by Facebook Login (src/platforms/meta/login.ts cites the page).
  pkce: true,
  selection: "many",
  scopes: SCOPES,
  requiredScopes: ["pages_show_list", "pages_read_engagement", "pages_manage_posts"],
  configured: facebookConfigured,
  authorizeUrl: async (ctx, input) => facebookDialogUrl(ctx, input, SCOPES),
  async complete(ctx, input) {
    const login = await completeFacebookLogin(ctx, input.code, input.redirectUri, input.codeVerifier);
    return {
      grantedScopes: login.grantedScopes,
      candidates: login.pages.map((page) => ({
        platform: "facebook" as const,
        platformUserId: page.id,
        displayName: page.name ?? `Page ${page.id}`,
        username: page.username ?? page.id,
        avatarUrl: page.picture?.data?.url ?? null,
        credentials: { access_token: page.access_token, expires_at: null },
        tokenExpiresAt: null,
        meta: { page_id: page.id },
        detail: "Facebook Page",
      })),
    };
  },
};

registerConnector(facebookConnector);
