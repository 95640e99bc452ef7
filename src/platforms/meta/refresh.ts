import { platformFetch, readJson } from "../http";
import { type AdapterAccount, type AdapterContext, PlatformError, type RefreshedCredentials } from "../types";
import { graphError } from "./errors";
import type { GraphClient } from "./graph";
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

/**
 * Facebook Login tokens (Facebook Pages, Instagram via Facebook Login) have no refresh grant, and a Page token
 * obtained from a long-lived user token does not expire at all — so a stored `expires_at` (often the user
 * token's) says nothing. "Refreshing" one asks Graph whether the token still works (`GET /me?fields=id`): if it
 * does, the same token is kept with no expiry; only Graph's refusal (code 190 and the other session codes) ends
 * the session. Any other failure is transient: a check that could not be made never disconnects an account.
 */
export async function verifyGraphToken(graph: GraphClient, account: AdapterAccount): Promise<RefreshedCredentials> {
  try {
    await graph.get<{ id?: string }>("/me", { fields: "id" });
  } catch (err) {
    if (err instanceof PlatformError && err.kind !== "auth" && err.kind !== "transient") {
      throw new PlatformError("transient", `${graph.label} could not confirm the token: ${err.message}`, {
        status: err.status,
      });
    }
    throw err;
  }
  return { credentials: { ...account.credentials, expires_at: null }, expiresAt: null };
}
