import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config";
import { socialAccounts } from "../../src/db/schema";
import { adapterFor } from "../../src/platforms";
import { linkedInError as mapLinkedInError } from "../../src/platforms/linkedin/api";
import { pinterestError } from "../../src/platforms/pinterest/transform";
import { tiktokError } from "../../src/platforms/tiktok/transform";
import { xError } from "../../src/platforms/x/api";
import { youtubeError } from "../../src/platforms/youtube/transform";
import { runAccountHealth } from "../../src/publishing/account-health";
import { loadAccount, markTokenExpired, refreshAccount } from "../../src/publishing/accounts";
import { createAdapterContext } from "../../src/publishing/context";
import { upsertAccounts } from "../../src/services/connect/upsert-accounts";
import { accessFacts } from "../../src/services/social-accounts/account-health";
import { decodeAccountSnapshot } from "../../src/services/webhooks/account-snapshot";
import { phoneMp4 } from "../media/videos";
import { fakeLinkedIn, LinkedInFake } from "../support/fakes/linkedin";
import { fakeFacebookGraph, type MetaGraphFake, metaPermissionError } from "../support/fakes/meta";
import { fakePinterest, PINTEREST_SCOPE_MESSAGE } from "../support/fakes/pinterest";
import { fakeTikTok, TIKTOK_SCOPE_NOT_AUTHORIZED } from "../support/fakes/tiktok";
import { OAUTH1_PERMISSIONS } from "../support/fakes/x";
import { fakeYouTube } from "../support/fakes/youtube";
import { createTestWorkspace, type TestWorkspace, YMDHIS } from "../support/harness";
import { createEndpoint, readEvents, receiver, recordingQueue, testContext } from "../webhooks/support";
import { installFakes, seedXAccount } from "./platforms";
import { deliver, openAccountCredentials, readRow, seedAccount, seedMedia, seedPost } from "./support";

/** Issue 29: account health (docs/account-health.md) — each state, its event once, and what rows do. */

const DAY = 86_400_000;
const HEALTH_EVENTS = ["account.expiring", "account.needs_reconnect", "account.token_expired"];

async function subscribed() {
  const ws = await createTestWorkspace();
  await createEndpoint(ws, receiver().url, HEALTH_EVENTS);
  return ws;
}

const listed = async (ws: TestWorkspace, id: string) =>
  ((await ws.api("GET", "/api/social-accounts")).body as { id: string }[]).find((a) => a.id === id) as Record<
    string,
    unknown
  >;
const types = async (ws: TestWorkspace) => (await readEvents(ws.workspaceId)).map((e) => e.type);
const xErrorOf = (res: Response) => xError(res, Date.now());
const fmt = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace("T", " ");

/** A LinkedIn member connected without a refresh token (most apps: LinkedIn gives them to approved partners only). */
const linkedInMember = (expiresAt: number) => ({
  platform: "linkedin",
  display_name: "Ada",
  username: "ada",
  platform_user_id: `li-${crypto.randomUUID()}`,
  credentials: { access_token: "li-access", expires_at: new Date(expiresAt).toISOString() },
});

describe("account health: an access the service cannot renew", () => {
  it("ok → expiring 7 days before the end (one account.expiring) → needs_reconnect at the end (one event) → a reconnect clears it", async () => {
    const ws = await subscribed();
    const t0 = Date.now();
    const ends = t0 + 20 * DAY;
    const created = await ws.api("POST", "/api/social-accounts", linkedInMember(ends));
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(await listed(ws, id)).toMatchObject({
      expires_at: fmt(ends),
      refreshable: false,
      health: "ok",
      health_reason: null,
    });

    const clock = { now: t0 };
    const ctx = testContext(clock, recordingQueue().queue);
    await runAccountHealth(ctx);
    expect((await listed(ws, id)).health).toBe("ok");

    clock.now = ends - 6 * DAY;
    await runAccountHealth(ctx);
    await runAccountHealth(ctx); // a later tick records nothing again
    expect(await listed(ws, id)).toMatchObject({
      health: "expiring",
      health_reason: `Access ends ${fmt(ends)} UTC and the service cannot renew it: reconnect the account before then.`,
    });
    expect(await types(ws)).toEqual(["account.expiring"]);

    clock.now = ends + 1000;
    await runAccountHealth(ctx);
    await runAccountHealth(ctx);
    expect(await listed(ws, id)).toMatchObject({
      status: "connected",
      health: "needs_reconnect",
      health_reason: `Access ended ${fmt(ends)} UTC: reconnect the account.`,
    });
    expect(await types(ws)).toEqual(["account.expiring", "account.needs_reconnect"]);
    // `data` is the account as the API shows it, at the change.
    const subjects = await env.DB.prepare(
      "SELECT type, subject FROM webhook_events WHERE workspace_id = ? ORDER BY rowid",
    )
      .bind(ws.workspaceId)
      .all<{ type: string; subject: string }>();
    expect(subjects.results.map((e) => [e.type, decodeAccountSnapshot(JSON.parse(e.subject)).health])).toEqual([
      ["account.expiring", "expiring"],
      ["account.needs_reconnect", "needs_reconnect"],
    ]);

    // Reconnecting the same identity, now with a refresh token: renewable, no end, ok.
    const again = await ws.api("POST", "/api/social-accounts", {
      ...linkedInMember(Date.now() + 60 * DAY),
      platform_user_id: (await env.DB.prepare("SELECT platform_user_id FROM social_accounts WHERE id = ?")
        .bind(id)
        .first<{ platform_user_id: string }>())!.platform_user_id,
      credentials: {
        access_token: "li-2",
        refresh_token: "li-refresh",
        expires_at: new Date(Date.now() + 60 * DAY).toISOString(),
      },
    });
    expect(again.body.id).toBe(id);
    expect(await listed(ws, id)).toMatchObject({
      expires_at: null,
      refreshable: true,
      health: "ok",
      health_reason: null,
    });
  });

  it("a Google app in Testing: a YouTube account's access ends 7 days after it connects, so it is expiring at once", async () => {
    const ws = await subscribed();
    const now = Date.now();
    const ctx = {
      ...testContext({ now }, recordingQueue().queue),
      config: { ...loadConfig(env), GOOGLE_OAUTH_APP_TESTING: true },
    };
    const [account] = await upsertAccounts(ctx, ws.workspaceId, [
      {
        platform: "youtube",
        platformUserId: `UC${crypto.randomUUID()}`,
        displayName: "Channel",
        username: "channel",
        avatarUrl: null,
        credentials: { access_token: "ya29", refresh_token: "1//refresh", expires_at: now + 3_599_000 },
        tokenExpiresAt: now + 3_599_000,
        meta: {},
      },
    ]);
    expect(account).toMatchObject({ expires_at: fmt(now + 7 * DAY), refreshable: true, health: "ok" });
    await runAccountHealth(ctx);
    expect(await listed(ws, account!.id)).toMatchObject({ health: "expiring" });
    expect(await types(ws)).toEqual(["account.expiring"]);
  });

  it("accounts from before the fields are looked at by the cron: refreshable and the end filled in", async () => {
    const ws = await createTestWorkspace();
    const ends = Date.now() + 40 * DAY;
    const li = await seedAccount(ws, {
      platform: "linkedin",
      platformUserId: `li-${crypto.randomUUID()}`,
      credentials: { access_token: "a", expires_at: ends },
      tokenExpiresAt: ends,
    });
    const x = await seedAccount(ws, {
      platform: "x",
      platformUserId: `x-${crypto.randomUUID()}`,
      credentials: { access_token: "a", refresh_token: "r" },
    });
    expect(await listed(ws, li)).toMatchObject({ refreshable: null, expires_at: null });
    await runAccountHealth(testContext({ now: Date.now() }, recordingQueue().queue));
    expect(await listed(ws, li)).toMatchObject({ refreshable: false, expires_at: fmt(ends), health: "ok" });
    expect(await listed(ws, x)).toMatchObject({ refreshable: true, expires_at: null, health: "ok" });
  });
});

describe("account health: the session refused", () => {
  it("markTokenExpired also sets needs_reconnect: account.token_expired and account.needs_reconnect, each once", async () => {
    const ws = await subscribed();
    const id = await seedAccount(ws, { platform: "x", credentials: { access_token: "a", refresh_token: "r" } });
    const ctx = testContext({ now: Date.now() }, recordingQueue().queue);
    const loaded = await loadAccount(
      ctx,
      (await ctx.db.select().from(socialAccounts).where(eq(socialAccounts.id, id)).get())!,
    );
    await markTokenExpired(ctx, loaded);
    await markTokenExpired(ctx, loaded);
    expect(await types(ws)).toEqual(["account.token_expired", "account.needs_reconnect"]);
    expect(await listed(ws, id)).toMatchObject({
      status: "token_expired",
      health: "needs_reconnect",
      health_reason: "The network refused the session and its renewal.",
    });
  });
});

describe("account health: a permission the network took back", () => {
  let facebook: MetaGraphFake;
  beforeEach(() => {
    facebook = fakeFacebookGraph();
  });
  afterEach(() => facebook.uninstall());

  const PAGE = "1234567890";
  const REASON =
    "If posting to a page, requires both pages_read_engagement and pages_manage_posts as an admin with sufficient administrative permission";
  const MESSAGE = `The social account needs reconnecting: ${REASON}. Reconnect it, granting the permissions asked for.`;

  it("Facebook (#200): the row fails saying so, the account needs_reconnect once; the next row asks Facebook again and fails the same way; once Facebook takes a post the mark is cleared", async () => {
    const ws = await subscribed();
    const accountId = await seedAccount(ws, {
      platform: "facebook",
      platformUserId: PAGE,
      credentials: { access_token: "access-token" },
    });
    const row = { accountId, platform: "facebook", contentType: "facebook_post" };
    const first = await seedPost(ws, { content: "first", rows: [row] });
    const second = await seedPost(ws, { content: "second", rows: [row] });
    facebook.failNext({ path: `/v26.0/${PAGE}/feed` }, metaPermissionError);

    await deliver(first.messages);
    expect(await readRow(first.rowIds[0]!)).toMatchObject({ status: "failed", error_message: MESSAGE });
    expect(await listed(ws, accountId)).toMatchObject({
      status: "connected",
      health: "needs_reconnect",
      health_reason: REASON,
      updated_at: expect.stringMatching(YMDHIS),
    });
    const feedCalls = () => facebook.calls.filter((c) => c.path === `/v26.0/${PAGE}/feed`).length;
    expect(feedCalls()).toBe(1);

    // Issue 35: the mark does not fail the next row unasked; Facebook refuses again → the same failure, no new event.
    facebook.failNext({ path: `/v26.0/${PAGE}/feed` }, metaPermissionError);
    await deliver(second.messages);
    expect(await readRow(second.rowIds[0]!)).toMatchObject({ status: "failed", error_message: MESSAGE });
    expect(feedCalls()).toBe(2);
    expect(await types(ws)).toEqual(["account.needs_reconnect"]);
    expect(await listed(ws, accountId)).toMatchObject({ health: "needs_reconnect", health_reason: REASON });

    // The role is given back: the next row publishes and the mark is cleared (no event).
    const third = await seedPost(ws, { content: "third", rows: [row] });
    await deliver(third.messages);
    expect(await readRow(third.rowIds[0]!)).toMatchObject({ status: "published", error_message: null });
    expect(feedCalls()).toBe(3);
    expect(await listed(ws, accountId)).toMatchObject({ status: "connected", health: "ok", health_reason: null });
    expect(await types(ws)).toEqual(["account.needs_reconnect"]);
  });

  it("maps LinkedIn's 403 ACCESS_DENIED (and Graph's code 10 / 200–299) to a reconnect; other refusals are not", async () => {
    const denied = mapLinkedInError(
      new Response(null, { status: 403 }),
      {
        status: 403,
        serviceErrorCode: 100,
        code: "ACCESS_DENIED",
        message: "Not enough permissions to access: partnerApiPostsExternal.CREATE.20260801",
      },
      Date.now(),
    );
    const duplicate = mapLinkedInError(
      new Response(null, { status: 422 }),
      { status: 422, message: "Content is a duplicate of urn:li:share:1" },
      Date.now(),
    );
    expect([denied.kind, denied.needsReconnect, duplicate.needsReconnect]).toEqual(["permanent", true, false]);
  });
});

/**
 * X, TikTok, Pinterest and YouTube (issue 29): each network's documented permission refusal marks the account
 * `needs_reconnect` once, in the network's words; the row fails saying so and the account's next row asks the
 * network again (issue 35), failing the same way while the permission is still missing. Each fake answers as its network does when the permission is missing.
 */
describe("account health: X, TikTok, Pinterest and YouTube permission refusals", () => {
  interface Case {
    name: string;
    reason: string;
    /** Installs the network's fake with the permission missing; returns its call log and how to remove it. */
    install: () => { calls: () => number; stop: () => void };
    seed: (ws: TestWorkspace) => Promise<string>;
    contentType: string;
    meta?: Record<string, unknown>;
    media?: (ws: TestWorkspace) => Promise<string[]>;
  }
  const token = { access_token: "access-token", refresh_token: "refresh-token" };
  const video = (ws: TestWorkspace) =>
    seedMedia(ws, "video", { bytes: phoneMp4.bytes, width: 540, height: 960 }).then((id) => [id]);
  const CASES: Case[] = [
    {
      name: "X 403 oauth1-permissions (token granted while the app could only read)",
      reason: `X refused the post: ${OAUTH1_PERMISSIONS.detail}`,
      install: () => {
        const fakes = installFakes();
        fakes.x.writeAccess = false;
        return { calls: () => fakes.x.calls.length, stop: fakes.uninstall };
      },
      seed: (ws) => seedXAccount(ws),
      contentType: "x_post",
    },
    {
      name: "TikTok 401 scope_not_authorized (video.publish not granted)",
      reason: `TikTok: ${TIKTOK_SCOPE_NOT_AUTHORIZED}`,
      install: () => {
        const fake = fakeTikTok({ withoutPublishScope: true });
        return { calls: () => fake.calls.length, stop: fake.stop };
      },
      seed: (ws) => seedAccount(ws, { platform: "tiktok", credentials: token }),
      contentType: "tiktok_video",
      media: video,
    },
    {
      name: "Pinterest 401 code 3 (token without pins:write)",
      reason: `Pinterest: ${PINTEREST_SCOPE_MESSAGE}`,
      install: () => {
        const fake = fakePinterest({ withoutWriteScope: true });
        return { calls: () => fake.calls.length, stop: fake.stop };
      },
      seed: (ws) => seedAccount(ws, { platform: "pinterest", credentials: token }),
      contentType: "pinterest_pin",
      meta: { board_id: "549755885175", title: "Pin" },
      media: (ws) => seedMedia(ws, "image").then((id) => [id]),
    },
    {
      name: "YouTube 403 insufficientPermissions (token without youtube.upload)",
      reason: "YouTube: Request had insufficient authentication scopes.",
      install: () => {
        const fake = fakeYouTube({ uploadScope: false });
        return { calls: () => fake.calls.length, stop: fake.stop };
      },
      seed: (ws) => seedAccount(ws, { platform: "youtube", credentials: token }),
      contentType: "youtube_short",
      media: video,
    },
  ];

  let stop: (() => void) | undefined;
  afterEach(() => {
    stop?.();
    stop = undefined;
  });

  it.each(CASES)("$name", async (c) => {
    const fake = c.install();
    stop = fake.stop;
    const ws = await subscribed();
    const accountId = await c.seed(ws);
    const platform = c.contentType.startsWith("x_") ? "x" : c.contentType.split("_")[0]!;
    const row = { accountId, platform, contentType: c.contentType, meta: c.meta };
    const first = await seedPost(ws, { content: "first", rows: [row], mediaIds: c.media ? await c.media(ws) : [] });
    const second = await seedPost(ws, { content: "second", rows: [row], mediaIds: c.media ? await c.media(ws) : [] });
    const message = `The social account needs reconnecting: ${c.reason} Reconnect it, granting the permissions asked for.`;

    await deliver(first.messages);
    expect(await readRow(first.rowIds[0]!)).toMatchObject({ status: "failed", error_message: message });
    expect(await listed(ws, accountId)).toMatchObject({
      status: "connected",
      health: "needs_reconnect",
      health_reason: c.reason,
    });
    const calls = fake.calls();

    // The next row asks the network again (issue 35): still refused, the same failure and no second event.
    await deliver(second.messages);
    expect(await readRow(second.rowIds[0]!)).toMatchObject({ status: "failed", error_message: message });
    expect(fake.calls()).toBeGreaterThan(calls);
    expect(await listed(ws, accountId)).toMatchObject({ health: "needs_reconnect", health_reason: c.reason });
    expect(await types(ws)).toEqual(["account.needs_reconnect"]);
  });

  it("other refusals of these networks do not mark the account", () => {
    const h = new Headers();
    const x = (type: string, detail: string) =>
      xErrorOf(new Response(JSON.stringify({ title: "Forbidden", status: 403, type, detail }), { status: 403 }));
    const tiktok = (status: number, code: string) =>
      tiktokError(status, { error: { code, message: "m", log_id: "l" } } as never, h, 0);
    const pinterest = (status: number, code: number) => pinterestError(status, { code, message: "m" }, h, 0);
    const youtube = (status: number, reason: string, call?: "comment") =>
      youtubeError(status, { error: { code: status, message: "m", errors: [{ reason, message: "m" }] } }, h, 0, call);
    return Promise.all([
      x("about:blank", "You are not allowed to create a Tweet with duplicate content."),
      x("https://api.twitter.com/2/problems/client-forbidden", "client-not-enrolled"),
      x(
        "https://api.twitter.com/2/problems/unsupported-authentication",
        "Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint.",
      ),
    ]).then((xs) => {
      expect(xs.map((e) => e.needsReconnect)).toEqual([false, false, true]);
      expect(
        [
          tiktok(401, "access_token_invalid"),
          tiktok(403, "spam_risk_too_many_posts"),
          tiktok(401, "scope_permission_missed"),
          pinterest(401, 2),
          pinterest(403, 29),
          pinterest(401, 3),
          youtube(403, "quotaExceeded"),
          youtube(403, "forbidden"),
          youtube(401, "youtubeSignupRequired"),
          youtube(403, "authenticatedUserAccountSuspended"),
        ].map((e) => [e.kind, e.needsReconnect]),
      ).toEqual([
        ["auth", false],
        ["permanent", false],
        ["permanent", true],
        ["auth", false],
        ["permanent", false],
        ["permanent", true],
        ["transient", false],
        ["permanent", false],
        ["permanent", true],
        ["permanent", true],
      ]);
      // A first comment without youtube.force-ssl keeps its own message (comment errors never mark the account).
      expect(youtube(403, "insufficientPermissions", "comment").message).toMatch(
        /^YouTube did not let this app comment/,
      );
    });
  });
});

/**
 * Refresh tokens that end (issue 29): where the network's token answer gives the refresh token's own life
 * (`refresh_token_expires_in` — LinkedIn, Pinterest; `refresh_expires_in` — TikTok), the account's access ends then:
 * `expires_at` shows it, `expiring` 7 days before with one event, `needs_reconnect` at the end. A refresh that brings
 * a new refresh token with a fresh life (Pinterest continuous refresh, TikTok) moves the end and heals `expiring`.
 */
describe("account health: refresh tokens that end", () => {
  const YEAR = 365 * DAY;
  const refreshable = (platform: string, refreshEnds: number, now: number) => ({
    platform: platform as "linkedin",
    platformUserId: `${platform}-${crypto.randomUUID()}`,
    displayName: "Ada",
    username: "ada",
    avatarUrl: null,
    credentials: {
      access_token: "access-token",
      refresh_token: "refresh-token",
      expires_at: now + 30 * DAY,
      refresh_expires_at: refreshEnds,
    },
    tokenExpiresAt: now + 30 * DAY,
    meta: {},
  });

  it.each([
    ["linkedin", YEAR],
    ["pinterest", 60 * DAY],
    ["tiktok", 180 * DAY],
  ])(
    "%s: expires_at is the refresh token's end; expiring 7 days before (one event); needs_reconnect at the end",
    async (platform, life) => {
      const ws = await subscribed();
      const t0 = Date.now();
      const ends = t0 + life;
      const clock = { now: t0 };
      const ctx = testContext(clock, recordingQueue().queue);
      const [account] = await upsertAccounts(ctx, ws.workspaceId, [refreshable(platform, ends, t0)]);
      expect(account).toMatchObject({ expires_at: fmt(ends), refreshable: true, health: "ok" });

      clock.now = ends - 8 * DAY;
      await runAccountHealth(ctx);
      expect((await listed(ws, account!.id)).health).toBe("ok");

      clock.now = ends - 6 * DAY;
      await runAccountHealth(ctx);
      await runAccountHealth(ctx);
      expect(await listed(ws, account!.id)).toMatchObject({
        health: "expiring",
        health_reason: `Access ends ${fmt(ends)} UTC and the service cannot renew it: reconnect the account before then.`,
      });
      clock.now = ends + 1000;
      await runAccountHealth(ctx);
      expect(await listed(ws, account!.id)).toMatchObject({ health: "needs_reconnect" });
      expect(await types(ws)).toEqual(["account.expiring", "account.needs_reconnect"]);
    },
  );

  describe("a refresh", () => {
    let pinterest: ReturnType<typeof fakePinterest>;
    let linkedin: LinkedInFake;
    afterEach(() => {
      pinterest?.stop();
      linkedin?.uninstall();
    });

    async function refreshNow(ws: TestWorkspace, id: string, now: number) {
      const ctx = testContext({ now }, recordingQueue().queue);
      const row = (await ctx.db.select().from(socialAccounts).where(eq(socialAccounts.id, id)).get())!;
      const loaded = await loadAccount(ctx, row);
      const outcome = await refreshAccount(ctx, createAdapterContext(ctx), adapterFor(row.platform)!, loaded);
      expect(outcome.ok).toBe(true);
      return listed(ws, id);
    }

    it("Pinterest continuous refresh: a new refresh token with 60 days moves the end and heals expiring", async () => {
      pinterest = fakePinterest();
      const ws = await subscribed();
      const now = Date.now();
      const ends = now + 5 * DAY;
      const ctx = testContext({ now }, recordingQueue().queue);
      const [account] = await upsertAccounts(ctx, ws.workspaceId, [refreshable("pinterest", ends, now)]);
      await runAccountHealth(ctx);
      expect(await listed(ws, account!.id)).toMatchObject({ expires_at: fmt(ends), health: "expiring" });

      const after = await refreshNow(ws, account!.id, now);
      expect(after).toMatchObject({ expires_at: fmt(now + 60 * DAY), health: "ok", health_reason: null });
      expect((await openAccountCredentials(account!.id)).refresh_expires_at).toBe(now + 60 * DAY);
      expect(await types(ws)).toEqual(["account.expiring"]);
    });

    it("LinkedIn: the same refresh token comes back with what is left of its life, so the end stays", async () => {
      linkedin = fakeLinkedIn();
      const ws = await subscribed();
      const now = Date.now();
      // The fake's refresh token was issued 100 days ago: 265 days left.
      linkedin.clock.issue("refresh-token", LinkedInFake.REFRESH_TOKEN_MS, now - 100 * DAY);
      const ctx = testContext({ now }, recordingQueue().queue);
      const [account] = await upsertAccounts(ctx, ws.workspaceId, [refreshable("linkedin", now + 265 * DAY, now)]);
      const after = await refreshNow(ws, account!.id, now);
      const left = Date.parse(`${after.expires_at as string}Z`) - now;
      expect(Math.abs(left - 265 * DAY)).toBeLessThan(5000);
      expect(after.health).toBe("ok");
    });
  });
});

describe("accessFacts: the earlier of two ends", () => {
  it("a YouTube account of a Google app in Testing whose refresh token also states an earlier end takes that end", () => {
    const obtained = 1_000_000;
    const creds = { access_token: "a", refresh_token: "r", refresh_expires_at: obtained + 3 * DAY };
    expect(accessFacts({ GOOGLE_OAUTH_APP_TESTING: true }, "youtube", creds, null, obtained)).toEqual({
      refreshable: true,
      accessEndsAt: obtained + 3 * DAY,
    });
    expect(
      accessFacts(
        { GOOGLE_OAUTH_APP_TESTING: true },
        "youtube",
        { ...creds, refresh_expires_at: undefined },
        null,
        obtained,
      ),
    ).toEqual({ refreshable: true, accessEndsAt: obtained + 7 * DAY });
    expect(
      accessFacts({ GOOGLE_OAUTH_APP_TESTING: false }, "x", { access_token: "a", refresh_token: "r" }, null, obtained),
    ).toEqual({
      refreshable: true,
      accessEndsAt: null,
    });
  });
});
