import { requireSecret } from "../../config";
import type { ServiceContext } from "../../context";
import { hmacSha256Hex, randomToken, sha256Hex, timingSafeEqual } from "../../lib/crypto";

/**
 * Secrets handed to browsers during connect (OAuth `state`, selection and link tokens) are random; D1 keeps only
 * their SHA-256 (a leaked database row is no usable token). MACs use UPLOAD_SIGNING_KEY with a purpose prefix,
 * so one key never signs two kinds of message alike.
 */
export const newSecretToken = () => randomToken(32);
export const tokenId = (token: string) => sha256Hex(token);

export async function mac(ctx: Pick<ServiceContext, "config">, purpose: string, message: string): Promise<string> {
  const hex = await hmacSha256Hex(requireSecret(ctx.config, "UPLOAD_SIGNING_KEY"), `${purpose}\n${message}`);
  return hex.slice(0, 32);
}

export async function macMatches(
  ctx: Pick<ServiceContext, "config">,
  purpose: string,
  message: string,
  given: string,
): Promise<boolean> {
  return timingSafeEqual(await mac(ctx, purpose, message), given);
}

function base64Url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** RFC 7636: a 64-character verifier and its S256 challenge. */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = randomToken(48);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return { verifier, challenge: base64Url(digest) };
}
