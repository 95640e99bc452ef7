/** Calls to the UploadGuard Durable Object for signed uploads (instance names in docs/storage.md). */
import type { WindowResult } from "../../durable-objects/upload-guard";
import { expandIpv6 } from "../../lib/outbound-guard";

export function tokenGuard(env: Cloudflare.Env, token: string) {
  return env.UPLOAD_GUARD.getByName(`upload-token:${token}`);
}

/**
 * The window a client address counts in: an IPv4 address by itself; an IPv6 address by its /64 — one network gets
 * a /64 (or more), so rotating addresses inside it must not escape the limit. IPv4-mapped IPv6 counts as its IPv4.
 */
export function clientWindowKey(ip: string): string {
  if (!ip.includes(":")) return ip;
  const groups = expandIpv6(ip.trim().toLowerCase());
  if (!groups) return ip;
  const [a, b, c, d, e, f, g = 0, h = 0] = groups;
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0xffff)
    return [g >> 8, g & 255, h >> 8, h & 255].join(".");
  return `${groups
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(":")}::/64`;
}

/** Counts this request in the client network's one-minute window (every request counts, whatever its outcome). */
export function hitIpWindow(env: Cloudflare.Env, ip: string, limitPerMinute: number): Promise<WindowResult> {
  const name = `ip:${clientWindowKey(ip)}`;
  return env.UPLOAD_GUARD.getByName(name).hit(name, limitPerMinute, 60, Date.now()) as Promise<WindowResult>;
}
