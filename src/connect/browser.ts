import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { sha256Hex } from "../lib/crypto";
import { newSecretToken } from "../services/connect/tokens";
import type { AppEnv } from "../types";

/**
 * Binds an OAuth flow to the browser that started it (issue 25, RFC 9700 §4.7 and §2.1: the client must make sure
 * the authorization response arrives in the user agent that made the request). A first-party hop on our origin —
 * the hosted link's start form, or the consent page `/connect/authorize/…` the API hands out — sets a random value
 * in a `__Host-` cookie (Secure, HttpOnly, SameSite=Lax, Path=/, no Domain: only this host sees it, no script reads
 * it, and it rides along the network's top-level redirect back to us). The state's row keeps SHA-256 of the value;
 * the callback is refused unless the browser presents the matching cookie.
 */
export const BROWSER_COOKIE = "__Host-esp-connect";
const VALUE = /^[A-Za-z0-9_-]{43}$/;

export interface BrowserBinding {
  /** The cookie value (kept only by the browser). */
  value: string;
  /** What the state row stores. */
  hash: string;
}

/** The browser's existing binding value (so flows in several tabs share it), or a fresh one. */
export async function browserBinding(c: Context<AppEnv>): Promise<BrowserBinding> {
  const existing = getCookie(c, BROWSER_COOKIE);
  const value = existing && VALUE.test(existing) ? existing : newSecretToken();
  return { value, hash: await sha256Hex(value) };
}

/** SHA-256 of the binding cookie the request carries, or null. */
export async function presentedBrowserHash(c: Context<AppEnv>): Promise<string | null> {
  const value = getCookie(c, BROWSER_COOKIE);
  return value && VALUE.test(value) ? sha256Hex(value) : null;
}

/** The Set-Cookie header of a binding, alive as long as a state and its expired row (bindingLifetimeSeconds). */
export function bindingCookie(binding: BrowserBinding, maxAgeSeconds: number): string {
  return `${BROWSER_COOKIE}=${binding.value}; Max-Age=${maxAgeSeconds}; Path=/; Secure; HttpOnly; SameSite=Lax`;
}
