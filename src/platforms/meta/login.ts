import type { Config } from "../../config";
import {
  buildUrl,
  type ConnectContext,
  ConnectError,
  connectFetch,
  expiresAtFrom,
  getJson,
  oauthReason,
} from "../connect";

/**
 * Facebook Login (manual flow), shared by the `facebook` and `instagram-facebook` connectors: code → short-lived
 * user token → long-lived user token (`fb_exchange_token`) → the user's Pages with their Page tokens
 * (`/me/accounts`; Page tokens derived from a long-lived user token do not expire) and, per Page, the Instagram
 * business account behind it. Granted permissions come from `/me/permissions` (the token answer has none).
 */
export const facebookConfigured = (c: Config) => !!(c.FACEBOOK_APP_ID && c.FACEBOOK_APP_SECRET);

/**
 * PKCE S256 (issue 25): Facebook Login accepts `code_challenge`/`code_challenge_method` on the dialog and
 * `code_verifier` on `/oauth/access_token` — "OIDC Code Flow with PKCE for Manually Built Facebook Login Flows",
 * https://developers.facebook.com/documentation/facebook-login/guides/advanced/oidc-token (checked 2026-11-27).
 */
export function facebookDialogUrl(
  ctx: ConnectContext,
  input: { redirectUri: string; state: string; codeChallenge: string | null },
  scopes: string[],
) {
  return buildUrl(`${ctx.config.FACEBOOK_AUTH_URL}/${ctx.config.META_GRAPH_API_VERSION}/dialog/oauth`, {
    client_id: ctx.config.FACEBOOK_APP_ID,
    redirect_uri: input.redirectUri,
    state: input.state,
    response_type: "code",
    scope: scopes.join(","),
    code_challenge: input.codeChallenge,
    code_challenge_method: input.codeChallenge ? "S256" : null,
  });
}

/** A Graph GET whose failure means the token exchange failed (the code, app or secret was refused). */
async function tokenCall(ctx: ConnectContext, url: string): Promise<any> {
  const { res, body } = await connectFetch(ctx, "Facebook", url);
  if (!res.ok || !body?.access_token) {
    throw new ConnectError("exchange_failed", `Facebook refused the authorization code: ${oauthReason(body)}.`);
  }
  return body;
}

export interface FacebookPage {
  id: string;
  name?: string;
  username?: string;
  access_token?: string;
  tasks?: string[];
  picture?: { data?: { url?: string } };
  instagram_business_account?: { id: string; username?: string; name?: string; profile_picture_url?: string };
}

export interface FacebookLogin {
  userToken: string;
  userTokenExpiresAt: number | null;
  grantedScopes: string[];
  pages: FacebookPage[];
}

/** Pages fetched per login (one Graph page of results). */
const PAGE_LIMIT = 100;

export async function completeFacebookLogin(
  ctx: ConnectContext,
  code: string,
  redirectUri: string,
  codeVerifier: string | null,
): Promise<FacebookLogin> {
  const { config } = ctx;
  const graph = `${config.FACEBOOK_GRAPH_URL}/${config.META_GRAPH_API_VERSION}`;
  const short = await tokenCall(
    ctx,
    buildUrl(`${graph}/oauth/access_token`, {
      client_id: config.FACEBOOK_APP_ID,
      client_secret: config.FACEBOOK_APP_SECRET,
      redirect_uri: redirectUri,
      code,
      code_verifier: codeVerifier,
    }),
  );
  const long = await tokenCall(
    ctx,
    buildUrl(`${graph}/oauth/access_token`, {
      grant_type: "fb_exchange_token",
      client_id: config.FACEBOOK_APP_ID,
      client_secret: config.FACEBOOK_APP_SECRET,
      fb_exchange_token: short.access_token,
    }),
  );
  const token = long.access_token as string;
  const permissions = await getJson(ctx, "Facebook", `${graph}/me/permissions`, token);
  const grantedScopes = ((permissions.data ?? []) as { permission: string; status: string }[])
    .filter((p) => p.status === "granted")
    .map((p) => p.permission);
  const fields =
    "id,name,username,access_token,tasks,picture{url},instagram_business_account{id,username,name,profile_picture_url}";
  const accounts = await getJson(
    ctx,
    "Facebook",
    buildUrl(`${graph}/me/accounts`, { fields, limit: String(PAGE_LIMIT) }),
    token,
  );
  return {
    userToken: token,
    userTokenExpiresAt: expiresAtFrom(long.expires_in, ctx.now()),
    grantedScopes,
    // A Page without a token (no task on it) cannot be published to.
    pages: ((accounts.data ?? []) as FacebookPage[]).filter((p) => p.id && p.access_token),
  };
}
