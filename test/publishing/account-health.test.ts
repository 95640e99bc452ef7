import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config";
import { socialAccounts } from "../../src/db/schema";
import { linkedInError as mapLinkedInError } from "../../src/platforms/linkedin/api";
import { runAccountHealth } from "../../src/publishing/account-health";
import { loadAccount, markTokenExpired } from "../../src/publishing/accounts";
import { upsertAccounts } from "../../src/services/connect/upsert-accounts";
import { decodeAccountSnapshot } from "../../src/services/webhooks/outbox";
import { fakeFacebookGraph, type MetaGraphFake, metaPermissionError } from "../support/fakes/meta";
import { createTestWorkspace, type TestWorkspace, YMDHIS } from "../support/harness";
import { createEndpoint, readEvents, receiver, recordingQueue, testContext } from "../webhooks/support";
import { deliver, readRow, seedAccount, seedPost } from "./support";

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

  it("Facebook (#200): the row fails saying so, the account needs_reconnect once; the account's next row fails at its time without asking Facebook", async () => {
    const ws = await subscribed();
    const accountId = await seedAccount(ws, {
      platform: "facebook",
      platformUserId: PAGE,
      credentials: { access_token: "access-token" },
    });
    const row = { accountId, platform: "facebook", contentType: "facebook_post" };
    const first = await seedPost(ws, { content: "first", rows: [row] });
    const second = await seedPost(ws, { content: "second", rows: [row] });
    facebook.failNext({ path: `/v23.0/${PAGE}/feed` }, metaPermissionError);

    await deliver(first.messages);
    expect(await readRow(first.rowIds[0]!)).toMatchObject({ status: "failed", error_message: MESSAGE });
    expect(await listed(ws, accountId)).toMatchObject({
      status: "connected",
      health: "needs_reconnect",
      health_reason: REASON,
      updated_at: expect.stringMatching(YMDHIS),
    });
    const calls = facebook.calls.length;

    await deliver(second.messages);
    expect(await readRow(second.rowIds[0]!)).toMatchObject({ status: "failed", error_message: MESSAGE });
    expect(facebook.calls.length).toBe(calls);
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
