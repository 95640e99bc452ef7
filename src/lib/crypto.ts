/** Hashing, HMAC, AES-GCM and random tokens on WebCrypto. */

const encoder = new TextEncoder();

export function toHex(buf: ArrayBuffer | Uint8Array): string {
  const bytes = buf instanceof Uint8Array ? buf : new Uint8Array(buf);
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

function toBase64Url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64(s: string): Uint8Array {
  const norm = s.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(norm + "=".repeat((4 - (norm.length % 4)) % 4));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export async function sha256Hex(input: string): Promise<string> {
  return toHex(await crypto.subtle.digest("SHA-256", encoder.encode(input)));
}

export function randomToken(bytes = 32): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

const hmacKeys = new Map<string, Promise<CryptoKey>>();
function hmacKey(secret: string): Promise<CryptoKey> {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
      "verify",
    ]);
    hmacKeys.set(secret, key);
  }
  return key;
}

export async function hmacSha256Hex(secret: string, message: string): Promise<string> {
  return toHex(await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(message)));
}

/** Constant-time comparison of two hex/ASCII strings (length leak only). */
export function timingSafeEqual(a: string, b: string): boolean {
  const ab = encoder.encode(a);
  const bb = encoder.encode(b);
  if (ab.length !== bb.length) return false;
  // workerd exposes crypto.subtle.timingSafeEqual
  const subtle = crypto.subtle as SubtleCrypto & {
    timingSafeEqual?: (x: ArrayBufferView, y: ArrayBufferView) => boolean;
  };
  if (subtle.timingSafeEqual) return subtle.timingSafeEqual(ab, bb);
  let diff = 0;
  for (let i = 0; i < ab.length; i++) diff |= (ab[i] ?? 0) ^ (bb[i] ?? 0);
  return diff === 0;
}

const aesKeys = new Map<string, Promise<CryptoKey>>();
/**
 * The AES-256-GCM key comes from TOKEN_ENCRYPTION_KEY: 32 bytes in base64, or any other string,
 * which is stretched with SHA-256 so a passphrase still yields a full-strength key.
 */
function aesKey(secret: string): Promise<CryptoKey> {
  let key = aesKeys.get(secret);
  if (!key) {
    key = (async () => {
      let raw: Uint8Array;
      try {
        raw = fromBase64(secret);
      } catch {
        raw = new Uint8Array();
      }
      if (raw.length !== 32) raw = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(secret)));
      return crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
    })();
    aesKeys.set(secret, key);
  }
  return key;
}

/**
 * Sealed values (docs/security.md "Encryption at rest"):
 * - `v2.<key id>.<iv>.<ciphertext>`: AES-256-GCM with additional data (the row the value belongs to, e.g.
 *   `social_accounts:<id>`), so a ciphertext copied to another row does not decrypt; `<key id>` names the key
 *   (the first 8 hex digits of SHA-256 of the secret), so the key can be rotated: values sealed under an older key
 *   still open while that key is listed among the previous keys.
 * - `v1.<iv>.<ciphertext>`: the format before issue 21 — no additional data, no key id. Still opened (with the
 *   current key, then the previous ones); written never.
 */
export interface SealingKeys {
  /** The key new values are sealed with (TOKEN_ENCRYPTION_KEY). */
  current: string;
  /** Older keys, still accepted for opening (TOKEN_ENCRYPTION_KEYS_PREVIOUS). */
  previous: readonly string[];
}

const keyIds = new Map<string, Promise<string>>();
/** A short public name of a key: not secret (a hash prefix), enough to pick the key among a handful. */
export function sealingKeyId(secret: string): Promise<string> {
  let id = keyIds.get(secret);
  if (!id) {
    id = sha256Hex(`token-encryption-key-id:${secret}`).then((h) => h.slice(0, 8));
    keyIds.set(secret, id);
  }
  return id;
}

/** Encrypts a JSON value bound to `boundTo` (e.g. `social_accounts:<id>`); output `v2.<key id>.<iv>.<ciphertext>`. */
export async function sealJson(keys: SealingKeys, boundTo: string, value: unknown): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(boundTo) },
    await aesKey(keys.current),
    encoder.encode(JSON.stringify(value)),
  );
  return `v2.${await sealingKeyId(keys.current)}.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(ct))}`;
}

/** Whether a sealed value is in the current format under the current key (else it is worth sealing again). */
export async function isSealedWithCurrentKey(keys: SealingKeys, sealed: string): Promise<boolean> {
  return sealed.startsWith(`v2.${await sealingKeyId(keys.current)}.`);
}

/** Opens a value sealed by `sealJson` for `boundTo` (or a legacy v1 value). Throws when it does not open. */
export async function openJson<T = unknown>(keys: SealingKeys, boundTo: string, sealed: string): Promise<T> {
  const parts = sealed.split(".");
  if (parts[0] === "v2" && parts.length === 4) {
    const [, kid, iv, ct] = parts as [string, string, string, string];
    for (const secret of [keys.current, ...keys.previous]) {
      if ((await sealingKeyId(secret)) !== kid) continue;
      const plain = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: fromBase64(iv), additionalData: encoder.encode(boundTo) },
        await aesKey(secret),
        fromBase64(ct),
      );
      return JSON.parse(new TextDecoder().decode(plain)) as T;
    }
    throw new Error("Sealed with an unknown key (is it missing from TOKEN_ENCRYPTION_KEYS_PREVIOUS?)");
  }
  let lastError: unknown = new Error("Unrecognised ciphertext format");
  if (parts[0] === "v1" && parts.length === 3) {
    for (const secret of [keys.current, ...keys.previous]) {
      try {
        return await decryptJson<T>(secret, sealed);
      } catch (err) {
        lastError = err;
      }
    }
  }
  throw lastError;
}

/** Encrypts a JSON value without binding or key id; output `v1.<iv>.<ciphertext>` (legacy; use `sealJson`). */
export async function encryptJson(secret: string, value: unknown): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv },
    await aesKey(secret),
    encoder.encode(JSON.stringify(value)),
  );
  return `v1.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(ct))}`;
}

export async function decryptJson<T = unknown>(secret: string, sealed: string): Promise<T> {
  const [version, iv, ct] = sealed.split(".");
  if (version !== "v1" || !iv || !ct) throw new Error("Unrecognised ciphertext format");
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: fromBase64(iv) },
    await aesKey(secret),
    fromBase64(ct),
  );
  return JSON.parse(new TextDecoder().decode(plain)) as T;
}
