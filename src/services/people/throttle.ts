import type { WindowResult } from "../../durable-objects/upload-guard";
import { sha256Hex } from "../../lib/crypto";
import { tooManyRequests } from "../../lib/errors";
import { clientWindowKey } from "../uploads/upload-guard";

/** How many times `SIGN_IN_TRIES_PER_MINUTE` one client network may try across every email. */
export const SIGN_IN_NETWORK_FACTOR = 4;
/** How many times `SIGN_IN_TRIES_PER_MINUTE` one email may be tried across every network. */
export const SIGN_IN_EMAIL_FACTOR = 10;

/**
 * Sign-in attempts (`POST /api/session`, and accepting an invitation with a password), counted like the hosted
 * connect pages' password window (src/services/connect/throttle.ts): fixed one-minute windows in the UploadGuard
 * Durable Object. Every attempt counts, whatever its outcome; past any window the answer is 429 with Retry-After
 * before the password is looked at. Three windows (issue 35, review 4: the per-email window alone was a lockout
 * anyone could set off against an owner):
 * - one client network (IPv4 address, IPv6 /64) on one email: `SIGN_IN_TRIES_PER_MINUTE` — guessing from one place
 *   stops at once, and only that network is refused: the owner signs in from anywhere else;
 * - one client network on any email: `SIGN_IN_NETWORK_FACTOR` × the limit — one place spraying many addresses;
 * - one email from any network: `SIGN_IN_EMAIL_FACTOR` × the limit — guessing spread over many networks. Locking an
 *   owner out takes that many attempts a minute from more than `SIGN_IN_EMAIL_FACTOR` networks at once.
 */
function hit(env: Cloudflare.Env, name: string, limit: number): Promise<WindowResult> {
  return env.UPLOAD_GUARD.getByName(name).hit("sign-in", limit, 60, Date.now()) as Promise<WindowResult>;
}

export async function throttleSignIn(
  env: Cloudflare.Env,
  limitPerMinute: number,
  subject: { ip: string; email: string },
): Promise<void> {
  const emailKey = await sha256Hex(subject.email.trim().toLowerCase());
  const network = clientWindowKey(subject.ip);
  const results = await Promise.all([
    hit(env, `sign-in-pair:${network}:${emailKey}`, limitPerMinute),
    hit(env, `sign-in-ip:${network}`, limitPerMinute * SIGN_IN_NETWORK_FACTOR),
    hit(env, `sign-in-email:${emailKey}`, limitPerMinute * SIGN_IN_EMAIL_FACTOR),
  ]);
  const refused = results.filter((r) => !r.allowed);
  if (refused.length > 0) throw tooManyRequests(Math.max(...refused.map((r) => r.retryAfterSeconds)));
}
