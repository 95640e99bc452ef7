import type { WindowResult } from "../../durable-objects/upload-guard";
import { takeApiKeyHits } from "../../lib/rate-limit";

/**
 * The per-key throttle, counted by the key's Durable Object and spent locally in small leases.
 *
 * Asking the Durable Object on every request would put a second round trip (after the route's own D1 work) on every
 * authenticated call. Instead an isolate takes a few hits at once and spends them locally for at most `LEASE_MS`:
 * - A key this isolate sees rarely takes one hit per request, exactly as before (and always does when the limit is
 *   below 200/minute: a lease never holds more than 1% of the limit).
 * - When a lease is used up within its lifetime the key is busy here, and the next lease asks for twice as many;
 *   when it simply ran out of time, the next one asks for what it spent (the key's rate over the last second).
 * - Hits a lease did not spend are given back with the next request to the Durable Object, so in one isolate the
 *   count is exact; across isolates, hits another isolate holds but never spends can end a window early by at most
 *   1% of the limit per isolate.
 * - Revocation: every lease renewal asks the Durable Object, which refuses a revoked key. The isolate that revokes
 *   a key drops its lease at once; any other isolate notices within `LEASE_MS` (docs/decisions.md).
 * `X-RateLimit-Remaining` is the Durable Object's count at the last renewal, minus what this isolate spent since.
 */
export const LEASE_MS = 1000;
const MAX_LEASE_SHARE = 0.01;
const MAX_LEASE = 1000;

interface Lease {
  limit: number;
  windowStart: number;
  windowEnd: number;
  expiresAt: number;
  granted: number;
  /** Hits taken but not yet spent. */
  left: number;
  /** The window's remaining count in the Durable Object when the lease was taken. */
  remainingAfter: number;
}

const leases = new Map<string, Lease>();

export type ThrottleResult = WindowResult & { revoked: boolean };

/**
 * How many hits to ask for: twice the last lease when it was used up while still live; what the last lease spent
 * (plus this request) when it ended within the last `LEASE_MS` — the key's recent rate; otherwise one.
 */
function leaseSize(lease: Lease | undefined, live: boolean, limit: number, now: number): number {
  const cap = Math.min(MAX_LEASE, Math.floor(limit * MAX_LEASE_SHARE));
  if (!lease || cap <= 1) return 1;
  if (live) return Math.max(1, Math.min(cap, lease.granted * 2));
  if (now < lease.expiresAt + LEASE_MS) return Math.max(1, Math.min(cap, lease.granted - lease.left + 1));
  return 1;
}

/** Counts one request of `keyId` against `limit` per minute. */
export async function countKeyRequest(
  env: Cloudflare.Env,
  keyId: string,
  limit: number,
  now: number,
): Promise<ThrottleResult> {
  const lease = leases.get(keyId);
  const live = lease !== undefined && lease.limit === limit && now < lease.expiresAt && now < lease.windowEnd;
  if (live && lease.left > 0) {
    lease.left--;
    return {
      revoked: false,
      allowed: true,
      limit,
      remaining: lease.remainingAfter + lease.left,
      retryAfterSeconds: Math.max(1, Math.ceil((lease.windowEnd - now) / 1000)),
    };
  }
  const want = leaseSize(lease, live, limit, now);
  const giveBack = lease && lease.left > 0 ? { windowStart: lease.windowStart, hits: lease.left } : undefined;
  leases.delete(keyId);
  const taken = await takeApiKeyHits(env, keyId, limit, now, want, giveBack);
  const { revoked, allowed, remaining, retryAfterSeconds } = taken;
  if (!allowed) return { revoked, allowed, limit, remaining, retryAfterSeconds };
  leases.set(keyId, {
    limit,
    windowStart: taken.windowStart,
    windowEnd: taken.windowStart + 60_000,
    expiresAt: now + LEASE_MS,
    granted: taken.granted,
    left: taken.granted - 1,
    remainingAfter: remaining,
  });
  return { revoked, allowed, limit, remaining: remaining + taken.granted - 1, retryAfterSeconds };
}

/** Drops this isolate's lease of a key (it was revoked here, so it must stop working here at once). */
export function dropKeyLease(keyId: string): void {
  leases.delete(keyId);
}
