import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adapterFor } from "../../../src/platforms";
import type { AdapterMedia, PublishRequest } from "../../../src/platforms/types";
import { storeTestMedia, testAccount, testAdapterContext } from "../../support/adapter-context";
import { platformFailure } from "../../support/fakes/fake-kit";
import { graphErrorResponse, metaServerError, metaThrottle, type RecordedCall } from "../../support/fakes/meta";
import { fakeThreads, type ThreadsFake } from "../../support/fakes/threads";

const adapter = adapterFor("threads")!;
const USER = "1234567890";
const FORM = "application/x-www-form-urlencoded";
const AUTH = { authorization: "Bearer access-token" };
const view = (c: RecordedCall) => ({
  method: c.method,
  path: c.path,
  query: c.query,
  body: c.body,
  headers: c.headers,
});
const id = (n: number) => String(18_050_000_000_000_000n + BigInt(n));

let fake: ThreadsFake;
beforeEach(() => {
  fake = fakeThreads();
});
afterEach(() => fake.uninstall());

const request = (media: AdapterMedia[], content = "Shipping today 🚀"): PublishRequest => ({
  postPlatformId: crypto.randomUUID(),
  contentType: "threads_post",
  content,
  media,
  meta: {},
  account: testAccount("threads", { platformUserId: USER, username: "tester" }),
});
const create = (body: Record<string, unknown>) => ({
  method: "POST",
  path: `/v1.0/${USER}/threads`,
  query: {},
  body,
  headers: { ...AUTH, "content-type": FORM },
});
const poll = (n: number) => ({
  method: "GET",
  path: `/v1.0/${id(n)}`,
  query: { fields: "status,error_message" },
  body: null,
  headers: AUTH,
});
const publish = (n: number) => ({
  method: "POST",
  path: `/v1.0/${USER}/threads_publish`,
  query: {},
  body: { creation_id: id(n) },
  headers: { ...AUTH, "content-type": FORM },
});
/** Read before anything is created: Threads' 250-posts-per-24-hours quota. */
const quota = {
  method: "GET",
  path: `/v1.0/${USER}/threads_publishing_limit`,
  query: { fields: "quota_usage,config" },
  body: null,
  headers: AUTH,
};
const permalink = (n: number) => ({
  method: "GET",
  path: `/v1.0/${id(n)}`,
  query: { fields: "id,permalink,shortcode" },
  body: null,
  headers: AUTH,
});

describe("Threads publish", () => {
  it("publishes text: TEXT container → threads_publish → permalink", async () => {
    const result = await adapter.publish(testAdapterContext(), request([]));
    expect(result).toEqual({ platformPostId: id(2), platformUrl: "https://www.threads.com/@tester/post/DA000002q" });
    expect(fake.calls.map(view)).toEqual([
      quota,
      create({ media_type: "TEXT", text: "Shipping today 🚀" }),
      publish(1),
      permalink(2),
    ]);
    expect(fake.published).toHaveLength(1);
  });

  it("publishes an image after the container finishes", async () => {
    const image = await storeTestMedia("image");
    const result = await adapter.publish(testAdapterContext(), request([image]));
    expect(result.platformPostId).toBe(id(2));
    expect(fake.calls.map(view)).toEqual([
      quota,
      create({ media_type: "IMAGE", image_url: image.url, text: "Shipping today 🚀" }),
      poll(1),
      poll(1),
      publish(1),
      permalink(2),
    ]);
  });

  it("publishes a video, waiting with ctx.sleep while IN_PROGRESS", async () => {
    fake.mediaPolls = 3;
    const video = await storeTestMedia("video");
    const sleeps: number[] = [];
    await adapter.publish(testAdapterContext({ sleep: async (ms) => void sleeps.push(ms) }), request([video], ""));
    expect(fake.calls.map(view)).toEqual([
      quota,
      create({ media_type: "VIDEO", video_url: video.url }),
      poll(1),
      poll(1),
      poll(1),
      poll(1),
      publish(1),
      permalink(2),
    ]);
    expect(sleeps).toEqual([5000, 5000, 5000]);
  });

  it("publishes a carousel: children, then a CAROUSEL parent, then publishes the parent", async () => {
    fake.mediaPolls = 0;
    const media = [await storeTestMedia("image"), await storeTestMedia("video")];
    const result = await adapter.publish(testAdapterContext(), request(media, "Two views"));
    expect(result).toEqual({ platformPostId: id(4), platformUrl: "https://www.threads.com/@tester/post/DA000004q" });
    expect(fake.calls.map(view)).toEqual([
      quota,
      create({ media_type: "IMAGE", image_url: media[0]!.url, is_carousel_item: "true" }),
      create({ media_type: "VIDEO", video_url: media[1]!.url, is_carousel_item: "true" }),
      poll(1),
      poll(2),
      create({ media_type: "CAROUSEL", children: `${id(1)},${id(2)}`, text: "Two views" }),
      poll(3),
      publish(3),
      permalink(4),
    ]);
  });

  it("maps a throttle to transient with the wait from X-Business-Use-Case-Usage", async () => {
    fake.failNext({ path: `/v1.0/${USER}/threads` }, () =>
      metaThrottle({ code: 80002, regainMinutes: 10, businessId: USER }),
    );
    const err = await platformFailure(adapter.publish(testAdapterContext(), request([])));
    expect([err.kind, err.status, err.retryAfterSeconds]).toEqual(["transient", 400, 600]);
  });

  // Threads' quota error is undocumented (developers.facebook.com/docs/threads/troubleshooting lists none): code 9
  // (what integrators get for a spent publishing limit) and Graph's rate-limit codes are retried later, with
  // is_transient false as Meta sends them — the code decides, not the flag.
  it.each([
    [9, "(#9) This action cannot be performed at this time. Please try again later."],
    [4, "(#4) Application request limit reached"],
    [17, "(#17) User request limit reached"],
    [32, "(#32) Page request limit reached"],
    [341, "(#341) Application limit reached"],
    [613, "(#613) Calls to this api have exceeded the rate limit."],
  ])("Graph code %i on publish is transient (retried later), not permanent", async (code, message) => {
    fake.failNext({ path: `/v1.0/${USER}/threads_publish` }, () => graphErrorResponse(400, { message, code }));
    const err = await platformFailure(adapter.publish(testAdapterContext(), request([])));
    expect({ kind: err.kind, status: err.status, message: err.message }).toEqual({
      kind: "transient",
      status: 400,
      message: message.replace(/^\(#\d+\)\s*/, ""),
    });
    expect(fake.published).toEqual([]);
  });

  it("maps a 5xx to transient", async () => {
    fake.failNext({ path: `/v1.0/${USER}/threads_publish` }, () => metaServerError(502));
    const err = await platformFailure(adapter.publish(testAdapterContext(), request([])));
    expect([err.kind, err.status]).toEqual(["transient", 502]);
    expect(fake.published).toEqual([]);
  });

  it("maps an expired token to kind auth", async () => {
    fake.expiredTokens.add("access-token");
    const err = await platformFailure(adapter.publish(testAdapterContext(), request([])));
    expect([err.kind, err.status]).toEqual(["auth", 400]);
  });

  it("fails permanently with Threads' words when text is over 500 UTF-8 bytes", async () => {
    const err = await platformFailure(adapter.publish(testAdapterContext(), request([], "🚀".repeat(126))));
    expect([err.kind, err.status, err.message]).toEqual(["permanent", 400, "The text must be at most 500 characters."]);
  });

  it("fails permanently when the container ends in ERROR, without publishing", async () => {
    fake.processingError = "FAILED_DOWNLOADING_VIDEO";
    const err = await platformFailure(adapter.publish(testAdapterContext(), request([await storeTestMedia("video")])));
    expect([err.kind, err.message]).toEqual([
      "permanent",
      "Threads could not process the media: Failed downloading video.",
    ]);
    expect(fake.summary().filter((s) => s.endsWith("/threads_publish"))).toEqual([]);
  });
});

describe("Threads publishing quota (250 posts / 1,000 replies per 24 hours)", () => {
  it("reads the quota first; with 250 of 250 used nothing is created and the post waits 30 minutes", async () => {
    fake.priorPosts = 249;
    await adapter.publish(testAdapterContext(), request([], "the 250th"));
    fake.calls.length = 0;
    const err = await platformFailure(adapter.publish(testAdapterContext(), request([], "the 251st")));
    expect([err.kind, err.message, err.retryAfterSeconds]).toEqual([
      "transient",
      "Threads' publishing limit is reached: 250 of 250 posts in the last 24 hours (a moving window). Nothing was sent; the post goes out once the window has room.",
      1800,
    ]);
    expect(fake.calls.map(view)).toEqual([quota]);
    expect(fake.published).toHaveLength(1);
  });

  it("a reply counts against the 1,000 replies, not the posts", async () => {
    const main = await adapter.publish(testAdapterContext(), request([], "main"));
    fake.priorPosts = 250;
    fake.priorReplies = 1000;
    fake.calls.length = 0;
    const reply = {
      ...request([], "a reply"),
      replyTo: { parent: main, root: main },
    };
    const err = await platformFailure(adapter.publish(testAdapterContext(), reply));
    expect([err.kind, err.message]).toEqual([
      "transient",
      "Threads' publishing limit is reached: 1000 of 1000 replies in the last 24 hours (a moving window). Nothing was sent; the reply goes out once the window has room.",
    ]);
    expect(fake.calls.map(view)).toEqual([{ ...quota, query: { fields: "reply_quota_usage,reply_config" } }]);

    fake.priorReplies = 999;
    expect((await adapter.publish(testAdapterContext(), reply)).platformPostId).toMatch(/^\d+$/);
  });

  it("a quota check that fails does not stop the post (Threads enforces the limit itself)", async () => {
    fake.failNext({ path: `/v1.0/${USER}/threads_publishing_limit` }, () =>
      graphErrorResponse(403, { message: "(#10) Application does not have permission for this action", code: 10 }),
    );
    const result = await adapter.publish(testAdapterContext(), request([]));
    expect(result.platformPostId).toBe(id(2));
  });

  it("the fake answers threads_publishing_limit with only the fields asked, as Threads does", async () => {
    fake.priorPosts = 250;
    const res = await fetch(`https://threads.fake/v1.0/${USER}/threads_publishing_limit?fields=quota_usage,config`, {
      headers: AUTH,
    });
    expect(await res.json()).toEqual({
      data: [{ quota_usage: 250, config: { quota_total: 250, quota_duration: 86400 } }],
    });
  });
});

describe("Threads refresh", () => {
  it("refreshes with th_refresh_token", async () => {
    const now = 1_800_000_000_000;
    const account = testAccount("threads", { credentials: { access_token: "access-token", expires_at: 5 } });
    const refreshed = await adapter.refresh!(testAdapterContext({ now: () => now }), account);
    expect(refreshed).toEqual({
      credentials: { access_token: "th-refreshed-1", expires_at: now + 5_184_000_000 },
      expiresAt: now + 5_184_000_000,
    });
    expect(fake.calls.map(view)).toEqual([
      {
        method: "GET",
        path: "/refresh_access_token",
        query: { grant_type: "th_refresh_token", access_token: "access-token" },
        body: null,
        headers: {},
      },
    ]);
  });

  it("maps a refused refresh to kind auth", async () => {
    fake.expiredTokens.add("access-token");
    const err = await platformFailure(adapter.refresh!(testAdapterContext(), testAccount("threads")));
    expect(err.kind).toBe("auth");
  });

  it("keeps a 5xx during refresh transient", async () => {
    fake.failNext({ path: "/refresh_access_token" }, () => metaServerError(500));
    const err = await platformFailure(adapter.refresh!(testAdapterContext(), testAccount("threads")));
    expect(err.kind).toBe("transient");
  });
});

describe("Threads metrics", () => {
  it("reads insights into Views, Likes, Replies, Reposts, Quotes", async () => {
    fake.setInsights("18050000000000777", { views: 940, likes: 51, replies: 7, reposts: 3, quotes: 1, shares: 2 });
    const metrics = await adapter.metrics!(testAdapterContext(), {
      platformPostId: "18050000000000777",
      platformUrl: null,
      contentType: "threads_post",
      account: testAccount("threads", { platformUserId: USER }),
    });
    expect(metrics).toEqual([
      { label: "Views", value: 940 },
      { label: "Likes", value: 51 },
      { label: "Replies", value: 7 },
      { label: "Reposts", value: 3 },
      { label: "Quotes", value: 1 },
    ]);
    expect(fake.calls.map(view)).toEqual([
      {
        method: "GET",
        path: "/v1.0/18050000000000777/insights",
        query: { metric: "views,likes,replies,reposts,quotes" },
        body: null,
        headers: AUTH,
      },
    ]);
  });
});
