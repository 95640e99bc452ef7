/**
 * Signed upload URLs (decisions §9): `{origin}/api/uploads/{token}?expires=<unix>&workspace_id=<uuid>&signature=<hex>`
 * where signature = hex HMAC-SHA256(UPLOAD_SIGNING_KEY, path + "?" + the other parameters sorted by name). The host
 * is not signed, so the same URL works behind any domain.
 */
import { hmacSha256Hex, timingSafeEqual } from "../../lib/crypto";

export const SIGNED_PARAMS = ["expires", "workspace_id"] as const;

export function uploadPath(token: string): string {
  return `/api/uploads/${token}`;
}

function signedMessage(token: string, params: Record<(typeof SIGNED_PARAMS)[number], string>): string {
  const query = [...SIGNED_PARAMS]
    .sort()
    .map((k) => `${k}=${encodeURIComponent(params[k])}`)
    .join("&");
  return `${uploadPath(token)}?${query}`;
}

export async function signUploadUrl(
  secret: string,
  origin: string,
  token: string,
  expiresUnix: number,
  workspaceId: string,
): Promise<string> {
  const params = { expires: String(expiresUnix), workspace_id: workspaceId };
  const message = signedMessage(token, params);
  const signature = await hmacSha256Hex(secret, message);
  return `${origin}${message}&signature=${signature}`;
}

export type SignatureCheck = { ok: true; expiresUnix: number; workspaceId: string } | { ok: false; reason: "invalid" };

/**
 * Checks the query of a signed URL: exactly `expires`, `workspace_id` and `signature`, each once, and a signature
 * that matches (constant-time). Expiry is left to the caller, which answers it after the signature.
 */
export async function checkUploadSignature(
  secret: string,
  token: string,
  query: URLSearchParams,
): Promise<SignatureCheck> {
  const keys = [...query.keys()];
  const expected = [...SIGNED_PARAMS, "signature"];
  if (keys.length !== expected.length || !expected.every((k) => query.getAll(k).length === 1))
    return { ok: false, reason: "invalid" };
  const expires = query.get("expires") as string;
  const workspaceId = query.get("workspace_id") as string;
  const given = query.get("signature") as string;
  const wanted = await hmacSha256Hex(secret, signedMessage(token, { expires, workspace_id: workspaceId }));
  if (!timingSafeEqual(given, wanted)) return { ok: false, reason: "invalid" };
  // Signed by us, so these are ours; checked anyway rather than trusted.
  if (!/^\d{1,12}$/.test(expires)) return { ok: false, reason: "invalid" };
  return { ok: true, expiresUnix: Number(expires), workspaceId };
}
