import { AppError } from "../../lib/errors";
import type { AccountCredentials } from "./credentials";

/**
 * Bluesky and Mastodon accounts are verified against their own server when connected (decisions §4).
 * Failures are the caller's input problem: 422 on the credentials field.
 */
const invalid = (field: string, message: string) =>
  new AppError("validation", message, { errors: { [field]: [message] } });

async function safeFetch(url: string, init: RequestInit): Promise<Response | null> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  } catch {
    return null;
  }
}

export async function verifyBluesky(service: string, identifier: string, appPassword: string) {
  const res = await safeFetch(`${service}/xrpc/com.atproto.server.createSession`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ identifier, password: appPassword }),
  });
  if (!res) throw invalid("meta.service", "The Bluesky server could not be reached.");
  if (!res.ok) throw invalid("credentials", "Bluesky rejected the identifier or app password.");
  const body = (await res.json()) as { did?: string; handle?: string; accessJwt?: string; refreshJwt?: string };
  if (!body.did || !body.accessJwt || !body.refreshJwt)
    throw invalid("credentials", "Bluesky returned an unexpected session.");
  const creds: AccountCredentials = {
    identifier,
    app_password: appPassword,
    access_jwt: body.accessJwt,
    refresh_jwt: body.refreshJwt,
  };
  return { did: body.did, handle: body.handle ?? identifier, credentials: creds };
}

export async function verifyMastodon(instance: string, accessToken: string) {
  const res = await safeFetch(`${instance}/api/v1/accounts/verify_credentials`, {
    headers: { Authorization: `Bearer ${accessToken}`, Accept: "application/json" },
  });
  if (!res) throw invalid("meta.instance", "The Mastodon instance could not be reached.");
  if (!res.ok) throw invalid("credentials.access_token", "The Mastodon instance rejected the access token.");
  const body = (await res.json()) as {
    id?: string;
    username?: string;
    acct?: string;
    display_name?: string;
    avatar?: string;
  };
  if (!body.id) throw invalid("credentials.access_token", "The Mastodon instance returned an unexpected account.");
  return {
    id: body.id,
    username: body.acct ?? body.username ?? "",
    displayName: body.display_name ?? "",
    avatar: body.avatar ?? null,
  };
}
