import { outboundRefusal } from "../../lib/outbound-guard";
import { fetchMastodonLimits, limitsMeta } from "../../services/social-accounts/mastodon-instance";
import { verifyMastodon } from "../../services/social-accounts/verify-account";
import {
  buildUrl,
  type ConnectContext,
  ConnectError,
  connectFetch,
  exchangeCode,
  type OAuthClient,
  oauthReason,
  type PlatformConnector,
  splitScopes,
} from "../connect";
import { registerConnector } from "../registry";

/**
 * Mastodon: every instance is its own OAuth server. Our app registers itself once per instance and callback URL
 * (`POST /api/v1/apps`, cached in D1 by the service), then the code flow runs with PKCE S256 (Mastodon 4.3+; older
 * instances ignore it). Tokens do not expire. Like a manual connect, the instance's own status limits
 * (`GET /api/v2/instance`) are read and kept on the account's meta; unreadable → the catalog's defaults.
 */
const SCOPES = ["read", "write:statuses", "write:media"];

async function appFor(ctx: ConnectContext, instance: string, redirectUri: string): Promise<OAuthClient> {
  const cached = await ctx.apps.get(instance, redirectUri);
  if (cached) return cached;
  const { res, body } = await connectFetch(
    ctx,
    "The Mastodon instance",
    `${instance}/api/v1/apps`,
    {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({
        client_name: "Edge Social Publisher",
        redirect_uris: redirectUri,
        scopes: SCOPES.join(" "),
        website: ctx.config.PUBLIC_URL || undefined,
      }),
    },
    { userChosenHost: true },
  );
  if (!res.ok || !body?.client_id || !body?.client_secret) {
    throw new ConnectError("network_error", `The Mastodon instance refused to register the app: ${oauthReason(body)}.`);
  }
  const client = { clientId: String(body.client_id), clientSecret: String(body.client_secret) };
  await ctx.apps.put(instance, redirectUri, client);
  return client;
}

function requireInstance(ctx: ConnectContext, instance: string | null): string {
  if (!instance) throw new ConnectError("invalid_state", "The Mastodon instance is missing.");
  const refusal = outboundRefusal(new URL(instance), ctx.outbound);
  if (refusal) throw new ConnectError("network_error", `The Mastodon instance cannot be used: ${refusal}`);
  return instance;
}

export const mastodonConnector: PlatformConnector = {
  platform: "mastodon",
  label: "Mastodon",
  pkce: true,
  selection: "single",
  scopes: SCOPES,
  requiredScopes: SCOPES,
  needsInstance: true,
  configured: () => true,
  async authorizeUrl(ctx, input) {
    const instance = requireInstance(ctx, input.instance);
    const app = await appFor(ctx, instance, input.redirectUri);
    return buildUrl(`${instance}/oauth/authorize`, {
      response_type: "code",
      client_id: app.clientId,
      redirect_uri: input.redirectUri,
      scope: SCOPES.join(" "),
      state: input.state,
      code_challenge: input.codeChallenge,
      code_challenge_method: "S256",
    });
  },
  async complete(ctx, input) {
    const instance = requireInstance(ctx, input.instance);
    const app = await appFor(ctx, instance, input.redirectUri);
    const token = await exchangeCode(
      ctx,
      "The Mastodon instance",
      `${instance}/oauth/token`,
      {
        grant_type: "authorization_code",
        code: input.code,
        client_id: app.clientId,
        client_secret: app.clientSecret,
        redirect_uri: input.redirectUri,
        code_verifier: input.codeVerifier,
      },
      {},
      { userChosenHost: true },
    );
    let account: Awaited<ReturnType<typeof verifyMastodon>>;
    try {
      account = await verifyMastodon(ctx.outbound, instance, token.access_token);
    } catch {
      throw new ConnectError("network_error", "The Mastodon instance did not return the account.");
    }
    const limits = await fetchMastodonLimits(ctx.outbound, instance, ctx.fetch);
    const host = new URL(instance).host;
    return {
      grantedScopes: splitScopes(token.scope),
      candidates: [
        {
          platform: "mastodon" as const,
          platformUserId: account.id,
          displayName: account.displayName || account.username,
          username: account.username.includes("@") ? account.username : `${account.username}@${host}`,
          avatarUrl: account.avatar,
          credentials: { access_token: token.access_token },
          tokenExpiresAt: null,
          meta: { instance, ...(limits ? limitsMeta(limits, ctx.now()) : {}) },
          // The account is its id AT this instance: the same id elsewhere is another account (issue 25).
          server: new URL(instance).origin,
        },
      ],
    };
  },
};

registerConnector(mastodonConnector);
