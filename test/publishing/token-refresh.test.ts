// fresh storage: runs the Worker's cron, which works on every workspace's rows at once.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { REFRESH_LEASE_MS } from "../../src/publishing/accounts";
import { TOKEN_REFRESH_CLAIM_LIMIT } from "../../src/publishing/token-refresh";
import { fakeLinkedIn, type LinkedInFake } from "../support/fakes/linkedin";
import { MetaGraphFake } from "../support/fakes/meta";
import { fakePinterest, type PinterestFake } from "../support/fakes/pinterest";
import { ThreadsFake } from "../support/fakes/threads";
import { fakeTikTok } from "../support/fakes/tiktok";
import { fakeYouTube } from "../support/fakes/youtube";
import type { TestWorkspace } from "../support/harness";
import { type Fakes, installFakes, seedXAccount } from "./platforms";
import { createTestWorkspace, openAccountCredentials, readAccount, seedAccount, tick } from "./support";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

let fakes: Fakes;
let instagram: MetaGraphFake;
let facebook: MetaGraphFake;
let threads: ThreadsFake;
let linkedin: LinkedInFake;
let pinterest: PinterestFake;
let stopOthers: (() => void)[];
let t0: number;

beforeEach(() => {
  fakes = installFakes();
  instagram = new MetaGraphFake("https://instagram.fake");
  facebook = new MetaGraphFake("https://facebook.fake");
  threads = new ThreadsFake();
  linkedin = fakeLinkedIn();
  pinterest = fakePinterest();
  const tiktok = fakeTikTok();
  const youtube = fakeYouTube();
  stopOthers = [instagram.uninstall, facebook.uninstall, threads.uninstall, linkedin.uninstall, pinterest.stop];
  stopOthers.push(tiktok.stop, () => youtube.stop?.());
  // Only Date is faked: the clock moves when a test says so, timers and I/O stay real.
  vi.useFakeTimers({ toFake: ["Date"] });
  t0 = Math.floor(Date.now() / 1000) * 1000;
  vi.setSystemTime(t0);
});
afterEach(() => {
  vi.useRealTimers();
  fakes.uninstall();
  for (const stop of stopOthers) stop();
});

const at = (ms: number) => vi.setSystemTime(t0 + ms);

const accountState = (id: string) =>
  env.DB.prepare(
    "SELECT status, token_expires_at, token_refresh_due_at, token_refreshed_at, token_refresh_lease_until FROM social_accounts WHERE id = ?",
  )
    .bind(id)
    .first<{
      status: string;
      token_expires_at: number | null;
      token_refresh_due_at: number | null;
      token_refreshed_at: number | null;
      token_refresh_lease_until: number | null;
    }>();

/** An Instagram Login account whose 60-day token was issued now (the fake times it). */
async function seedInstagram(ws: TestWorkspace, token = "ig-token", expires = true) {
  instagram.validTokens.add(token);
  instagram.longLived.issue(token);
  return seedAccount(ws, {
    platform: "instagram",
    platformUserId: "17841400000000000",
    credentials: { access_token: token, ...(expires ? { expires_at: t0 + 60 * DAY } : {}) },
    tokenExpiresAt: expires ? t0 + 60 * DAY : null,
  });
}

async function seedThreads(ws: TestWorkspace) {
  threads.validTokens.add("th-token");
  threads.longLived.issue("th-token");
  // Connected without an expiry: refreshed on Threads' schedule from the connection.
  return seedAccount(ws, { platform: "threads", credentials: { access_token: "th-token" } });
}

const refreshCalls = (fake: { calls: { path: string }[] }) =>
  fake.calls.filter((c) => c.path === "/refresh_access_token").length;

describe("proactive token refresh (cron)", () => {
  it("refreshes a 60-day Instagram token 10 days before it expires — not earlier — and schedules the next", async () => {
    const ws = await createTestWorkspace();
    const id = await seedInstagram(ws);

    at(49 * DAY);
    await tick();
    expect(refreshCalls(instagram)).toBe(0);
    expect(await accountState(id)).toEqual({
      status: "connected",
      token_expires_at: t0 + 60 * DAY,
      token_refresh_due_at: t0 + 50 * DAY,
      token_refreshed_at: null,
      token_refresh_lease_until: null,
    });

    at(50 * DAY);
    await tick();
    expect(refreshCalls(instagram)).toBe(1);
    const now = t0 + 50 * DAY;
    expect(await accountState(id)).toEqual({
      status: "connected",
      token_expires_at: now + 60 * DAY,
      token_refresh_due_at: now + 50 * DAY,
      token_refreshed_at: now,
      token_refresh_lease_until: null,
    });
    expect(await openAccountCredentials(id)).toEqual({ access_token: "ig-refreshed-1", expires_at: now + 60 * DAY });

    // The next ticks leave it alone until its new schedule.
    at(51 * DAY);
    await tick();
    expect(refreshCalls(instagram)).toBe(1);
  });

  it("refreshes a token without expires_at on the network's schedule, never one younger than 24 hours", async () => {
    const ws = await createTestWorkspace();
    const th = await seedThreads(ws);
    // Instagram token connected 12 hours before its expiry: the 24-hour rule would push it past the expiry, so it
    // is tried an hour before instead of never.
    instagram.validTokens.add("ig-late");
    const ig = await seedAccount(ws, {
      platform: "instagram",
      credentials: { access_token: "ig-late", expires_at: t0 + 12 * HOUR },
      tokenExpiresAt: t0 + 12 * HOUR,
    });

    await tick();
    expect([refreshCalls(threads), refreshCalls(instagram)]).toEqual([0, 0]);
    expect((await accountState(th))!.token_refresh_due_at).toBe(t0 + 50 * DAY);
    expect((await accountState(ig))!.token_refresh_due_at).toBe(t0 + 11 * HOUR);

    at(11 * HOUR);
    await tick();
    expect(refreshCalls(instagram)).toBe(1);
    expect((await accountState(ig))!.status).toBe("connected");

    at(50 * DAY);
    await tick();
    expect(refreshCalls(threads)).toBe(1);
    expect(await accountState(th)).toMatchObject({
      status: "connected",
      token_expires_at: t0 + 110 * DAY,
      token_refreshed_at: t0 + 50 * DAY,
      token_refresh_due_at: t0 + 100 * DAY,
    });
  });

  it("marks token_expired only when the network refuses, once the token expired; a transient failure keeps the account and retries later", async () => {
    const ws = await createTestWorkspace();
    const refused = await seedXAccount(ws, {
      credentials: { access_token: "x-access", refresh_token: "revoked", expires_at: t0 + 10 * MINUTE },
      tokenExpiresAt: t0 + 10 * MINUTE,
    });
    const flaky = await seedAccount(ws, {
      platform: "linkedin",
      credentials: { access_token: "access-token", refresh_token: "refresh-token", expires_at: t0 + 5 * DAY },
      tokenExpiresAt: t0 + 5 * DAY,
    });
    linkedin.failNext({ path: "/oauth/v2/accessToken" }, () => new Response("upstream error", { status: 503 }));

    await tick();
    // X answers 400 invalid_request for a refresh token it does not know: a refusal. The access token still has
    // 10 minutes (the cron refreshes 20 minutes ahead), so the account is kept until then (issue 17: never
    // token_expired while the network still takes the token) and tried once more at the expiry.
    expect(await accountState(refused)).toMatchObject({
      status: "connected",
      token_refresh_due_at: t0 + 10 * MINUTE,
      token_refresh_lease_until: null,
    });
    expect(await accountState(flaky)).toMatchObject({
      status: "connected",
      token_expires_at: t0 + 5 * DAY,
      token_refresh_due_at: t0 + 15 * MINUTE,
      token_refresh_lease_until: null,
    });

    at(10 * MINUTE);
    await tick();
    expect((await readAccount(refused))!.status).toBe("token_expired");
    expect(fakes.x.count("POST /2/oauth2/token")).toBe(2);

    at(15 * MINUTE);
    await tick();
    expect(await accountState(flaky)).toMatchObject({
      status: "connected",
      token_expires_at: t0 + 15 * MINUTE + 60 * DAY,
      token_refreshed_at: t0 + 15 * MINUTE,
    });
  });

  it("leaves alone an account it cannot refresh (no refresh token): connected, looked at again in a week", async () => {
    const ws = await createTestWorkspace();
    const id = await seedAccount(ws, {
      platform: "linkedin",
      credentials: { access_token: "access-token", expires_at: t0 + HOUR },
      tokenExpiresAt: t0 + HOUR,
    });
    await tick();
    expect(linkedin.calls).toEqual([]);
    expect(await accountState(id)).toMatchObject({ status: "connected", token_refresh_due_at: t0 + 7 * DAY });
  });

  it("never refreshes one account twice at once: overlapping ticks and a held lease", async () => {
    const ws = await createTestWorkspace();
    const x = await seedXAccount(ws, {
      credentials: { access_token: "x-access", refresh_token: "x-refresh", expires_at: t0 + 5 * MINUTE },
      tokenExpiresAt: t0 + 5 * MINUTE,
    });
    // Two ticks at once: X rotates refresh tokens, so a second refresh with the old one would be refused.
    await Promise.all([tick(), tick()]);
    expect(fakes.x.count("POST /2/oauth2/token")).toBe(1);
    expect((await readAccount(x))!.status).toBe("connected");

    // While another refresh holds the lease, the cron does not start one.
    const y = await seedXAccount(ws, {
      platformUserId: "x-user-2", // another identity: one row per identity in a workspace (issue 18)
      credentials: { access_token: "x-access", refresh_token: "x-refresh-2", expires_at: t0 + 5 * MINUTE },
      tokenExpiresAt: t0 + 5 * MINUTE,
    });
    await env.DB.prepare("UPDATE social_accounts SET token_refresh_lease_until = ? WHERE id = ?")
      .bind(t0 + REFRESH_LEASE_MS, y)
      .run();
    await tick();
    expect(fakes.x.count("POST /2/oauth2/token")).toBe(1);
    at(REFRESH_LEASE_MS);
    await tick();
    expect(fakes.x.count("POST /2/oauth2/token")).toBe(1 + 1);
  });

  it("spreads the work: at most TOKEN_REFRESH_CLAIM_LIMIT accounts a tick, the soonest expiry first", async () => {
    const ws = await createTestWorkspace();
    const count = 2 * TOKEN_REFRESH_CLAIM_LIMIT + 20;
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      // Reverse order of creation, so "soonest expiry first" is not insertion order.
      const expires = t0 + 10 * MINUTE - i * 1000;
      fakes.x.refreshTokens.add(`bulk-${i}`);
      ids.push(
        await seedXAccount(ws, {
          platformUserId: `x-bulk-${i}`, // one row per identity in a workspace (issue 18)
          credentials: { access_token: "x-access", refresh_token: `bulk-${i}`, expires_at: expires },
          tokenExpiresAt: expires,
        }),
      );
    }
    const refreshedIds = async () =>
      (
        await env.DB.prepare("SELECT id FROM social_accounts WHERE workspace_id = ? AND token_refreshed_at IS NOT NULL")
          .bind(ws.workspaceId)
          .all<{ id: string }>()
      ).results.map((r) => r.id);

    await tick();
    expect(fakes.x.count("POST /2/oauth2/token")).toBe(TOKEN_REFRESH_CLAIM_LIMIT);
    // The most urgent ones: the last created.
    expect((await refreshedIds()).sort()).toEqual(ids.slice(-TOKEN_REFRESH_CLAIM_LIMIT).sort());
    await tick();
    await tick();
    expect(fakes.x.count("POST /2/oauth2/token")).toBe(count);
    expect((await refreshedIds()).length).toBe(count);
  });
  // The 59-day run over every network: token-refresh-59-days.test.ts.
});
