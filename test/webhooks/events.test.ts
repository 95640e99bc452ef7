// fresh storage: runs the Worker's cron, which works on every workspace's rows at once.
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { socialAccounts } from "../../src/db/schema";
import { loadAccount, markTokenExpired } from "../../src/publishing/accounts";
import { WEBHOOK_EVENT_TYPES } from "../../src/services/webhooks/event-types";
import { postEvent } from "../../src/services/webhooks/outbox";
import { GIF_1X1, mediaForm } from "../media/fixtures";
import { type Fakes, installFakes, seedXAccount } from "../publishing/platforms";
import {
  deliverThroughRuntime,
  recordingQueue as publishQueue,
  readPost,
  seedAccount,
  seedPost,
  tick,
} from "../publishing/support";
import { BSKY_PDS, BSKY_VIDEO } from "../support/fakes/bluesky";
import { MASTODON } from "../support/fakes/mastodon";
import { call, createTestWorkspace, type TestWorkspace } from "../support/harness";
import { createEndpoint, readEvents, receiver, recordingQueue, testContext, verify, waitFor } from "./support";

let fakes: Fakes;
beforeEach(() => {
  fakes = installFakes();
});
afterEach(() => fakes.uninstall());

const ALL = [...WEBHOOK_EVENT_TYPES];

async function subscribe(ws: TestWorkspace, events: string[] = ALL) {
  const hook = receiver();
  const endpoint = await createEndpoint(ws, hook.url, events);
  const types = () => hook.received.map((r) => r.json.type);
  return { ...hook, ...endpoint, types };
}

const countTypes = async (ws: TestWorkspace) => {
  const counts: Record<string, number> = {};
  for (const e of await readEvents(ws.workspaceId)) counts[e.type] = (counts[e.type] ?? 0) + 1;
  return counts;
};

describe("end to end: schedule → cron → publish → receiver", () => {
  it("delivers post.platform.published per row, then post.published, each once, signed, with the REST resources", async () => {
    const ws = await createTestWorkspace();
    const hook = await subscribe(ws, ["post.scheduled", "post.platform.published", "post.published", "post.failed"]);
    const connect = async (body: unknown) => (await ws.api("POST", "/api/social-accounts", body)).body.id as string;
    const x = await connect({
      platform: "x",
      display_name: "Alice on X",
      username: "alice_x",
      platform_user_id: "1234567890",
      credentials: {
        access_token: "x-access",
        refresh_token: "x-refresh",
        expires_at: new Date(Date.now() + 7200_000).toISOString(),
      },
    });
    const bluesky = await connect({
      platform: "bluesky",
      display_name: "Alice on Bluesky",
      username: "",
      credentials: { identifier: fakes.bluesky.identifier, app_password: fakes.bluesky.password },
      meta: { service: BSKY_PDS, video_service: BSKY_VIDEO },
    });
    const mastodon = await connect({
      platform: "mastodon",
      display_name: "Alice on Mastodon",
      username: "alice",
      credentials: { access_token: "masto-token" },
      meta: { instance: MASTODON },
    });
    const created = await ws.api("POST", "/api/posts", {
      content: "Launch day https://example.com #launch",
      platforms: [
        { social_account_id: x, content_type: "x_post" },
        { social_account_id: bluesky, content_type: "bluesky_post" },
        { social_account_id: mastodon, content_type: "mastodon_post" },
      ],
    });
    const postId = created.body.id as string;
    const scheduled = await ws.api("PUT", `/api/posts/${postId}`, {
      status: "scheduled",
      scheduled_at: new Date(Date.now() + 120_000).toISOString(),
    });
    expect(scheduled.status).toBe(200);
    await waitFor(() => hook.received.length === 1);
    expect(verify(hook.secret, hook.received[0]!)).toEqual({
      type: "post.scheduled",
      timestamp: expect.any(String),
      data: scheduled.body,
    });

    await env.DB.prepare("UPDATE posts SET scheduled_at = ? WHERE id = ?")
      .bind(Date.now() - 1000, postId)
      .run();
    const messages = await tick(publishQueue());
    expect(messages).toHaveLength(3);
    const result = await deliverThroughRuntime(messages);
    expect(result.explicitAcks.sort()).toEqual(["msg-0", "msg-1", "msg-2"]);
    expect((await readPost(postId))!.status).toBe("published");
    await waitFor(() => hook.received.length === 5);

    // A duplicate delivery of the publish messages records nothing more.
    await deliverThroughRuntime(messages, { attempts: 2 });
    await tick(publishQueue());
    expect(await countTypes(ws)).toEqual({ "post.scheduled": 1, "post.platform.published": 3, "post.published": 1 });

    expect(hook.types()).toEqual([
      "post.scheduled",
      "post.platform.published",
      "post.platform.published",
      "post.platform.published",
      "post.published",
    ]);
    const payloads = hook.received.map((r) => verify(hook.secret, r));
    const shown = (await ws.api("GET", `/api/posts/${postId}`)).body;
    expect(payloads[4]!.data).toEqual(shown);
    const rows = payloads.slice(1, 4).map((p) => p.data);
    expect(rows.map((r) => r.id).sort()).toEqual(shown.platforms.map((p: { id: string }) => p.id).sort());
    for (const row of rows) {
      expect(row).toEqual({ ...shown.platforms.find((p: { id: string }) => p.id === row.id), post_id: postId });
      expect(row.status).toBe("published");
    }
    expect(new Set(hook.received.map((r) => r.headers["webhook-id"])).size).toBe(5);
  });

  it("a failed row sends post.platform.failed with its error_message, then the post's final status", async () => {
    const ws = await createTestWorkspace();
    const hook = await subscribe(ws);
    const xAccount = await seedXAccount(ws);
    const mastodonAccount = await seedAccount(ws, {
      platform: "mastodon",
      credentials: { access_token: "masto-token" },
      meta: { instance: MASTODON },
    });
    const tooLongForX = "a".repeat(290);
    const partial = await seedPost(ws, {
      content: tooLongForX,
      rows: [
        { accountId: xAccount, platform: "x", contentType: "x_post" },
        { accountId: mastodonAccount, platform: "mastodon", contentType: "mastodon_post" },
      ],
    });
    const failed = await seedPost(ws, {
      content: tooLongForX,
      rows: [{ accountId: xAccount, platform: "x", contentType: "x_post" }],
    });
    await deliverThroughRuntime(partial.messages);
    await deliverThroughRuntime(failed.messages);
    await waitFor(() => hook.received.length === 5);
    expect(await countTypes(ws)).toEqual({
      "post.platform.failed": 2,
      "post.platform.published": 1,
      "post.partially_published": 1,
      "post.failed": 1,
    });
    const byPost = (id: string) =>
      hook.received.map((r) => verify(hook.secret, r)).filter((p) => (p.data.post_id ?? p.data.id) === id);
    const partialEvents = byPost(partial.postId);
    expect(partialEvents.map((p) => p.type).slice(-1)).toEqual(["post.partially_published"]);
    const xFailure = partialEvents.find((p) => p.type === "post.platform.failed")!;
    expect(xFailure.data).toMatchObject({
      id: partial.rowIds[0],
      platform: "x",
      status: "failed",
      post_id: partial.postId,
    });
    expect(xFailure.data.error_message).toMatch(/280/);
    expect(byPost(failed.postId).map((p) => p.type)).toEqual(["post.platform.failed", "post.failed"]);
  });
});

describe("account and media events", () => {
  it("account.connected and account.disconnected, once each", async () => {
    const ws = await createTestWorkspace();
    const hook = await subscribe(ws, ["account.connected", "account.disconnected"]);
    const connected = await ws.api("POST", "/api/social-accounts", {
      platform: "x",
      display_name: "Alice",
      username: "alice",
      credentials: { access_token: "secret-access-token" },
    });
    expect(connected.status).toBe(201);
    expect((await ws.api("DELETE", `/api/social-accounts/${connected.body.id}`)).status).toBe(204);
    // The account as listed right after its disconnection (a repeated DELETE moves updated_at again).
    const [listed] = (await ws.api("GET", "/api/social-accounts")).body;
    expect((await ws.api("DELETE", `/api/social-accounts/${connected.body.id}`)).status).toBe(204);
    await waitFor(() => hook.received.length === 2);
    const [first, second] = hook.received.map((r) => verify(hook.secret, r));
    expect(first).toEqual({ type: "account.connected", timestamp: expect.any(String), data: connected.body });
    expect(second).toEqual({ type: "account.disconnected", timestamp: expect.any(String), data: listed });
    expect(second!.data.status).toBe("disconnected");
    expect(hook.received.map((r) => r.body).join("")).not.toContain("secret-access-token");
    expect(await countTypes(ws)).toEqual({ "account.connected": 1, "account.disconnected": 1 });
  });

  it("account.token_expired when the platform refuses the session, once", async () => {
    const ws = await createTestWorkspace();
    await subscribe(ws, ["account.token_expired"]);
    const id = await seedXAccount(ws);
    const ctx = testContext({ now: Date.now() }, recordingQueue().queue);
    const account = (await ctx.db.select().from(socialAccounts).where(eq(socialAccounts.id, id)).get())!;
    const loaded = await loadAccount(ctx, account);
    await markTokenExpired(ctx, loaded);
    await markTokenExpired(ctx, loaded);
    const events = await readEvents(ws.workspaceId);
    expect(events.map((e) => e.type)).toEqual(["account.token_expired"]);
  });

  it("media.uploaded when a signed upload is stored", async () => {
    const ws = await createTestWorkspace();
    const hook = await subscribe(ws, ["media.uploaded"]);
    const issued = await ws.api("POST", "/api/uploads");
    const u = new URL(issued.body.upload_url);
    const stored = await call("POST", `${u.pathname}${u.search}`, {
      rawBody: mediaForm(GIF_1X1, "pixel.gif"),
      headers: { "CF-Connecting-IP": "203.0.113.77" },
    });
    expect(stored.status).toBe(201);
    await waitFor(() => hook.received.length === 1);
    expect(verify(hook.secret, hook.received[0]!)).toEqual({
      type: "media.uploaded",
      timestamp: expect.any(String),
      data: stored.body,
    });
  });
});

describe("the outbox", () => {
  it("records nothing without a subscribed, enabled endpoint", async () => {
    const ws = await createTestWorkspace();
    const ctx = testContext({ now: Date.now() }, recordingQueue().queue);
    const post = await seedPost(ws, { content: "hi", status: "draft", rows: [] });
    await ctx.db.batch([postEvent(ctx, "post.scheduled", post.postId)]);
    // A receiver, not an unserved origin: the event this test leaves undispatched goes out with the next dispatch
    // of any later test in this file.
    const { id } = await createEndpoint(ws, receiver().url, ["post.published"]);
    await ctx.db.batch([postEvent(ctx, "post.scheduled", post.postId)]);
    await ws.api("PUT", `/api/webhooks/${id}`, { events: ["post.scheduled"], enabled: false });
    await ctx.db.batch([postEvent(ctx, "post.scheduled", post.postId)]);
    expect(await readEvents(ws.workspaceId)).toEqual([]);
    await ws.api("PUT", `/api/webhooks/${id}`, { enabled: true });
    await ctx.db.batch([postEvent(ctx, "post.scheduled", post.postId)]);
    expect((await readEvents(ws.workspaceId)).map((e) => e.type)).toEqual(["post.scheduled"]);
  });

  it("a batch that fails records no event", async () => {
    const ws = await createTestWorkspace();
    await createEndpoint(ws, receiver().url, ["post.scheduled"]);
    const ctx = testContext({ now: Date.now() }, recordingQueue().queue);
    const post = await seedPost(ws, { content: "hi", status: "draft", rows: [] });
    await expect(
      ctx.db.batch([postEvent(ctx, "post.scheduled", post.postId), ctx.db.run(sql`SELECT json('not json')`)]),
    ).rejects.toThrow();
    expect(await readEvents(ws.workspaceId)).toEqual([]);
  });
});
