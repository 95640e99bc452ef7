// fresh storage: runs the Worker's cron, which works on every workspace's rows at once.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { PROACTIVE_REFRESH_PLATFORMS } from "../../src/publishing/token-schedule";
import { BSKY_PDS } from "../support/fakes/bluesky";
import { fakeLinkedIn, type LinkedInFake } from "../support/fakes/linkedin";
import { MetaGraphFake } from "../support/fakes/meta";
import { fakePinterest, PINTEREST_REFRESH_TOKEN_MS, type PinterestFake } from "../support/fakes/pinterest";
import { fakeJwt } from "../support/fakes/scripted";
import { ThreadsFake } from "../support/fakes/threads";
import { fakeTikTok, type TikTokFake } from "../support/fakes/tiktok";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../support/fakes/token-clock";
import { fakeYouTube } from "../support/fakes/youtube";
import type { TestWorkspace } from "../support/harness";
import { createEndpoint, receiver, recordingQueue as webhookQueue } from "../webhooks/support";
import { type Fakes, installFakes, seedBlueskyAccount, seedXAccount } from "./platforms";
import {
  createTestWorkspace,
  deliver,
  instantLongWaits,
  openAccountCredentials,
  readRow,
  recordingQueue,
  seedAccount,
  seedMedia,
  seedPost,
} from "./support";

/**
 * Issue 17, "done when": the proactive refresh shown working on a clock moved forward 59 days. Every fake times its
 * tokens as its network does (test/support/fakes/token-clock.ts, docs/token-refresh.md), and the fakes' clock and
 * the app's `now` are the same faked `Date`. The cron runs on its schedule: the clock jumps from one due refresh to
 * the next (a minute's tick with nothing due does nothing) over the first and the last day before publishing, and a
 * tick a day in between; every tick is two overlapping cron invocations.
 */

let fakes: Fakes;
let instagram: MetaGraphFake;
let facebook: MetaGraphFake;
let threads: ThreadsFake;
let linkedin: LinkedInFake;
let pinterest: PinterestFake;
let tiktok: TikTokFake;
let youtube: ReturnType<typeof fakeYouTube>;
let t0: number;

beforeEach(() => {
  fakes = installFakes();
  instagram = new MetaGraphFake("https://instagram.fake");
  facebook = new MetaGraphFake("https://facebook.fake");
  threads = new ThreadsFake();
  linkedin = fakeLinkedIn();
  pinterest = fakePinterest();
  tiktok = fakeTikTok();
  youtube = fakeYouTube({ processing: [{ uploadStatus: "processed", processingStatus: "succeeded" }] });
  // Only Date is faked: the clock moves when the test says so, timers and I/O stay real.
  vi.useFakeTimers({ toFake: ["Date"] });
  t0 = Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS;
  vi.setSystemTime(t0);
  instantLongWaits(); // YouTube's and TikTok's processing polls wait seconds: not for real here
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  fakes.uninstall();
  for (const stop of [instagram.uninstall, facebook.uninstall, threads.uninstall, linkedin.uninstall]) stop();
  pinterest.stop();
  tiktok.stop();
  youtube.stop();
});

const publishQueue = recordingQueue();
const webhooks = webhookQueue();

/** One tick of the worker's every-minute cron (publish and webhook queues recorded, not consumed). */
async function cronTick(): Promise<void> {
  const ctx = createExecutionContext();
  const tickEnv = { ...env, PUBLISH_QUEUE: publishQueue.queue, WEBHOOK_QUEUE: webhooks.queue };
  await worker.scheduled!(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), tickEnv, ctx);
  await waitOnExecutionContext(ctx);
}

type Seeded = Record<string, string>;

/**
 * One account per network with refresh (the nine platforms of REFRESH_SCHEDULES), each holding tokens the network
 * issued just now, and the two Facebook Login ones (no refresh: their Page token does not expire).
 */
async function seedLiving(ws: TestWorkspace): Promise<Seeded> {
  instagram.validTokens.add("ig-token");
  instagram.longLived.issue("ig-token");
  threads.validTokens.add("th-token");
  threads.longLived.issue("th-token");
  linkedin.clock.issue("access-token", 60 * DAY_MS);
  linkedin.clock.issue("refresh-token", 365 * DAY_MS);
  pinterest.clock.issue("access-token", 30 * DAY_MS);
  pinterest.clock.issue("refresh-token", PINTEREST_REFRESH_TOKEN_MS);
  tiktok.clock.issue("access-token", 2 * HOUR_MS);
  tiktok.clock.issue("refresh-token", 180 * DAY_MS);
  youtube.clock.issue("access-token", HOUR_MS);
  fakes.x.clock.issue("x-access", 2 * HOUR_MS);
  // A Page token obtained with a long-lived user token: no expiry — though stored with its user token's.
  facebook.validTokens.add("page-token");

  const oauth = (expiresIn: number) => ({
    credentials: { access_token: "access-token", refresh_token: "refresh-token", expires_at: t0 + expiresIn },
    tokenExpiresAt: t0 + expiresIn,
  });
  return {
    instagram: await seedAccount(ws, {
      platform: "instagram",
      platformUserId: "17841400000000000",
      credentials: { access_token: "ig-token", expires_at: t0 + 60 * DAY_MS },
      tokenExpiresAt: t0 + 60 * DAY_MS,
    }),
    // Connected without an expiry: refreshed on Threads' schedule from the connection.
    threads: await seedAccount(ws, { platform: "threads", credentials: { access_token: "th-token" } }),
    linkedin: await seedAccount(ws, { platform: "linkedin", platformUserId: "abc123", ...oauth(60 * DAY_MS) }),
    linkedinPage: await seedAccount(ws, {
      platform: "linkedin-page",
      platformUserId: "2414183",
      ...oauth(60 * DAY_MS),
    }),
    pinterest: await seedAccount(ws, {
      platform: "pinterest",
      meta: { default_board_id: "549755885175" },
      ...oauth(30 * DAY_MS),
    }),
    tiktok: await seedAccount(ws, { platform: "tiktok", ...oauth(2 * HOUR_MS) }),
    youtube: await seedAccount(ws, { platform: "youtube", ...oauth(HOUR_MS) }),
    x: await seedXAccount(ws),
    bluesky: await seedBlueskyAccount(ws, fakes.bluesky, { meta: { service: BSKY_PDS, did: fakes.bluesky.did } }),
    facebook: await seedAccount(ws, {
      platform: "facebook",
      credentials: { access_token: "page-token", expires_at: t0 + HOUR_MS },
      tokenExpiresAt: t0 + HOUR_MS,
    }),
    instagramFacebook: await seedAccount(ws, {
      platform: "instagram-facebook",
      platformUserId: "17841400000000001",
      credentials: { access_token: "page-token", expires_at: t0 + HOUR_MS },
      tokenExpiresAt: t0 + HOUR_MS,
    }),
  };
}

/**
 * One account per network whose network refuses to renew it, and when the network stops accepting its token
 * (`deadFrom`): it may be marked token_expired only from then on.
 */
async function seedDying(ws: TestWorkspace): Promise<{ ids: Seeded; deadFrom: Record<string, number> }> {
  const other = (platform: string) => ({ platform, platformUserId: `gone-${platform}` });
  // Instagram: a 60-day token nobody refreshed, expired a day ago — no longer refreshable.
  instagram.validTokens.add("ig-old");
  instagram.longLived.issue("ig-old", t0 - 61 * DAY_MS);
  // Threads: a token the user revoked (the network knows it no more), connected without an expiry.
  // LinkedIn: the refresh token's 365 days end in 3 days (and the access tokens it mints end with it).
  linkedin.validTokens.add("li-old");
  linkedin.refreshTokens.add("li-old-refresh");
  linkedin.clock.issue("li-old-refresh", 365 * DAY_MS, t0 - 362 * DAY_MS);
  linkedin.clock.expireAt("li-old", t0 + 3 * DAY_MS);
  // X and TikTok: a refresh token already spent (rotated away); Bluesky: a refresh JWT the PDS no longer holds.
  fakes.x.accessTokens.add("x-old");
  fakes.x.clock.issue("x-old", 2 * HOUR_MS, t0 - 3 * HOUR_MS);
  // YouTube: a refresh token the user revoked. Pinterest: a refresh token past its 60 days, beside an access token
  // that still works 3 days — the account stays connected until then.
  pinterest.refreshTokens.add("pin-old-refresh");
  pinterest.clock.issue("pin-old-refresh", PINTEREST_REFRESH_TOKEN_MS, t0 - 61 * DAY_MS);
  pinterest.accessTokens.add("pin-old");
  pinterest.clock.expireAt("pin-old", t0 + 3 * DAY_MS);

  const ids = {
    instagram: await seedAccount(ws, {
      ...other("instagram"),
      credentials: { access_token: "ig-old", expires_at: t0 - DAY_MS },
      tokenExpiresAt: t0 - DAY_MS,
    }),
    threads: await seedAccount(ws, { ...other("threads"), credentials: { access_token: "th-revoked" } }),
    linkedin: await seedAccount(ws, {
      ...other("linkedin"),
      credentials: { access_token: "li-old", refresh_token: "li-old-refresh", expires_at: t0 + 3 * DAY_MS },
      tokenExpiresAt: t0 + 3 * DAY_MS,
    }),
    pinterest: await seedAccount(ws, {
      ...other("pinterest"),
      credentials: { access_token: "pin-old", refresh_token: "pin-old-refresh", expires_at: t0 + 3 * DAY_MS },
      tokenExpiresAt: t0 + 3 * DAY_MS,
    }),
    tiktok: await seedAccount(ws, {
      ...other("tiktok"),
      credentials: { access_token: "tt-old", refresh_token: "tt-spent", expires_at: t0 + 10 * MINUTE_MS },
      tokenExpiresAt: t0 + 10 * MINUTE_MS,
    }),
    youtube: await seedAccount(ws, {
      ...other("youtube"),
      credentials: { access_token: "yt-old", refresh_token: "yt-revoked", expires_at: t0 - MINUTE_MS },
      tokenExpiresAt: t0 - MINUTE_MS,
    }),
    x: await seedXAccount(ws, {
      platformUserId: "gone-x",
      credentials: { access_token: "x-old", refresh_token: "x-spent", expires_at: t0 - HOUR_MS },
      tokenExpiresAt: t0 - HOUR_MS,
    }),
    bluesky: await seedAccount(ws, {
      ...other("bluesky"),
      credentials: { access_jwt: fakeJwt(t0 / 1000 - 60, "did:plc:gone"), refresh_jwt: "refresh-gone" },
      meta: { service: BSKY_PDS, did: "did:plc:gone" },
    }),
  };
  // "tt-old" and "yt-old" are unknown to their fakes; "tt-spent", "yt-revoked", "x-spent", "refresh-gone" too.
  const deadFrom = {
    instagram: t0 - DAY_MS,
    threads: t0,
    linkedin: t0 + 3 * DAY_MS,
    pinterest: t0 + 3 * DAY_MS,
    tiktok: t0,
    youtube: t0,
    x: t0 - HOUR_MS,
    bluesky: t0,
  };
  return { ids, deadFrom };
}

const statusesOf = async (ids: string[]) => {
  const rows = await env.DB.prepare(
    "SELECT id, status FROM social_accounts WHERE id IN (SELECT value FROM json_each(?))",
  )
    .bind(JSON.stringify(ids))
    .all<{ id: string; status: string }>();
  return new Map(rows.results.map((r) => [r.id, r.status]));
};

const nextDue = async (workspaceId: string) =>
  (
    await env.DB.prepare(
      "SELECT MIN(token_refresh_due_at) AS due FROM social_accounts WHERE workspace_id = ? AND status = 'connected'",
    )
      .bind(workspaceId)
      .first<{ due: number | null }>()
  )?.due ?? null;

const tokenExpiredEvents = (workspaceId: string) =>
  env.DB.prepare("SELECT subject FROM webhook_events WHERE workspace_id = ? AND type = 'account.token_expired'")
    .bind(workspaceId)
    .all<{ subject: string }>()
    // The subject is the account row as the event saw it: its id first.
    .then((r) => r.results.map((e) => (JSON.parse(e.subject) as string[])[0]!).sort());

describe("59 days on the networks' own clocks", () => {
  it("every account with refresh publishes on day 59 and 61; only the refused ones are marked token_expired, each after its token died, with the webhook event", async () => {
    const ws = await createTestWorkspace();
    await createEndpoint(ws, receiver().url, ["account.token_expired"]);
    const living = await seedLiving(ws);
    const dying = await seedDying(ws);
    const livingIds = Object.values(living);
    const dyingIds = Object.values(dying.ids);
    // Every platform the cron refreshes is among the living accounts (a new one must be added here).
    const livingPlatforms = (
      await env.DB.prepare("SELECT platform FROM social_accounts WHERE id IN (SELECT value FROM json_each(?))")
        .bind(JSON.stringify(livingIds))
        .all<{ platform: string }>()
    ).results.map((r) => r.platform);
    expect(PROACTIVE_REFRESH_PLATFORMS.filter((p) => !livingPlatforms.includes(p))).toEqual([]);
    const markedAt = new Map<string, number>();
    let ticks = 0;

    const tickAndCheck = async (now: number) => {
      await Promise.all([cronTick(), cronTick()]);
      ticks++;
      const statuses = await statusesOf([...livingIds, ...dyingIds]);
      for (const id of livingIds) expect([id, statuses.get(id)]).toEqual([id, "connected"]);
      for (const id of dyingIds) if (statuses.get(id) !== "connected" && !markedAt.has(id)) markedAt.set(id, now);
    };
    /**
     * The cron on its schedule until `until`: the clock jumps to the next minute with a refresh due (a tick with
     * nothing due changes nothing), so every refresh happens when the cron would make it.
     */
    const everyDueMinute = async (until: number) => {
      for (let now = Date.now(); now <= until; ) {
        await tickAndCheck(now);
        const due = await nextDue(ws.workspaceId);
        now = Math.max(now + MINUTE_MS, Math.ceil((due ?? until + 1) / MINUTE_MS) * MINUTE_MS);
        if (now > until) break;
        vi.setSystemTime(now);
      }
      vi.setSystemTime(until);
    };
    /**
     * Between those windows one tick a day (a Worker whose cron did not run for a day): the hourly networks'
     * access tokens lapse in between, but their refresh tokens live on and nothing is marked.
     */
    const daily = async (fromDay: number, toDay: number) => {
      for (let day = fromDay; day <= toDay; day++) {
        vi.setSystemTime(t0 + day * DAY_MS);
        await tickAndCheck(t0 + day * DAY_MS);
      }
    };

    const publishAll = async (label: string) => {
      const image = await seedMedia(ws, "image");
      const video = await seedMedia(ws, "video");
      const posts = [
        await seedPost(ws, {
          content: `Still here ${label}`,
          rows: [
            { accountId: living.threads!, platform: "threads", contentType: "threads_post" },
            { accountId: living.linkedin!, platform: "linkedin", contentType: "linkedin_post" },
            { accountId: living.linkedinPage!, platform: "linkedin-page", contentType: "linkedin_page_post" },
            { accountId: living.x!, platform: "x", contentType: "x_post" },
            { accountId: living.bluesky!, platform: "bluesky", contentType: "bluesky_post" },
            { accountId: living.facebook!, platform: "facebook", contentType: "facebook_post" },
          ],
        }),
        await seedPost(ws, {
          content: `Picture ${label}`,
          mediaIds: [image],
          rows: [
            { accountId: living.instagram!, platform: "instagram", contentType: "instagram_feed" },
            { accountId: living.pinterest!, platform: "pinterest", contentType: "pinterest_pin" },
            { accountId: living.instagramFacebook!, platform: "instagram-facebook", contentType: "instagram_feed" },
          ],
        }),
        await seedPost(ws, {
          content: `Video ${label}`,
          mediaIds: [video],
          rows: [
            { accountId: living.tiktok!, platform: "tiktok", contentType: "tiktok_video" },
            { accountId: living.youtube!, platform: "youtube", contentType: "youtube_short" },
          ],
        }),
      ];
      await deliver(posts.flatMap((p) => p.messages));
      const rows = await Promise.all(posts.flatMap((p) => p.rowIds).map(async (id) => (await readRow(id))!));
      return rows.map((r) => [r.status, r.error_message]);
    };
    const allPublished = Array.from({ length: 11 }, () => ["published", null]);

    await everyDueMinute(t0 + 12 * HOUR_MS);
    await daily(1, 58);
    vi.setSystemTime(t0 + 58 * DAY_MS + 12 * HOUR_MS);
    await everyDueMinute(t0 + 59 * DAY_MS);
    expect(await publishAll("on day 59")).toEqual(allPublished);
    // Past the day the first 60-day tokens would have died.
    await daily(60, 61);
    expect(await publishAll("on day 61")).toEqual(allPublished);

    expect(Object.fromEntries([...(await statusesOf(livingIds))].map(([, s], i) => [i, s]))).toEqual(
      Object.fromEntries(livingIds.map((_, i) => [i, "connected"])),
    );
    // Each refused account is marked once, never before its network stopped taking its token.
    expect(Object.fromEntries(Object.entries(dying.ids).map(([k, id]) => [k, markedAt.has(id)]))).toEqual(
      Object.fromEntries(Object.keys(dying.ids).map((k) => [k, true])),
    );
    for (const [k, id] of Object.entries(dying.ids)) {
      expect([k, markedAt.get(id)! >= dying.deadFrom[k]!]).toEqual([k, true]);
    }
    expect(await tokenExpiredEvents(ws.workspaceId)).toEqual([...dyingIds].sort());

    // The tokens were renewed ahead of their expiry, on each network's schedule.
    expect((await openAccountCredentials(living.instagram!)).access_token).toBe("ig-refreshed-1");
    expect((await openAccountCredentials(living.threads!)).access_token).toBe("th-refreshed-1");
    const x = await openAccountCredentials(living.x!);
    expect(fakes.x.refreshTokens.has(x.refresh_token!)).toBe(true);
    expect(tiktok.refreshTokens.has((await openAccountCredentials(living.tiktok!)).refresh_token!)).toBe(true);
    // Two cron invocations at once every tick, yet no rotating refresh token was ever spent twice: a second use
    // would have been refused and the account marked (checked after every tick above).
    expect(ticks).toBeGreaterThan(90);
  }, 240_000);
});
