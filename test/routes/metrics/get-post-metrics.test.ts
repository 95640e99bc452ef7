import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { metricsCacheKey } from "../../../src/services/metrics/get-post-metrics";
import {
  type Fakes,
  installFakes,
  seedBlueskyAccount,
  seedMastodonAccount,
  seedXAccount,
} from "../../publishing/platforms";
import { createTestWorkspace, deliver, readAccount, seedAccount, seedPost } from "../../publishing/support";
import { describeAuth } from "../../support/auth-cases";
import type { TestWorkspace } from "../../support/harness";

let fakes: Fakes;
beforeEach(() => {
  fakes = installFakes();
});
afterEach(() => fakes.uninstall());

describeAuth("GET", `/api/posts/${crypto.randomUUID()}/metrics`);

async function publishedPost(ws: TestWorkspace) {
  const x = await seedXAccount(ws);
  const b = await seedBlueskyAccount(ws, fakes.bluesky);
  const m = await seedMastodonAccount(ws);
  const post = await seedPost(ws, {
    content: "Measure me",
    rows: [
      { accountId: x, platform: "x", contentType: "x_post" },
      { accountId: b, platform: "bluesky", contentType: "bluesky_post" },
      { accountId: m, platform: "mastodon", contentType: "mastodon_post" },
    ],
  });
  await deliver(post.messages);
  const [tweet] = [...fakes.x.tweets.values()];
  const [record] = [...fakes.bluesky.records.values()];
  const [status] = [...fakes.mastodon.statuses.values()];
  Object.assign(tweet!.public_metrics, {
    impression_count: 1000,
    like_count: 10,
    retweet_count: 3,
    reply_count: 2,
    quote_count: 1,
    bookmark_count: 4,
  });
  fakes.bluesky.engagement.set(record!.uri, { likeCount: 8, repostCount: 5, replyCount: 2, quoteCount: 1 });
  Object.assign(status!, { favourites_count: 6, reblogs_count: 2, replies_count: 1 });
  return { ...post, accounts: { x, b, m }, tweet: tweet!, record: record!, status: status! };
}

describe("GET /api/posts/{post}/metrics", () => {
  it("returns labelled metrics per enabled platform", async () => {
    const ws = await createTestWorkspace();
    const p = await publishedPost(ws);
    const res = await ws.api("GET", `/api/posts/${p.postId}/metrics`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      post_id: p.postId,
      platforms: [
        {
          post_platform_id: p.rowIds[0],
          platform: "x",
          status: "published",
          platform_post_id: p.tweet.id,
          platform_url: `https://x.com/alice_x/status/${p.tweet.id}`,
          metrics: [
            { label: "Impressions", value: 1000 },
            { label: "Likes", value: 10 },
            { label: "Retweets", value: 3 },
            { label: "Replies", value: 2 },
            { label: "Quotes", value: 1 },
            { label: "Bookmarks", value: 4 },
          ],
        },
        {
          post_platform_id: p.rowIds[1],
          platform: "bluesky",
          status: "published",
          platform_post_id: p.record.uri,
          platform_url: `https://bsky.app/profile/alice.test/post/${p.record.uri.split("/").pop()}`,
          metrics: [
            { label: "Likes", value: 8 },
            { label: "Reposts", value: 5 },
            { label: "Quotes", value: 1 },
            { label: "Replies", value: 2 },
          ],
        },
        {
          post_platform_id: p.rowIds[2],
          platform: "mastodon",
          status: "published",
          platform_post_id: p.status.id,
          platform_url: `https://mastodon.fake/@alice/${p.status.id}`,
          metrics: [
            { label: "Favourites", value: 6 },
            { label: "Reblogs", value: 2 },
            { label: "Replies", value: 1 },
          ],
        },
      ],
    });
    // Bluesky counts come from the public AppView, not the PDS.
    expect(fakes.bluesky.count("GET /xrpc/app.bsky.feed.getPosts")).toBe(1);
  });

  it("caches successes for 5 minutes per row, and fetches again after expiry", async () => {
    const ws = await createTestWorkspace();
    const p = await publishedPost(ws);
    const first = await ws.api("GET", `/api/posts/${p.postId}/metrics`);
    const calls = () => [
      fakes.x.count(`GET /2/tweets/${p.tweet.id}`),
      fakes.bluesky.count("GET /xrpc/app.bsky.feed.getPosts"),
      fakes.mastodon.count(`GET /api/v1/statuses/${p.status.id}`),
    ];
    expect(calls()).toEqual([1, 1, 1]);
    p.tweet.public_metrics.like_count = 99;
    const second = await ws.api("GET", `/api/posts/${p.postId}/metrics`);
    expect(second.body).toEqual(first.body);
    expect(calls()).toEqual([1, 1, 1]);

    // Age the X entry past 300 s (KV's own TTL cannot be waited out in a test).
    const key = metricsCacheKey(p.rowIds[0]!);
    const cached = (await env.METRICS_CACHE.get<{ fetched_at: number }>(key, "json"))!;
    await env.METRICS_CACHE.put(key, JSON.stringify({ ...cached, fetched_at: Date.now() - 301_000 }));
    const third = await ws.api("GET", `/api/posts/${p.postId}/metrics`);
    expect(calls()).toEqual([2, 1, 1]);
    expect(third.body.platforms[0].metrics[1]).toEqual({ label: "Likes", value: 99 });
  });

  it("concurrent requests with a cold cache share one platform call per row", async () => {
    const ws = await createTestWorkspace();
    const p = await publishedPost(ws);
    const burst = await Promise.all(Array.from({ length: 8 }, () => ws.api("GET", `/api/posts/${p.postId}/metrics`)));
    expect(burst.map((r) => r.status)).toEqual(Array.from({ length: 8 }, () => 200));
    for (const r of burst) expect(r.body).toEqual(burst[0]!.body);
    expect(burst[0]!.body.platforms[0].metrics[1]).toEqual({ label: "Likes", value: 10 });
    expect([
      fakes.x.count(`GET /2/tweets/${p.tweet.id}`),
      fakes.bluesky.count("GET /xrpc/app.bsky.feed.getPosts"),
      fakes.mastodon.count(`GET /api/v1/statuses/${p.status.id}`),
    ]).toEqual([1, 1, 1]);
  });

  it("an upstream failure is api_error and is not cached", async () => {
    const ws = await createTestWorkspace();
    const p = await publishedPost(ws);
    fakes.mastodon.inject(`GET /api/v1/statuses/${p.status.id}`, fakes.mastodon.unavailable(503));
    const first = await ws.api("GET", `/api/posts/${p.postId}/metrics`);
    expect(first.body.platforms[2]).toEqual({
      post_platform_id: p.rowIds[2],
      platform: "mastodon",
      status: "published",
      platform_post_id: p.status.id,
      platform_url: `https://mastodon.fake/@alice/${p.status.id}`,
      metrics: { unsupported: true, reason: "api_error" },
    });
    expect(await env.METRICS_CACHE.get(metricsCacheKey(p.rowIds[2]!))).toBeNull();
    const second = await ws.api("GET", `/api/posts/${p.postId}/metrics`);
    expect(fakes.mastodon.count(`GET /api/v1/statuses/${p.status.id}`)).toBe(2);
    expect(second.body.platforms[2].metrics).toEqual([
      { label: "Favourites", value: 6 },
      { label: "Reblogs", value: 2 },
      { label: "Replies", value: 1 },
    ]);
  });

  it("X on a tier without read access: platform_access_denied with the reason, not api_error; others unaffected", async () => {
    const ws = await createTestWorkspace();
    const p = await publishedPost(ws);
    fakes.x.readAccess = false;
    const res = await ws.api("GET", `/api/posts/${p.postId}/metrics`);
    expect(res.status).toBe(200);
    expect(res.body.platforms[0]).toEqual({
      post_platform_id: p.rowIds[0],
      platform: "x",
      status: "published",
      platform_post_id: p.tweet.id,
      platform_url: `https://x.com/alice_x/status/${p.tweet.id}`,
      metrics: { unsupported: true, reason: "platform_access_denied" },
    });
    expect(res.body.platforms[1].metrics).toHaveLength(4);
    expect(fakes.x.count(`GET /2/tweets/${p.tweet.id}`)).toBe(1);
    expect(await env.METRICS_CACHE.get(metricsCacheKey(p.rowIds[0]!))).toBeNull();
  });

  it("refreshes an expiring token before asking, as when publishing", async () => {
    const ws = await createTestWorkspace();
    const p = await publishedPost(ws);
    await env.DB.prepare("UPDATE social_accounts SET token_expires_at = ? WHERE id = ?")
      .bind(Date.now() + 60_000, p.accounts.x)
      .run();
    const res = await ws.api("GET", `/api/posts/${p.postId}/metrics`);
    expect(fakes.x.count("POST /2/oauth2/token")).toBe(1);
    expect(res.body.platforms[0].metrics[0]).toEqual({ label: "Impressions", value: 1000 });
    expect((await readAccount(p.accounts.x))!.token_expires_at).toBeGreaterThan(Date.now() + 3600_000);
  });

  it("not_published, platform_not_supported (tiktok, linkedin), and disabled rows left out", async () => {
    const ws = await createTestWorkspace();
    const x = await seedXAccount(ws);
    const tiktok = await seedAccount(ws, { platform: "tiktok", credentials: { access_token: "t" } });
    const linkedin = await seedAccount(ws, { platform: "linkedin", credentials: { access_token: "l" } });
    const m = await seedMastodonAccount(ws);
    const post = await seedPost(ws, {
      content: "mixed",
      rows: [
        { accountId: x, platform: "x", contentType: "x_post" },
        { accountId: tiktok, platform: "tiktok", contentType: "tiktok_video" },
        { accountId: linkedin, platform: "linkedin", contentType: "linkedin_post" },
        { accountId: m, platform: "mastodon", contentType: "mastodon_post", enabled: false },
      ],
    });
    await env.DB.batch([
      env.DB.prepare(
        "UPDATE post_platforms SET status = 'published', platform_post_id = '7', platform_url = 'https://www.tiktok.com/@a/video/7' WHERE id = ?",
      ).bind(post.rowIds[1]),
      env.DB.prepare(
        "UPDATE post_platforms SET status = 'published', platform_post_id = 'urn:li:share:1', platform_url = 'https://www.linkedin.com/feed/update/urn:li:share:1' WHERE id = ?",
      ).bind(post.rowIds[2]),
    ]);
    const res = await ws.api("GET", `/api/posts/${post.postId}/metrics`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      post_id: post.postId,
      platforms: [
        {
          post_platform_id: post.rowIds[0],
          platform: "x",
          status: "pending",
          platform_post_id: null,
          platform_url: null,
          metrics: { unsupported: true, reason: "not_published" },
        },
        {
          post_platform_id: post.rowIds[1],
          platform: "tiktok",
          status: "published",
          platform_post_id: "7",
          platform_url: "https://www.tiktok.com/@a/video/7",
          metrics: { unsupported: true, reason: "platform_not_supported" },
        },
        {
          post_platform_id: post.rowIds[2],
          platform: "linkedin",
          status: "published",
          platform_post_id: "urn:li:share:1",
          platform_url: "https://www.linkedin.com/feed/update/urn:li:share:1",
          metrics: { unsupported: true, reason: "platform_not_supported" },
        },
      ],
    });
    expect(fakes.x.calls).toHaveLength(0);
  });

  it("answers 404 for another workspace's post, an unknown post and a non-UUID id", async () => {
    const owner = await createTestWorkspace();
    const stranger = await createTestWorkspace();
    const m = await seedMastodonAccount(owner);
    const post = await seedPost(owner, {
      content: "mine",
      rows: [{ accountId: m, platform: "mastodon", contentType: "mastodon_post" }],
    });
    for (const path of [
      `/api/posts/${post.postId}/metrics`,
      `/api/posts/${crypto.randomUUID()}/metrics`,
      "/api/posts/nope/metrics",
    ]) {
      const res = await stranger.api("GET", path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: "Not found." });
    }
  });
});
