// fresh storage: runs the Worker's cron, which works on every workspace's rows at once.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BSKY_PDS, BSKY_VIDEO } from "../support/fakes/bluesky";
import { MASTODON } from "../support/fakes/mastodon";
import type { TestWorkspace } from "../support/harness";
import { UUID } from "../support/harness";
import { type Fakes, installFakes } from "./platforms";
import {
  connectThroughApi,
  createTestWorkspace,
  deliverThroughRuntime,
  readPost,
  recordingQueue,
  tick,
} from "./support";

let fakes: Fakes;
beforeEach(() => {
  fakes = installFakes();
});
afterEach(() => fakes.uninstall());

/** Creates the post through the posts API, schedules it, then makes it due (scheduled_at must be future to PUT). */
async function createDuePost(ws: TestWorkspace, content: string, accounts: { id: string; type: string }[]) {
  const created = await ws.api("POST", "/api/posts", {
    content,
    platforms: accounts.map((a) => ({ social_account_id: a.id, content_type: a.type })),
  });
  expect(created.status).toBe(201);
  const postId = created.body.id as string;
  const scheduled = await ws.api("PUT", `/api/posts/${postId}`, {
    status: "scheduled",
    scheduled_at: new Date(Date.now() + 120_000).toISOString(),
  });
  expect(scheduled.status).toBe(200);
  expect(scheduled.body.status).toBe("scheduled");
  await env.DB.prepare("UPDATE posts SET scheduled_at = ? WHERE id = ?")
    .bind(Date.now() - 1000, postId)
    .run();
  return postId;
}

describe("end to end in workerd", () => {
  it("schedule → cron → queue → fake platforms → post published, with metrics afterwards", async () => {
    const ws = await createTestWorkspace();
    const x = await connectThroughApi(ws, {
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
    const bluesky = await connectThroughApi(ws, {
      platform: "bluesky",
      display_name: "Alice on Bluesky",
      username: "",
      credentials: { identifier: fakes.bluesky.identifier, app_password: fakes.bluesky.password },
      meta: { service: BSKY_PDS, video_service: BSKY_VIDEO },
    });
    const mastodon = await connectThroughApi(ws, {
      platform: "mastodon",
      display_name: "Alice on Mastodon",
      username: "alice",
      credentials: { access_token: "masto-token" },
      meta: { instance: MASTODON },
    });
    const postId = await createDuePost(ws, "Launch day with @bob.test https://example.com #launch", [
      { id: x, type: "x_post" },
      { id: bluesky, type: "bluesky_post" },
      { id: mastodon, type: "mastodon_post" },
    ]);
    expect((await readPost(postId))!.status).toBe("scheduled");

    // The worker's scheduled() handler claims the post and enqueues one message per row.
    const recorder = recordingQueue();
    const messages = await tick(recorder);
    expect(messages).toHaveLength(3);
    expect((await readPost(postId))!.status).toBe("publishing");

    // The worker's queue() handler consumes them (runtime MessageBatch, runtime result).
    const result = await deliverThroughRuntime(messages);
    expect(result.outcome).toBe("ok");
    expect(result.explicitAcks.sort()).toEqual(["msg-0", "msg-1", "msg-2"]);
    expect(result.retryMessages).toEqual([]);

    const post = await readPost(postId);
    expect(post!.status).toBe("published");
    expect(post!.published_at).toBeGreaterThan(Date.now() - 60_000);
    expect(fakes.x.tweets.size).toBe(1);
    expect(fakes.bluesky.records.size).toBe(1);
    expect(fakes.mastodon.statuses.size).toBe(1);
    const [record] = [...fakes.bluesky.records.values()];
    expect(record!.value.facets).toHaveLength(3);

    // A duplicate delivery of the whole batch posts nothing new.
    await deliverThroughRuntime(messages, { attempts: 2 });
    expect(fakes.x.tweets.size + fakes.bluesky.records.size + fakes.mastodon.statuses.size).toBe(3);

    const shown = await ws.api("GET", `/api/posts/${postId}`);
    expect(shown.body.status).toBe("published");
    expect(shown.body.published_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(
      shown.body.platforms.map((p: any) => [p.platform, p.status, p.error_message, typeof p.platform_url]),
    ).toEqual([
      ["x", "published", null, "string"],
      ["bluesky", "published", null, "string"],
      ["mastodon", "published", null, "string"],
    ]);

    const metrics = await ws.api("GET", `/api/posts/${postId}/metrics`);
    expect(metrics.status).toBe(200);
    const [tweet] = [...fakes.x.tweets.values()];
    const [status] = [...fakes.mastodon.statuses.values()];
    const rowIds = messages.map((m) => m.post_platform_id);
    expect(metrics.body).toEqual({
      post_id: postId,
      platforms: [
        {
          post_platform_id: rowIds[0],
          platform: "x",
          status: "published",
          platform_post_id: tweet!.id,
          platform_url: `https://x.com/alice_x/status/${tweet!.id}`,
          metrics: [
            { label: "Impressions", value: 0 },
            { label: "Likes", value: 0 },
            { label: "Retweets", value: 0 },
            { label: "Replies", value: 0 },
            { label: "Quotes", value: 0 },
            { label: "Bookmarks", value: 0 },
          ],
        },
        {
          post_platform_id: rowIds[1],
          platform: "bluesky",
          status: "published",
          platform_post_id: record!.uri,
          platform_url: expect.stringMatching(/^https:\/\/bsky\.app\/profile\/alice\.test\/post\/[2-7a-z]{13}$/),
          metrics: [
            { label: "Likes", value: 0 },
            { label: "Reposts", value: 0 },
            { label: "Quotes", value: 0 },
            { label: "Replies", value: 0 },
          ],
        },
        {
          post_platform_id: rowIds[2],
          platform: "mastodon",
          status: "published",
          platform_post_id: status!.id,
          platform_url: `${MASTODON}/@alice/${status!.id}`,
          metrics: [
            { label: "Favourites", value: 0 },
            { label: "Reblogs", value: 0 },
            { label: "Replies", value: 0 },
          ],
        },
      ],
    });
    for (const id of rowIds) expect(id).toMatch(UUID);
  });
});
