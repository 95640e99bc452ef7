import type { WindowResult } from "../../durable-objects/upload-guard";
import { sha256Hex } from "../../lib/crypto";
import { tooManyRequests } from "../../lib/errors";
import { clientWindowKey } from "../uploads/upload-guard";

/**
 * Sign-in attempts (`POST /api/session`, and accepting an invitation with a password), counted like the hosted
 * connect pages' password window (src/services/connect/throttle.ts): fixed one-minute windows in the UploadGuard
 * Durable Object, one per client network (`sign-in-ip:<IPv4 or IPv6 /64>`) and one per email address
 * (`sign-in-email:<SHA-256 of the lowercased address>`), `SIGN_IN_TRIES_PER_MINUTE` each. Every attempt counts,
 * whatever its outcome; past either window the answer is 429 with Retry-After before the password is looked at.
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
  const results = await Promise.all([
    hit(env, `sign-in-ip:${clientWindowKey(subject.ip)}`, limitPerMinute),
    hit(env, `sign-in-email:${emailKey}`, limitPerMinute),
  ]);
  const refused = results.filter((r) => !r.allowed);
  if (refused.length > 0) throw tooManyRequests(Math.max(...refused.map((r) => r.retryAfterSeconds)));
}
