import type { WindowResult } from "../../durable-objects/upload-guard";
import { tooManyRequests } from "../../lib/errors";
import { clientWindowKey } from "../uploads/upload-guard";

/**
 * Windows of the hosted connect pages (issue 25), counted by the same Durable Object and fixed one-minute windows
 * as the signed upload endpoint's per-IP limit (src/durable-objects/upload-guard.ts): one instance per client
 * network (`connect-ip:<IPv4 or IPv6 /64>`) and one per link (`connect-link:<id>`), each with a `starts` and a
 * `passwords` window. Every attempt counts, whatever its outcome; a request over either window is refused (429 with
 * Retry-After, a hosted page) before it does anything.
 */
export type ConnectWindow = "starts" | "passwords";

function hit(env: Cloudflare.Env, name: string, window: ConnectWindow, limit: number): Promise<WindowResult> {
  return env.UPLOAD_GUARD.getByName(name).hit(window, limit, 60, Date.now()) as Promise<WindowResult>;
}

export async function throttleConnect(
  env: Cloudflare.Env,
  window: ConnectWindow,
  limitPerMinute: number,
  subject: { ip: string; linkId: string | null },
): Promise<void> {
  const results = await Promise.all([
    hit(env, `connect-ip:${clientWindowKey(subject.ip)}`, window, limitPerMinute),
    ...(subject.linkId ? [hit(env, `connect-link:${subject.linkId}`, window, limitPerMinute)] : []),
  ]);
  const refused = results.filter((r) => !r.allowed);
  if (refused.length > 0) throw tooManyRequests(Math.max(...refused.map((r) => r.retryAfterSeconds)));
}
