import {
  buildUrl,
  type ConnectContext,
  ConnectError,
  type ConnectOutcome,
  connectFetch,
  exchangeCode,
  expiresAtFrom,
  getJson,
  type PlatformConnector,
  refreshExpiresAtFrom,
  splitScopes,
} from "../connect";
import { registerConnector } from "../registry";
import { RESTLI_PROTOCOL_VERSION } from "./api";

/**
 * LinkedIn 3-legged OAuth. No PKCE: LinkedIn offers it only to native apps with loopback redirect URIs, enabled on
 * request (https://learn.microsoft.com/en-us/linkedin/shared/authentication/authorization-code-flow-native, checked
 * 2026-11-27); a web app's flow has no code_challenge. `linkedin` connects the member (OpenID `userinfo`);
 * `linkedin-page` asks for the organization scopes too and offers every organization the member administers
 * (`/rest/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED`), one account each.
 */
const MEMBER_SCOPES = ["openid", "profile", "w_member_social"];
const PAGE_SCOPES = [...MEMBER_SCOPES, "w_organization_social", "r_organization_social", "rw_organization_admin"];
/** Organizations looked up per login; a member administering more picks among the first ones. */
const MAX_ORGANIZATIONS = 50;

async function exchange(ctx: ConnectContext, code: string, redirectUri: string) {
  const { config } = ctx;
  return exchangeCode(ctx, "LinkedIn", `${config.LINKEDIN_OAUTH_URL}/oauth/v2/accessToken`, {
    grant_type: "authorization_code",
    code,
    redirect_uri: redirectUri,
    client_id: config.LINKEDIN_CLIENT_ID,
    client_secret: config.LINKEDIN_CLIENT_SECRET,
  });
}

function credentialsOf(token: any, nowMs: number) {
  const expiresAt = expiresAtFrom(token.expires_in, nowMs);
  return {
    credentials: {
      access_token: token.access_token,
      refresh_token: token.refresh_token,
      expires_at: expiresAt,
      refresh_expires_at: token.refresh_token ? refreshExpiresAtFrom(token, nowMs) : undefined,
    },
    tokenExpiresAt: expiresAt,
  };
}

function authorize(scopes: string[]): PlatformConnector["authorizeUrl"] {
  return async (ctx, input) =>
    buildUrl(`${ctx.config.LINKEDIN_OAUTH_URL}/oauth/v2/authorization`, {
      response_type: "code",
      client_id: ctx.config.LINKEDIN_CLIENT_ID,
      redirect_uri: input.redirectUri,
      scope: scopes.join(" "),
      state: input.state,
    });
}

const configured: PlatformConnector["configured"] = (c) => !!(c.LINKEDIN_CLIENT_ID && c.LINKEDIN_CLIENT_SECRET);

export const linkedinConnector: PlatformConnector = {
  platform: "linkedin",
  label: "LinkedIn",
  pkce: false,
  selection: "single",
  scopes: MEMBER_SCOPES,
  requiredScopes: MEMBER_SCOPES,
  configured,
  authorizeUrl: authorize(MEMBER_SCOPES),
  async complete(ctx, input): Promise<ConnectOutcome> {
    const token = await exchange(ctx, input.code, input.redirectUri);
    const me = await getJson(ctx, "LinkedIn", `${ctx.config.LINKEDIN_API_URL}/v2/userinfo`, token.access_token);
    if (!me.sub) return { grantedScopes: splitScopes(token.scope), candidates: [] };
    return {
      grantedScopes: splitScopes(token.scope),
      candidates: [
        {
          platform: "linkedin",
          platformUserId: String(me.sub),
          displayName: me.name ?? [me.given_name, me.family_name].filter(Boolean).join(" ") ?? "LinkedIn member",
          // No handle: LinkedIn's OpenID userinfo holds the member's id (`sub`), name, picture and — with the `email`
          // scope, which we do not ask for — the email address ("profile: Required to retrieve the member's lite
          // profile including their id, name, and profile picture. email: Required to retrieve the member's email
          // address.", learn.microsoft.com/linkedin/consumer/integrations/self-serve/sign-in-with-linkedin-v2). An
          // email is not a handle and must not be shown as one (issue 35): the username stays empty.
          username: "",
          avatarUrl: me.picture ?? null,
          meta: {},
          ...credentialsOf(token, ctx.now()),
        },
      ],
    };
  },
};

const restHeaders = (ctx: ConnectContext, token: string) => ({
  Authorization: `Bearer ${token}`,
  Accept: "application/json",
  "LinkedIn-Version": ctx.config.LINKEDIN_API_VERSION,
  "X-Restli-Protocol-Version": RESTLI_PROTOCOL_VERSION,
});

async function restGet(ctx: ConnectContext, url: string, token: string): Promise<any> {
  // connectFetch: network failures are network_error and the answer is read bounded.
  const { res, body } = await connectFetch(ctx, "LinkedIn", url, { headers: restHeaders(ctx, token) });
  if (!res.ok) {
    throw new ConnectError(
      "network_error",
      `LinkedIn did not list the organizations: ${body?.message ?? `HTTP ${res.status}`}.`,
    );
  }
  return body ?? {};
}

export const linkedinPageConnector: PlatformConnector = {
  platform: "linkedin-page",
  label: "LinkedIn Page",
  pkce: false,
  selection: "many",
  scopes: PAGE_SCOPES,
  requiredScopes: ["w_organization_social", "r_organization_social", "rw_organization_admin"],
  configured,
  authorizeUrl: authorize(PAGE_SCOPES),
  async complete(ctx, input): Promise<ConnectOutcome> {
    const token = await exchange(ctx, input.code, input.redirectUri);
    const api = ctx.config.LINKEDIN_API_URL;
    const acls = await restGet(
      ctx,
      `${api}/rest/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED&count=${MAX_ORGANIZATIONS}`,
      token.access_token,
    );
    const ids = [
      ...new Set(
        ((acls.elements ?? []) as { organization?: string }[])
          .map((e) => /^urn:li:organization:(\d+)$/.exec(e.organization ?? "")?.[1])
          .filter((id): id is string => !!id),
      ),
    ].slice(0, MAX_ORGANIZATIONS);
    const creds = credentialsOf(token, ctx.now());
    const candidates = [];
    for (const id of ids) {
      const org = await restGet(ctx, `${api}/rest/organizations/${id}`, token.access_token);
      candidates.push({
        platform: "linkedin-page" as const,
        platformUserId: id,
        displayName: org.localizedName ?? `Organization ${id}`,
        username: org.vanityName ?? id,
        avatarUrl: null,
        meta: { organization_id: id },
        detail: "LinkedIn Page",
        ...creds,
      });
    }
    return { grantedScopes: splitScopes(token.scope), candidates };
  },
};

registerConnector(linkedinConnector);
registerConnector(linkedinPageConnector);
