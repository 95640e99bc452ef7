import { platformFetch, readJson } from "../http";
import { type AdapterAccount, type AdapterContext, PlatformError, type RefreshedCredentials } from "../types";
import { graphError } from "./errors";
import type { GraphErrorBody, RefreshTokenResponse } from "./types";

/**
 * Long-lived token refresh of Instagram Login (`ig_refresh_token`) and Threads (`th_refresh_token`):
 * `GET {host}/refresh_access_token?grant_type=…&access_token=<long-lived>` → `{access_token, token_type, expires_in}`.
 * The current token is the grant (it goes in the query, as the endpoint requires). A refusal is kind "auth";
 * throttles and 5xx stay transient.
 */
export async function refreshLongLivedToken(
  ctx: AdapterContext,
  account: AdapterAccount,
  opts: { label: string; host: string; grantType: "ig_refresh_token" | "th_refresh_token" },
): Promise<RefreshedCredentials> {
  const token = account.credentials.access_token;
  if (!token) throw new PlatformError("auth", `The ${opts.label} account has no access token to refresh.`);
  const qs = new URLSearchParams({ grant_type: opts.grantType, access_token: token });
  const res = await platformFetch(ctx.fetch, opts.label, `${opts.host}/refresh_access_token?${qs}`);
  const body = await readJson<RefreshTokenResponse & GraphErrorBody>(res);
  if (!res.ok || !body?.access_token) {
    const err = graphError(opts.label, res, body, [token]);
    if (err.kind === "transient") throw err;
    throw new PlatformError("auth", err.message, { status: res.status });
  }
  const expiresAt = typeof body.expires_in === "number" ? ctx.now() + body.expires_in * 1000 : null;
  return {
    credentials: { ...account.credentials, access_token: body.access_token, expires_at: expiresAt },
    expiresAt,
  };
}
