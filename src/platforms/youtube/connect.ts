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
 * Google OAuth 2.0 for web servers with PKCE (S256, supported and recommended:
 * https://developers.google.com/identity/protocols/oauth2/web-server, checked 2026-11-27), offline access (refresh token) and `prompt=consent` so a
 * reconnect gets a fresh refresh token; the channels come from `channels.list?mine=true` (a brand account picked
 * on Google's consent screen shows as its own channel).
 */
const UPLOAD = "https://www.googleapis.com/auth/youtube.upload";
const READONLY = "https://www.googleapis.com/auth/youtube.readonly";
/** Posting first comments (issue 20, `commentThreads.insert`); asked for, not required: without it only comments fail. */
const FORCE_SSL = "https://www.googleapis.com/auth/youtube.force-ssl";
const SCOPES = [UPLOAD, READONLY];

export const youtubeConnector: PlatformConnector = {
  platform: "youtube",
  label: "YouTube",
  pkce: true,
  selection: "many",
  scopes: [...SCOPES, FORCE_SSL],
  requiredScopes: SCOPES,
  configured: (c) => !!(c.GOOGLE_CLIENT_ID && c.GOOGLE_CLIENT_SECRET),
  async authorizeUrl(ctx, input) {
    return buildUrl(`${ctx.config.GOOGLE_AUTH_URL}/o/oauth2/v2/auth`, {
      client_id: ctx.config.GOOGLE_CLIENT_ID,
      redirect_uri: input.redirectUri,
      response_type: "code",
      scope: [...SCOPES, FORCE_SSL].join(" "),
      access_type: "offline",
      prompt: "consent",
      include_granted_scopes: "true",
      state: input.state,
      code_challenge: input.codeChallenge,
      code_challenge_method: "S256",
    });
  },
  async complete(ctx, input) {
    const { config } = ctx;
    const token = await exchangeCode(ctx, "Google", `${config.GOOGLE_OAUTH_URL}/token`, {
      code: input.code,
      client_id: config.GOOGLE_CLIENT_ID,
      client_secret: config.GOOGLE_CLIENT_SECRET,
      redirect_uri: input.redirectUri,
      grant_type: "authorization_code",
      code_verifier: input.codeVerifier,
    });
    const channels = await getJson(
      ctx,
      "YouTube",
      `${config.YOUTUBE_API_URL}/youtube/v3/channels?part=snippet&mine=true&maxResults=50`,
      token.access_token,
    );
    const expiresAt = expiresAtFrom(token.expires_in, ctx.now());
    return {
      grantedScopes: splitScopes(token.scope),
      candidates: ((channels.items ?? []) as any[]).map((ch) => ({
        platform: "youtube" as const,
        platformUserId: String(ch.id),
        displayName: ch.snippet?.title ?? `Channel ${ch.id}`,
        username: ch.snippet?.customUrl ?? String(ch.id),
        avatarUrl: ch.snippet?.thumbnails?.default?.url ?? null,
        credentials: {
          access_token: token.access_token,
          refresh_token: token.refresh_token,
          expires_at: expiresAt,
          refresh_expires_at: refreshExpiresAtFrom(token, ctx.now()),
        },
        tokenExpiresAt: expiresAt,
        meta: { channel_id: String(ch.id) },
        detail: "YouTube channel",
      })),
    };
  },
};

registerConnector(youtubeConnector);
