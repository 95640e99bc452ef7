import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { KeyHits } from "../../src/durable-objects/upload-guard";
import { revokeApiKeyEverywhere } from "../../src/lib/rate-limit";
import { SHARED_WAIT_MS } from "../../src/lib/shared-wait";
import { countKeyRequest, dropKeyLease, LEASE_MS } from "../../src/services/api-keys/throttle-leases";

/**
 * The per-key throttle's leases (src/services/api-keys/throttle-leases.ts) against the real Durable Object. Time is
 * passed in, so windows and lease lifetimes are driven by the test. Each test uses its own key id.
 */

const WINDOW_START = 1_800_000_000_000 - (1_800_000_000_000 % 60_000); // a window boundary
const keyId = () => crypto.randomUUID();

/**
 * The window count the Durable Object holds for a key (≥ 1), read by a probe that gives one hit back and takes one,
 * so the count is unchanged.
 */
async function doCount(id: string, limit: number, now: number): Promise<number> {
  const subject = `api-key:${id}`;
  const probe = await env.UPLOAD_GUARD.getByName(subject).takeApiKeyHits(subject, limit, 60, now, 1, {
    windowStart: WINDOW_START,
    hits: 1,
  });
  return limit - probe.remaining;
}

/**
 * `env` whose UploadGuard namespace counts `takeApiKeyHits` calls and passes each through `around` (with its number,
 * from 1); the real Durable Object still answers.
 */
function guardEnv(around: (call: number, take: () => Promise<KeyHits>) => Promise<KeyHits> = (_, take) => take()): {
  env: Cloudflare.Env;
  calls: () => number;
} {
  let calls = 0;
  const namespace = env.UPLOAD_GUARD;
  const wrapped = {
    getByName(name: string) {
      const stub = namespace.getByName(name);
      return {
        takeApiKeyHits(...args: Parameters<typeof stub.takeApiKeyHits>) {
          return around(++calls, () => stub.takeApiKeyHits(...args) as Promise<KeyHits>);
        },
      };
    },
  };
  return { env: { ...env, UPLOAD_GUARD: wrapped } as unknown as Cloudflare.Env, calls: () => calls };
}

describe("per-key throttle leases", () => {
  it("with a small limit, asks the Durable Object on every request and allows exactly the limit", async () => {
    const id = keyId();
    const results = [];
    for (let i = 0; i < 62; i++) results.push(await countKeyRequest(env, id, 60, WINDOW_START + 10 + i));
    expect(results.slice(0, 60).map((r) => r.remaining)).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i));
    expect(results.slice(0, 60).every((r) => r.allowed && !r.revoked)).toBe(true);
    expect(results[60]).toEqual({ revoked: false, allowed: false, limit: 60, remaining: 0, retryAfterSeconds: 60 });
    expect(results[61]!.allowed).toBe(false);
  });

  it("leases hits to a busy key: Remaining counts down by one per request, the Durable Object holds at most one lease ahead", async () => {
    const id = keyId();
    const limit = 10_000; // lease cap: 1% = 100
    const remaining: number[] = [];
    for (let i = 0; i < 300; i++) {
      const r = await countKeyRequest(env, id, limit, WINDOW_START + 1000 + i); // 300 requests inside one second
      expect(r.allowed).toBe(true);
      remaining.push(r.remaining);
    }
    expect(remaining).toEqual(Array.from({ length: 300 }, (_, i) => limit - 1 - i));
    const counted = await doCount(id, limit, WINDOW_START + 1000 + 300);
    // The Durable Object has counted the 300 spent hits plus the unspent rest of the current lease (≤ 100)…
    expect(counted).toBeGreaterThanOrEqual(300);
    expect(counted).toBeLessThanOrEqual(400);
    // A renewal when the lease runs out of time gives the unspent rest back and asks for about what was spent.
    const t = WINDOW_START + 1000 + 300;
    const after = await countKeyRequest(env, id, limit, t + LEASE_MS);
    expect(after.remaining).toBe(limit - 301);
    // After a quiet spell the next renewal gives back again and asks for one hit: the count is exact.
    const later = await countKeyRequest(env, id, limit, t + 4 * LEASE_MS);
    expect(later.remaining).toBe(limit - 302);
    dropKeyLease(id);
    expect(await doCount(id, limit, t + 5 * LEASE_MS)).toBe(302);
  });

  it("never lets leases exceed the limit in one window", async () => {
    const id = keyId();
    const limit = 500; // lease cap 5
    let allowed = 0;
    for (let i = 0; i < 520; i++)
      if ((await countKeyRequest(env, id, limit, WINDOW_START + 100 + i)).allowed) allowed++;
    expect(allowed).toBe(limit);
    // The next window starts afresh.
    const next = await countKeyRequest(env, id, limit, WINDOW_START + 60_000 + 5);
    expect(next).toMatchObject({ allowed: true, remaining: limit - 1 });
  });

  it("a key revoked by another isolate stops working when the lease ends (within LEASE_MS)", async () => {
    const id = keyId();
    const limit = 10_000;
    const t0 = WINDOW_START + 20_000;
    for (let i = 0; i < 10; i++) await countKeyRequest(env, id, limit, t0 + i); // busy: a lease of several hits
    // Another isolate revokes: only the Durable Object learns, this isolate's lease is untouched.
    await revokeApiKeyEverywhere(env, id);
    const during = await countKeyRequest(env, id, limit, t0 + 10);
    expect(during.allowed).toBe(true);
    const after = await countKeyRequest(env, id, limit, t0 + 9 + LEASE_MS);
    expect(after).toMatchObject({ revoked: true, allowed: false });
  });

  it("the isolate that revokes a key drops its lease, so the key stops working there at once", async () => {
    const id = keyId();
    const t0 = WINDOW_START + 30_000;
    for (let i = 0; i < 10; i++) await countKeyRequest(env, id, 10_000, t0 + i);
    await revokeApiKeyEverywhere(env, id);
    dropKeyLease(id); // what deleteApiKey does, through forgetApiKey
    expect(await countKeyRequest(env, id, 10_000, t0 + 10)).toMatchObject({ revoked: true, allowed: false });
  });

  it("a burst of concurrent requests shares one renewal instead of each asking the Durable Object", async () => {
    const id = keyId();
    const limit = 10_000; // lease cap 100
    const counting = guardEnv();
    const now = WINDOW_START + 40_000;
    const burst = await Promise.all(Array.from({ length: 64 }, () => countKeyRequest(counting.env, id, limit, now)));
    expect(burst.every((r) => r.allowed && !r.revoked)).toBe(true);
    // Every request got its own hit: Remaining takes each value from limit-1 down once.
    expect(burst.map((r) => r.remaining).sort((a, b) => b - a)).toEqual(
      Array.from({ length: 64 }, (_, i) => limit - 1 - i),
    );
    // The first request's renewal (1 hit), then one renewal sized for the 63 that queued behind it.
    expect(counting.calls()).toBe(2);
    dropKeyLease(id);
    const counted = await doCount(id, limit, now);
    expect(counted).toBe(64);
  });

  it("requests queued behind a refused renewal get the refusal without asking again", async () => {
    const id = keyId();
    const limit = 300; // lease cap 3
    const now = WINDOW_START + 45_000;
    for (let i = 0; i < limit; i++) expect((await countKeyRequest(env, id, limit, now)).allowed).toBe(true);
    const counting = guardEnv();
    const burst = await Promise.all(
      Array.from({ length: 10 }, () => countKeyRequest(counting.env, id, limit, now + 1)),
    );
    expect(burst).toEqual(
      Array.from({ length: 10 }, () => ({
        revoked: false,
        allowed: false,
        limit,
        remaining: 0,
        retryAfterSeconds: 15,
      })),
    );
    expect(counting.calls()).toBe(1);
  });

  it("with a limit under 200/minute, concurrent requests each ask the Durable Object and none waits for another", async () => {
    const id = keyId();
    const counting = guardEnv();
    const now = WINDOW_START + 50_000;
    const burst = await Promise.all(Array.from({ length: 70 }, () => countKeyRequest(counting.env, id, 60, now)));
    expect(counting.calls()).toBe(70);
    expect(burst.filter((r) => r.allowed)).toHaveLength(60);
    expect(
      burst
        .filter((r) => r.allowed)
        .map((r) => r.remaining)
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 60 }, (_, i) => i));
  });

  it("a request waits at most SHARED_WAIT_MS for another request's renewal, then asks the Durable Object itself", async () => {
    const id = keyId();
    const limit = 10_000;
    // The first call belongs to a request that was canceled: it never comes back.
    const startedAt: number[] = [];
    const counting = guardEnv((call, take) => {
      startedAt[call] = Date.now();
      return call === 1 ? new Promise<never>(() => {}) : take();
    });
    const now = WINDOW_START + 55_000;
    void countKeyRequest(counting.env, id, limit, now); // its renewal never comes back
    const started = Date.now();
    const waiter = await countKeyRequest(counting.env, id, limit, now);
    const waited = Date.now() - started;
    expect(waiter).toEqual({ revoked: false, allowed: true, limit, remaining: limit - 1, retryAfterSeconds: 5 });
    expect(waited).toBeGreaterThanOrEqual(SHARED_WAIT_MS);
    expect(counting.calls()).toBe(2);
    // The lost renewal is not offered any more: the next request renews at once instead of waiting again.
    // Measured to the moment it asks the Durable Object, not to its answer: a round trip on a busy machine can take
    // long, a wait on the lost renewal would show here as SHARED_WAIT_MS.
    const next = Date.now();
    expect((await countKeyRequest(counting.env, id, limit, now + 1)).allowed).toBe(true);
    expect(startedAt[3]! - next).toBeLessThan(SHARED_WAIT_MS);
    expect(counting.calls()).toBe(3);
  });

  it("a renewal answered before a revocation here, but returning after it, keeps no lease", async () => {
    const id = keyId();
    const limit = 10_000;
    const now = WINDOW_START + 57_000;
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let answered = () => {};
    const answeredHere = new Promise<void>((resolve) => {
      answered = resolve;
    });
    const slowEnv = guardEnv(async (call, take) => {
      const answer = await take();
      if (call === 3) {
        answered(); // the Durable Object has counted it…
        await gate; // …but the third renewal (a lease of 4) comes back late
      }
      return answer;
    }).env;
    for (let i = 0; i < 3; i++) expect((await countKeyRequest(slowEnv, id, limit, now + i)).allowed).toBe(true);
    const inFlight = countKeyRequest(slowEnv, id, limit, now + 3);
    // Revoke only once the renewal has been answered (a fixed sleep raced the round trip on a busy machine).
    await answeredHere;
    await revokeApiKeyEverywhere(env, id);
    dropKeyLease(id);
    release();
    expect((await inFlight).allowed).toBe(true); // counted before the revocation
    expect(await countKeyRequest(slowEnv, id, limit, now + 4)).toMatchObject({ revoked: true, allowed: false });
  });
});
