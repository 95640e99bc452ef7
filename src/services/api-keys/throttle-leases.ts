import type { KeyHits, WindowResult } from "../../durable-objects/upload-guard";
import { takeApiKeyHits } from "../../lib/rate-limit";
import { InFlight, waitShared } from "../../lib/shared-wait";
import { retryAfterSecondsUntil } from "../../lib/time";

/**
 * The per-key throttle, counted by the key's Durable Object and spent locally in small leases.
 *
 * Asking the Durable Object on every request would put a second round trip (after the route's own D1 work) on every
 * authenticated call. Instead an isolate takes a few hits at once and spends them locally for at most `LEASE_MS`:
 * - A key this isolate sees rarely takes one hit per request, exactly as before (and always does when the limit is
 *   below 200/minute: a lease never holds more than 1% of the limit).
 * - When a lease is used up within its lifetime the key is busy here, and the next lease asks for twice as many;
 *   when it simply ran out of time, the next one asks for what it spent (the key's rate over the last second).
 * - One renewal at a time per key and isolate: requests that find the lease spent while a renewal is in flight wait
 *   for it (at most `SHARED_WAIT_MS`), and the renewal asks for at least as many hits as are waiting.
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
/** How often each key's lease was dropped here (revocation); a renewal that straddles a drop keeps no lease. */
const drops = new Map<string, number>();

export type ThrottleResult = WindowResult & { revoked: boolean };

/** The most hits one lease may hold: 1% of the limit, at most `MAX_LEASE`. At 1 the key is not leased at all. */
const leaseCap = (limit: number) => Math.min(MAX_LEASE, Math.floor(limit * MAX_LEASE_SHARE));

/**
 * How many hits to ask for: twice the last lease when it was used up while still live; what the last lease spent
 * (plus this request) when it ended within the last `LEASE_MS` — the key's recent rate; otherwise one. Never fewer
 * than the requests already queued behind this renewal, so a burst is served by one renewal, not by a doubling chain.
 */
function leaseSize(lease: Lease | undefined, live: boolean, limit: number, now: number, queued: number): number {
  const cap = leaseCap(limit);
  let size = 1;
  if (lease && live) size = lease.granted * 2;
  else if (lease && now < lease.expiresAt + LEASE_MS) size = lease.granted - lease.left + 1;
  return Math.max(1, Math.min(cap, Math.max(size, queued + 1)));
}

/** A lease still in force: taken for this limit, within its lifetime and its window. */
const isLive = (lease: Lease | undefined, limit: number, now: number): lease is Lease =>
  lease !== undefined && lease.limit === limit && now < lease.expiresAt && now < lease.windowEnd;

/** One hit from this isolate's live lease of the key, or null when there is none left. */
function spendLeased(keyId: string, limit: number, now: number): ThrottleResult | null {
  const lease = leases.get(keyId);
  if (!isLive(lease, limit, now) || lease.left <= 0) return null;
  lease.left--;
  return {
    revoked: false,
    allowed: true,
    limit,
    remaining: lease.remainingAfter + lease.left,
    retryAfterSeconds: retryAfterSecondsUntil(lease.windowEnd, now),
  };
}

/** The renewal in flight per key, and how many requests wait for it. One renewal at a time per key and isolate. */
const renewals = new InFlight<KeyHits>();
const queuedFor = new Map<string, number>();

/** Asks the Durable Object for a new lease; this request spends the first hit, the rest go into the lease. */
async function renew(env: Cloudflare.Env, keyId: string, limit: number, now: number): Promise<ThrottleResult> {
  const lease = leases.get(keyId);
  const want = leaseSize(lease, isLive(lease, limit, now), limit, now, queuedFor.get(keyId) ?? 0);
  const giveBack = lease && lease.left > 0 ? { windowStart: lease.windowStart, hits: lease.left } : undefined;
  leases.delete(keyId);
  const dropsBefore = drops.get(keyId);
  const taken = await renewals.start(keyId, () => takeApiKeyHits(env, keyId, limit, now, want, giveBack));
  // Refused, or revoked here while the call was out: this request's answer as given, and no lease.
  if (!taken.allowed || drops.get(keyId) !== dropsBefore) return throttleResult(taken, limit);
  const { revoked, allowed, remaining, retryAfterSeconds } = taken;
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

/**
 * Counts one request of `keyId` against `limit` per minute. Requests that find the lease spent while a renewal is
 * in flight wait for it instead of asking the Durable Object themselves: under concurrency a lease would otherwise
 * be renewed by every request in flight, each asking for one hit. A refusal (throttled, revoked) is the answer for
 * every request that waited for it. Below `1 / MAX_LEASE_SHARE` per minute every request asks the Durable Object
 * itself, so a small limit is counted exactly and never queues.
 */
export async function countKeyRequest(
  env: Cloudflare.Env,
  keyId: string,
  limit: number,
  now: number,
): Promise<ThrottleResult> {
  if (leaseCap(limit) <= 1) return takeOne(env, keyId, limit, now);
  for (;;) {
    const spent = spendLeased(keyId, limit, now);
    if (spent) return spent;
    const pending = renewals.get(keyId);
    if (!pending) return renew(env, keyId, limit, now);
    queuedFor.set(keyId, (queuedFor.get(keyId) ?? 0) + 1);
    let outcome: { value: KeyHits } | null;
    try {
      outcome = await waitShared(pending);
    } finally {
      const queued = (queuedFor.get(keyId) ?? 1) - 1;
      if (queued > 0) queuedFor.set(keyId, queued);
      else queuedFor.delete(keyId);
    }
    // The renewing request's call did not come back in time (that request may have been canceled): ask directly.
    if (!outcome) return takeOne(env, keyId, limit, now);
    if (!outcome.value.allowed) return throttleResult(outcome.value, limit);
  }
}

const throttleResult = ({ revoked, allowed, remaining, retryAfterSeconds }: KeyHits, limit: number) => ({
  revoked,
  allowed,
  limit,
  remaining,
  retryAfterSeconds,
});

/** One hit straight from the Durable Object, no lease. */
async function takeOne(env: Cloudflare.Env, keyId: string, limit: number, now: number): Promise<ThrottleResult> {
  return throttleResult(await takeApiKeyHits(env, keyId, limit, now, 1), limit);
}

/**
 * Drops this isolate's lease of a key (it was revoked here, so it must stop working here at once). A renewal already
 * in flight was answered before the revocation: its request still counts, but its lease is not kept.
 */
export function dropKeyLease(keyId: string): void {
  leases.delete(keyId);
  drops.set(keyId, (drops.get(keyId) ?? 0) + 1);
}
