import type { ServiceContext } from "../../context";
import { openSecret, type SealedAt, sealSecret } from "../../lib/sealing";

/**
 * Standard Webhooks signing (standardwebhooks.com): the secret is `whsec_` + base64 of random bytes; the HMAC key is
 * those bytes; `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`,
 * several space-separated while a rotated-out secret is still honoured.
 */
export const SECRET_PREFIX = "whsec_";
const SECRET_BYTES = 32;

const toBase64 = (bytes: Uint8Array) => {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
};
const fromBase64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

export function generateSecret(): string {
  return SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

/**
 * Secrets are stored sealed like platform credentials (src/lib/sealing.ts), bound to their endpoint's row: both
 * `secret` and `previous_secret` (a rotation moves the sealed value from one to the other unchanged).
 */
const at = (endpointId: string): SealedAt => ({ table: "webhook_endpoints", row: endpointId });
export const sealWebhookSecret = (ctx: Pick<ServiceContext, "config">, endpointId: string, secret: string) =>
  sealSecret(ctx, at(endpointId), secret);
/** Throws `UnopenableSecretError` when the value does not open (a key removed too early). */
export const openWebhookSecret = (ctx: Pick<ServiceContext, "config">, endpointId: string, sealed: string) =>
  openSecret<string>(ctx, at(endpointId), sealed);

export async function sign(secret: string, id: string, timestampSeconds: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    fromBase64(secret.slice(SECRET_PREFIX.length)),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestampSeconds}.${body}`));
  return `v1,${toBase64(new Uint8Array(mac))}`;
}

/** The `webhook-signature` value: one `v1,…` per secret, space-separated. */
export async function signatureHeader(secrets: string[], id: string, timestampSeconds: number, body: string) {
  return (await Promise.all(secrets.map((s) => sign(s, id, timestampSeconds, body)))).join(" ");
}
