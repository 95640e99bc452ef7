// fresh storage: runs the Worker's cron, which works on every workspace's rows at once.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adapterFor } from "../../src/platforms";
import { registerAdapter } from "../../src/platforms/registry";
import type { PlatformAdapter, PublishRequest } from "../../src/platforms/types";
import { type Fakes, installFakes, seedBlueskyAccount, seedMastodonAccount, seedXAccount } from "./platforms";
import { createTestWorkspace, deliver, readPost, readRow, seedAccount, seedPost, tick } from "./support";

let fakes: Fakes;
beforeEach(() => {
  fakes = installFakes();
});
afterEach(() => fakes.uninstall());

/** A stand-in Pinterest adapter (the real one lives on another branch) that records what it was asked. */
const pinterestCalls: PublishRequest[] = [];
const fakePinterest: PlatformAdapter = {
  platform: "pinterest",
  async publish(_ctx, req) {
    pinterestCalls.push(req);
    return { platformPostId: "pin-1", platformUrl: "https://www.pinterest.com/pin/pin-1/" };
  },
};

describe("publish job", () => {
  it("partial success across platforms: published rows keep their result, the post is partially_published", async () => {
    const ws = await createTestWorkspace();
    const x = await seedXAccount(ws);
    const b = await seedBlueskyAccount(ws, fakes.bluesky);
    const m = await seedMastodonAccount(ws);
    const post = await seedPost(ws, {
      content: "Mixed results",
      rows: [
        { accountId: x, platform: "x", contentType: "x_post" },
        { accountId: b, platform: "bluesky", contentType: "bluesky_post" },
        { accountId: m, platform: "mastodon", contentType: "mastodon_post" },
      ],
    });
    fakes.x.inject("POST /2/tweets", () =>
      Response.json(
        {
          title: "Forbidden",
          detail: "You are not allowed to create a Tweet with duplicate content.",
          type: "about:blank",
          status: 403,
        },
        { status: 403 },
      ),
    );
    const result = await deliver(post.messages);
    expect(result.explicitAcks.sort()).toEqual(["msg-0", "msg-1", "msg-2"]);

    expect(await readRow(post.rowIds[0]!)).toMatchObject({
      status: "failed",
      error_message: "X refused the post: You are not allowed to create a Tweet with duplicate content.",
      platform_post_id: null,
      published_at: null,
    });
    const bsky = await readRow(post.rowIds[1]!);
    expect(bsky).toMatchObject({ status: "published", error_message: null });
    expect(bsky!.published_at).toBeGreaterThan(0);
    expect((await readRow(post.rowIds[2]!))!.status).toBe("published");
    expect(await readPost(post.postId)).toEqual({ status: "partially_published", published_at: null });
  });

  it("all rows published → post published with published_at; all failed → failed", async () => {
    const ws = await createTestWorkspace();
    const m = await seedMastodonAccount(ws);
    const good = await seedPost(ws, {
      content: "ok",
      rows: [{ accountId: m, platform: "mastodon", contentType: "mastodon_post" }],
    });
    await deliver(good.messages);
    const published = await readPost(good.postId);
    expect(published!.status).toBe("published");
    expect(published!.published_at).toBeGreaterThan(Date.now() - 60_000);

    fakes.mastodon.inject("POST /api/v1/statuses", () =>
      Response.json({ error: "This action is not allowed" }, { status: 403 }),
    );
    const bad = await seedPost(ws, {
      content: "no",
      rows: [{ accountId: m, platform: "mastodon", contentType: "mastodon_post" }],
    });
    await deliver(bad.messages);
    expect(await readPost(bad.postId)).toEqual({ status: "failed", published_at: null });
    expect((await readRow(bad.rowIds[0]!))!.error_message).toBe(
      "Mastodon refused the post: This action is not allowed",
    );
  });

  it("duplicate delivery makes no second platform call (in sequence and in the same batch)", async () => {
    const ws = await createTestWorkspace();
    const x = await seedXAccount(ws);
    const post = await seedPost(ws, {
      content: "exactly once",
      rows: [{ accountId: x, platform: "x", contentType: "x_post" }],
    });
    const [message] = post.messages;
    const concurrent = await deliver([message, message, message]);
    expect(concurrent.explicitAcks.sort()).toEqual(["msg-0", "msg-1", "msg-2"]);
    const again = await deliver([message], { attempts: 1 });
    expect(again.explicitAcks).toEqual(["msg-0"]);
    const retried = await deliver([message], { attempts: 3 });
    expect(retried.explicitAcks).toEqual(["msg-0"]);
    expect(fakes.x.count("POST /2/tweets")).toBe(1);
    expect(fakes.x.tweets.size).toBe(1);
    expect((await readRow(post.rowIds[0]!))!.status).toBe("published");
  });

  it("over-length content fails at publish time with the length error, without calling the platform", async () => {
    const ws = await createTestWorkspace();
    const x = await seedXAccount(ws);
    const b = await seedBlueskyAccount(ws, fakes.bluesky);
    const post = await seedPost(ws, {
      content: `${"a".repeat(270)} 日本語日本`,
      rows: [
        { accountId: x, platform: "x", contentType: "x_post" },
        { accountId: b, platform: "bluesky", contentType: "bluesky_post" },
      ],
    });
    await deliver(post.messages);
    expect(await readRow(post.rowIds[0]!)).toMatchObject({
      status: "failed",
      error_message: "Content exceeds X limit of 280 characters (281 provided).",
    });
    expect(fakes.x.calls).toHaveLength(0);
    expect((await readRow(post.rowIds[1]!))!.status).toBe("published");
    expect((await readPost(post.postId))!.status).toBe("partially_published");
  });

  it("a Pinterest row without board_id fails; the account's default board is used when the row has none", async () => {
    if (!adapterFor("pinterest")) registerAdapter(fakePinterest);
    const ws = await createTestWorkspace();
    const noBoard = await seedAccount(ws, { platform: "pinterest", credentials: { access_token: "pin" } });
    const withDefault = await seedAccount(ws, {
      platform: "pinterest",
      // One row per network identity in a workspace (issue 18): a second account is another identity.
      platformUserId: "pinterest-user-2",
      credentials: { access_token: "pin" },
      meta: { default_board_id: "board-9" },
    });
    const post = await seedPost(ws, {
      content: "pin it",
      rows: [{ accountId: noBoard, platform: "pinterest", contentType: "pinterest_pin", meta: { board_id: "" } }],
    });
    await deliver(post.messages);
    expect(await readRow(post.rowIds[0]!)).toMatchObject({
      status: "failed",
      error_message: "Pinterest board_id is required.",
    });
    expect(await readPost(post.postId)).toMatchObject({ status: "failed" });

    if (adapterFor("pinterest") !== fakePinterest) return; // the real adapter is tested on its own branch
    const media = await import("./support").then((s) => s.seedMedia(ws, "image"));
    const ok = await seedPost(ws, {
      content: "pin it",
      rows: [{ accountId: withDefault, platform: "pinterest", contentType: "pinterest_pin" }],
      mediaIds: [media],
    });
    await deliver(ok.messages);
    expect((await readRow(ok.rowIds[0]!))!.status).toBe("published");
    expect(pinterestCalls.at(-1)!.meta).toEqual({ board_id: "board-9" });
  });

  it("account states: deactivated, disconnected and expired sessions fail without a platform call", async () => {
    const ws = await createTestWorkspace();
    const inactive = await seedXAccount(ws, { isActive: false });
    // Three X identities (one row per identity in a workspace, issue 18).
    const gone = await seedXAccount(ws, { status: "disconnected", isActive: false, platformUserId: "x-user-2" });
    const expired = await seedXAccount(ws, { status: "token_expired", platformUserId: "x-user-3" });
    const post = await seedPost(ws, {
      content: "nobody home",
      rows: [
        { accountId: inactive, platform: "x", contentType: "x_post" },
        { accountId: gone, platform: "x", contentType: "x_post" },
        { accountId: expired, platform: "x", contentType: "x_post" },
      ],
    });
    await deliver(post.messages);
    expect((await readRow(post.rowIds[0]!))!.error_message).toBe("Social account is deactivated.");
    expect((await readRow(post.rowIds[1]!))!.error_message).toBe("Social account is disconnected.");
    expect((await readRow(post.rowIds[2]!))!.error_message).toBe("Social account session expired — please reconnect.");
    expect(fakes.x.calls).toHaveLength(0);
    expect((await readPost(post.postId))!.status).toBe("failed");
  });

  it("disabled rows are ignored: they stay pending and do not count for the post status", async () => {
    const ws = await createTestWorkspace();
    const m = await seedMastodonAccount(ws);
    const x = await seedXAccount(ws);
    const post = await seedPost(ws, {
      content: "one of two",
      rows: [
        { accountId: m, platform: "mastodon", contentType: "mastodon_post" },
        { accountId: x, platform: "x", contentType: "x_post", enabled: false },
      ],
    });
    expect(post.messages).toHaveLength(1);
    await deliver([
      ...post.messages,
      { post_platform_id: post.rowIds[1], post_id: post.postId, workspace_id: ws.workspaceId },
    ]);
    expect((await readRow(post.rowIds[1]!))!.status).toBe("pending");
    expect((await readPost(post.postId))!.status).toBe("published");
    expect(fakes.x.calls).toHaveLength(0);
  });

  it("drops malformed messages and messages naming another workspace", async () => {
    const ws = await createTestWorkspace();
    const other = await createTestWorkspace();
    const m = await seedMastodonAccount(ws);
    const post = await seedPost(ws, {
      content: "mine",
      rows: [{ accountId: m, platform: "mastodon", contentType: "mastodon_post" }],
    });
    const result = await deliver([
      { post_platform_id: "not-a-uuid" },
      "garbage",
      { ...post.messages[0], workspace_id: other.workspaceId },
    ]);
    expect(result.explicitAcks).toEqual(["msg-0", "msg-1", "msg-2"]);
    expect((await readRow(post.rowIds[0]!))!.status).toBe("pending");
    expect(fakes.mastodon.calls).toHaveLength(0);
  });

  it("the dead-letter consumer fails the row with its last error and settles the post", async () => {
    const ws = await createTestWorkspace();
    const m = await seedMastodonAccount(ws);
    const x = await seedXAccount(ws);
    const post = await seedPost(ws, {
      content: "dlq",
      rows: [
        { accountId: m, platform: "mastodon", contentType: "mastodon_post" },
        { accountId: x, platform: "x", contentType: "x_post" },
      ],
    });
    await deliver([post.messages[0]]);
    await env.DB.prepare(
      "UPDATE post_platforms SET status = 'publishing', error_message = 'X is unavailable (HTTP 503).' WHERE id = ?",
    )
      .bind(post.rowIds[1])
      .run();
    const result = await deliver([post.messages[1]], { queue: "publish-jobs-dlq", attempts: 6 });
    expect(result.ackAll).toBe(true);
    expect(await readRow(post.rowIds[1]!)).toMatchObject({
      status: "failed",
      error_message: "X is unavailable (HTTP 503).",
    });
    expect((await readPost(post.postId))!.status).toBe("partially_published");
    expect(fakes.x.calls).toHaveLength(0);
  });
});

describe("cron", () => {
  it("times out rows stuck in publishing for over an hour and settles their posts", async () => {
    const ws = await createTestWorkspace();
    const m = await seedMastodonAccount(ws);
    const x = await seedXAccount(ws);
    const post = await seedPost(ws, {
      content: "stuck",
      rows: [
        { accountId: m, platform: "mastodon", contentType: "mastodon_post" },
        { accountId: x, platform: "x", contentType: "x_post" },
      ],
    });
    await deliver([post.messages[0]]);
    const twoHoursAgo = Date.now() - 2 * 3600_000;
    await env.DB.prepare("UPDATE post_platforms SET status = 'publishing', claimed_at = ?, attempts = 1 WHERE id = ?")
      .bind(twoHoursAgo, post.rowIds[1])
      .run();
    // A row claimed a minute ago is left alone.
    const fresh = await seedPost(ws, {
      content: "fresh",
      rows: [{ accountId: x, platform: "x", contentType: "x_post" }],
    });
    await env.DB.prepare("UPDATE post_platforms SET status = 'publishing', claimed_at = ? WHERE id = ?")
      .bind(Date.now() - 60_000, fresh.rowIds[0])
      .run();

    await tick();
    expect(await readRow(post.rowIds[1]!)).toMatchObject({ status: "failed", error_message: "Publishing timed out." });
    expect((await readPost(post.postId))!.status).toBe("partially_published");
    expect((await readRow(fresh.rowIds[0]!))!.status).toBe("publishing");

    // A late delivery of the timed-out row's message changes nothing.
    await deliver([post.messages[1]], { attempts: 2 });
    expect((await readRow(post.rowIds[1]!))!.status).toBe("failed");
    expect(fakes.x.calls).toHaveLength(0);
  });

  it("times out pending rows of a post that has been publishing for over an hour (message lost)", async () => {
    const ws = await createTestWorkspace();
    const m = await seedMastodonAccount(ws);
    const post = await seedPost(ws, {
      content: "lost",
      rows: [{ accountId: m, platform: "mastodon", contentType: "mastodon_post" }],
    });
    await env.DB.prepare("UPDATE posts SET updated_at = ? WHERE id = ?")
      .bind(Date.now() - 2 * 3600_000, post.postId)
      .run();
    await tick();
    expect(await readRow(post.rowIds[0]!)).toMatchObject({ status: "failed", error_message: "Publishing timed out." });
    expect((await readPost(post.postId))!.status).toBe("failed");
  });
});
