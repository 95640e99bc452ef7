import { AppError } from "../../lib/errors";
import { guardedFetch, type OutboundPolicy, OutboundRefusedError, readGuardedJson } from "../../lib/outbound-guard";
import type { AccountCredentials } from "./credentials";

/**
 * Bluesky and Mastodon accounts are verified against their own server when connected (decisions §4). The server
 * is the client's choice, so every call goes through the outbound guard (docs/security.md): public addresses on
 * ports 80/443 only, every redirect hop checked, 15 s, answers bounded to `VERIFY_RESPONSE_MAX_BYTES`.
 * Failures are the caller's input problem: 422 on the field at fault — the server address when it is refused,
 * unreachable or answers something that is not what the protocol promises, the credentials when they are rejected.
 */
export const VERIFY_TIMEOUT_MS = 15_000;
export const VERIFY_RESPONSE_MAX_BYTES = 64 * 1024;

const invalid = (field: string, message: string) =>
  new AppError("validation", message, { errors: { [field]: [message] } });

interface ServerAnswer<T> {
  ok: boolean;
  status: number;
  /** The JSON body, or null when the answer was not JSON (or too large). */
  body: T | null;
}

async function askServer<T>(
  policy: OutboundPolicy,
  field: string,
  label: string,
  url: string,
  init: RequestInit,
): Promise<ServerAnswer<T>> {
  try {
    const res = await guardedFetch(url, init, {
      ...policy,
      timeoutMs: VERIFY_TIMEOUT_MS,
      maxResponseBytes: VERIFY_RESPONSE_MAX_BYTES,
    });
    return { ok: res.ok, status: res.status, body: await readGuardedJson<T>(res) };
  } catch (err) {
    if (err instanceof OutboundRefusedError) {
      if (err.kind === "refused") throw invalid(field, `The ${label} address is not allowed: ${err.message}`);
      if (err.kind === "too_large" || err.kind === "redirects")
        throw invalid(field, `The ${label} did not answer as the protocol expects.`);
      throw invalid(field, `The ${label} could not be reached.`);
    }
    throw err;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === "string" ? v : undefined);

/** The outbound policy of a Bluesky verification, and the PLC directory that resolves did:plc (BLUESKY_PLC_URL). */
export interface BlueskyVerifyPolicy extends OutboundPolicy {
  plcUrl: string;
}

/**
 * Logs in at `service` with an app password, then proves the identity it answered (issue 25, docs/security.md
 * "Connected accounts: identity"): the DID's document (did:plc from the PLC directory, did:web from
 * `https://<host>/.well-known/did.json`) must name an `#atproto_pds`, and that PDS must be `service` itself or accept
 * the session `service` issued (`com.atproto.server.getSession` answering the same DID — an entryway such as
 * bsky.social, or a proxy). A server that merely claims someone else's DID fails: the real PDS refuses its token.
 * `pds` (an origin) is the server the account is bound to.
 */
export async function verifyBluesky(
  policy: BlueskyVerifyPolicy,
  service: string,
  identifier: string,
  appPassword: string,
) {
  const res = await askServer<unknown>(
    policy,
    "meta.service",
    "Bluesky server",
    `${service}/xrpc/com.atproto.server.createSession`,
    {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ identifier, password: appPassword }),
    },
  );
  // XRPC errors are JSON `{error, message}`; anything else (an HTML page, a redirect loop) is not a PDS.
  if (!res.ok && res.status >= 400 && res.status < 500 && isObject(res.body))
    throw invalid("credentials", "Bluesky rejected the identifier or app password.");
  const body = isObject(res.body) ? res.body : {};
  const did = str(body.did);
  const accessJwt = str(body.accessJwt);
  const refreshJwt = str(body.refreshJwt);
  if (!res.ok || !did?.startsWith("did:") || !accessJwt || !refreshJwt)
    throw invalid("meta.service", "The Bluesky server did not answer as the protocol expects.");
  const creds: AccountCredentials = {
    identifier,
    app_password: appPassword,
    access_jwt: accessJwt,
    refresh_jwt: refreshJwt,
  };
  const pds = await didDocumentPds(policy, did);
  if (originOf(service) !== pds) {
    const check = await askServer<unknown>(
      policy,
      "meta.service",
      "Bluesky server",
      `${pds}/xrpc/com.atproto.server.getSession`,
      { headers: { Authorization: `Bearer ${accessJwt}`, Accept: "application/json" } },
    );
    if (!check.ok || !isObject(check.body) || check.body.did !== did) {
      throw invalid(
        "meta.service",
        `The Bluesky server ${originOf(service)} cannot sign in as ${did}: its DID document names ${pds} as the ` +
          "account's server, and that server did not accept the session.",
      );
    }
  }
  return { did, handle: str(body.handle) ?? identifier, credentials: creds, pds };
}

/** A URL's origin (scheme, lowercased host, port); "" when it is not a URL. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
}

/** The `#atproto_pds` origin of a DID's document; 422 when the DID cannot be resolved or names no PDS. */
async function didDocumentPds(policy: BlueskyVerifyPolicy, did: string): Promise<string> {
  let url: string;
  if (/^did:plc:[a-z0-9]+$/.test(did)) url = `${policy.plcUrl.replace(/\/+$/, "")}/${did}`;
  else if (/^did:web:[a-z0-9.-]+$/i.test(did)) url = `https://${did.slice("did:web:".length)}/.well-known/did.json`;
  else
    throw invalid(
      "meta.service",
      `The Bluesky server answered with ${did.slice(0, 100)}, a DID that cannot be verified.`,
    );
  const res = await askServer<unknown>(policy, "meta.service", "Bluesky identity directory", url, {
    headers: { Accept: "application/json" },
  });
  const doc = isObject(res.body) ? res.body : {};
  const services = Array.isArray(doc.service) ? doc.service : [];
  const endpoint = services.find(
    (svc) => isObject(svc) && (svc.id === "#atproto_pds" || svc.id === `${did}#atproto_pds`),
  )?.serviceEndpoint;
  const pds = typeof endpoint === "string" ? originOf(endpoint) : "";
  if (!res.ok || doc.id !== did || !pds || pds === "null")
    throw invalid("meta.service", `The DID document of ${did} could not be read or names no Bluesky server (PDS).`);
  return pds;
}

export async function verifyMastodon(policy: OutboundPolicy, instance: string, accessToken: string) {
  const res = await askServer<unknown>(
    policy,
    "meta.instance",
    "Mastodon instance",
    `${instance}/api/v1/accounts/verify_credentials`,
    { headers: { Authorization: `Bearer ${accessToken}`, Accept: "application/json" } },
  );
  if (res.status === 401 || res.status === 403)
    throw invalid("credentials.access_token", "The Mastodon instance rejected the access token.");
  const body = isObject(res.body) ? res.body : {};
  const id = str(body.id);
  if (!res.ok || !id) throw invalid("meta.instance", "The Mastodon instance did not answer as the protocol expects.");
  return {
    id,
    username: str(body.acct) ?? str(body.username) ?? "",
    displayName: str(body.display_name) ?? "",
    avatar: str(body.avatar) ?? null,
  };
}
