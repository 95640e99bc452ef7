import { buildUrl, type ConnectContext, ConnectError, connectFetch, expiresAtFrom, oauthReason } from "../connect";

/**
 * The short-lived → long-lived token exchange of the two Meta logins that have apps of their own: Instagram API with
 * Instagram Login (`ig_exchange_token`) and Threads (`th_exchange_token`). Both are
 * `GET {graph}/access_token?grant_type=…&client_secret=…&access_token=<short-lived>` → `{access_token, token_type,
 * expires_in}` (60 days); the long-lived token is then refreshed by src/platforms/meta/refresh.ts. Facebook Login's
 * exchange (`fb_exchange_token`) is another call — `/oauth/access_token` with the client id — in ./login.ts.
 */
export async function exchangeForLongLivedToken(
  ctx: ConnectContext,
  opts: {
    label: "Instagram" | "Threads";
    graphUrl: string;
    grantType: "ig_exchange_token" | "th_exchange_token";
    clientSecret: string | undefined;
    shortLivedToken: string;
  },
): Promise<{ accessToken: string; expiresAt: number | null }> {
  const { res, body } = await connectFetch(
    ctx,
    opts.label,
    buildUrl(`${opts.graphUrl}/access_token`, {
      grant_type: opts.grantType,
      client_secret: opts.clientSecret,
      access_token: opts.shortLivedToken,
    }),
  );
  if (!res.ok || !body?.access_token) {
    throw new ConnectError("exchange_failed", `${opts.label} refused the token exchange: ${oauthReason(body)}.`);
  }
  return { accessToken: body.access_token, expiresAt: expiresAtFrom(body.expires_in, ctx.now()) };
}
