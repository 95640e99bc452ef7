import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adapterFor } from "../../../src/platforms";
import type { AdapterMedia, PublishRequest } from "../../../src/platforms/types";
import { storeTestMedia, testAccount, testAdapterContext } from "../../support/adapter-context";
import { platformFailure } from "../../support/fakes/fake-kit";
import { MetaGraphFake, metaServerError, metaThrottle, type RecordedCall } from "../../support/fakes/meta";

const FORM = "application/x-www-form-urlencoded";
const AUTH = { authorization: "Bearer access-token" };
const view = (c: RecordedCall) => ({
  method: c.method,
  path: c.path,
  query: c.query,
  body: c.body,
  headers: c.headers,
});

describe.each([
  { platform: "instagram" as const, origin: "https://instagram.fake" },
  { platform: "instagram-facebook" as const, origin: "https://facebook.fake" },
])("$platform publish", ({ platform, origin }) => {
  const adapter = adapterFor(platform)!;
  let fake: MetaGraphFake;
  beforeEach(() => {
    fake = new MetaGraphFake(origin);
  });
  afterEach(() => fake.uninstall());

  const request = (contentType: string, media: AdapterMedia[], content = "Sunset #travel"): PublishRequest => ({
    postPlatformId: crypto.randomUUID(),
    contentType,
    content,
    media,
    meta: {},
    account: testAccount(platform, { platformUserId: "17841400000000001" }),
  });
  const create = (body: Record<string, unknown>) => ({
    method: "POST",
    path: "/v26.0/17841400000000001/media",
    query: {},
    body,
    headers: { ...AUTH, "content-type": FORM },
  });
  const poll = (id: string) => ({
    method: "GET",
    path: `/v26.0/${id}`,
    query: { fields: "status_code,status" },
    body: null,
    headers: AUTH,
  });
  const publish = (id: string) => ({
    method: "POST",
    path: "/v26.0/17841400000000001/media_publish",
    query: {},
    body: { creation_id: id },
    headers: { ...AUTH, "content-type": FORM },
  });
  const permalink = (id: string) => ({
    method: "GET",
    path: `/v26.0/${id}`,
    query: { fields: "permalink,shortcode" },
    body: null,
    headers: AUTH,
  });

  it("publishes a feed image: container → status → media_publish → permalink", async () => {
    const image = await storeTestMedia("image");
    const result = await adapter.publish(testAdapterContext(), request("instagram_feed", [image]));
    expect(result).toEqual({ platformPostId: "17920000002", platformUrl: "https://www.instagram.com/p/C20000002xYz/" });
    expect(fake.calls.every((c) => c.origin === origin)).toBe(true);
    expect(fake.calls.map(view)).toEqual([
      create({ image_url: image.url, caption: "Sunset #travel" }),
      poll("17895000001"),
      publish("17895000001"),
      permalink("17920000002"),
    ]);
    expect(fake.published).toHaveLength(1);
  });

  it("publishes a reel, polling the container while IN_PROGRESS", async () => {
    fake.videoPolls = 2;
    const video = await storeTestMedia("video");
    const sleeps: number[] = [];
    const result = await adapter.publish(
      testAdapterContext({ sleep: async (ms) => void sleeps.push(ms) }),
      request("instagram_reel", [video]),
    );
    expect(result).toEqual({
      platformPostId: "17920000002",
      platformUrl: "https://www.instagram.com/reel/C20000002xYz/",
    });
    expect(fake.calls.map(view)).toEqual([
      create({ media_type: "REELS", video_url: video.url, caption: "Sunset #travel", share_to_feed: "true" }),
      poll("17895000001"),
      poll("17895000001"),
      poll("17895000001"),
      publish("17895000001"),
      permalink("17920000002"),
    ]);
    expect(sleeps).toEqual([5000, 5000]);
  });

  it("publishes a feed video as a reel", async () => {
    fake.videoPolls = 0;
    const video = await storeTestMedia("video");
    await adapter.publish(testAdapterContext(), request("instagram_feed", [video], ""));
    expect(fake.calls[0]!.body).toEqual({ media_type: "REELS", video_url: video.url, share_to_feed: "true" });
  });

  it("publishes image and video stories without a caption", async () => {
    fake.videoPolls = 0;
    const image = await storeTestMedia("image");
    const video = await storeTestMedia("video");
    const a = await adapter.publish(testAdapterContext(), request("instagram_story", [image]));
    const b = await adapter.publish(testAdapterContext(), request("instagram_story", [video]));
    expect([a, b]).toEqual([
      { platformPostId: "17920000002", platformUrl: "https://www.instagram.com/p/C20000002xYz/" },
      { platformPostId: "17920000004", platformUrl: "https://www.instagram.com/p/C20000004xYz/" },
    ]);
    expect(fake.calls.filter((c) => c.path.endsWith("/media")).map((c) => c.body)).toEqual([
      { media_type: "STORIES", image_url: image.url },
      { media_type: "STORIES", video_url: video.url },
    ]);
  });

  it("publishes a carousel: children (is_carousel_item), wait for each, CAROUSEL parent, publish the parent", async () => {
    fake.videoPolls = 1;
    const media = [await storeTestMedia("image"), await storeTestMedia("video"), await storeTestMedia("image")];
    const result = await adapter.publish(testAdapterContext(), request("instagram_carousel", media));
    expect(result).toEqual({ platformPostId: "17920000005", platformUrl: "https://www.instagram.com/p/C20000005xYz/" });
    expect(fake.calls.map(view)).toEqual([
      create({ image_url: media[0]!.url, is_carousel_item: "true" }),
      create({ media_type: "VIDEO", video_url: media[1]!.url, is_carousel_item: "true" }),
      create({ image_url: media[2]!.url, is_carousel_item: "true" }),
      poll("17895000001"),
      poll("17895000002"),
      poll("17895000002"),
      poll("17895000003"),
      create({ media_type: "CAROUSEL", children: "17895000001,17895000002,17895000003", caption: "Sunset #travel" }),
      poll("17895000004"),
      publish("17895000004"),
      permalink("17920000005"),
    ]);
    expect(fake.published.map((p) => p.id)).toEqual(["17920000005"]);
  });

  it("keeps a published post when the permalink lookup fails (no retry, no duplicate)", async () => {
    fake.failNext({ method: "GET", path: "/v26.0/17920000002" }, () => metaServerError());
    const result = await adapter.publish(
      testAdapterContext(),
      request("instagram_feed", [await storeTestMedia("image")]),
    );
    expect(result).toEqual({ platformPostId: "17920000002", platformUrl: null });
    expect(fake.published).toHaveLength(1);
  });

  it("maps a business-use-case throttle (400, code 80002) to transient with the wait from the usage header", async () => {
    fake.failNext({ method: "POST", path: /\/media$/ }, () => metaThrottle({ code: 80002, regainMinutes: 15 }));
    const err = await platformFailure(
      adapter.publish(testAdapterContext(), request("instagram_feed", [await storeTestMedia("image")])),
    );
    expect({
      kind: err.kind,
      status: err.status,
      retryAfterSeconds: err.retryAfterSeconds,
      message: err.message,
    }).toEqual({
      kind: "transient",
      status: 400,
      retryAfterSeconds: 900,
      message:
        "There have been too many calls to this Instagram account. Wait a bit and try again. For more info, please refer to https://developers.facebook.com/docs/graph-api/overview/rate-limiting.",
    });
    expect(fake.published).toEqual([]);
  });

  it("maps an app-level throttle (403, code 4) to transient without a time hint", async () => {
    fake.failNext({ method: "POST", path: /\/media_publish$/ }, () => metaThrottle({ code: 4 }));
    const err = await platformFailure(
      adapter.publish(testAdapterContext(), request("instagram_feed", [await storeTestMedia("image")])),
    );
    expect({
      kind: err.kind,
      status: err.status,
      retryAfterSeconds: err.retryAfterSeconds,
      message: err.message,
    }).toEqual({
      kind: "transient",
      status: 403,
      retryAfterSeconds: undefined,
      message: "Application request limit reached",
    });
  });

  it("maps a 5xx to transient", async () => {
    fake.failNext({ method: "POST", path: /\/media$/ }, () => metaServerError(503));
    const err = await platformFailure(
      adapter.publish(testAdapterContext(), request("instagram_feed", [await storeTestMedia("image")])),
    );
    expect([err.kind, err.status, err.message]).toEqual([
      "transient",
      503,
      "An unexpected error has occurred. Please retry your request later.",
    ]);
  });

  it("maps an expired token (400, code 190) to kind auth", async () => {
    fake.expiredTokens.add("access-token");
    const err = await platformFailure(
      adapter.publish(testAdapterContext(), request("instagram_feed", [await storeTestMedia("image")])),
    );
    expect([err.kind, err.status]).toEqual(["auth", 400]);
    expect(err.message).toMatch(/^Error validating access token: Session has expired/);
  });

  it("fails permanently with the platform's reason when the content is rejected", async () => {
    const err = await platformFailure(
      adapter.publish(
        testAdapterContext(),
        request("instagram_feed", [await storeTestMedia("image")], "a".repeat(2201)),
      ),
    );
    expect([err.kind, err.status, err.message]).toEqual(["permanent", 400, "The caption is too long for Instagram."]);
    const gif = await storeTestMedia("image", new Uint8Array([0x47, 0x49, 0x46]), "image/gif");
    const err2 = await platformFailure(
      adapter.publish(
        testAdapterContext(),
        request("instagram_feed", [{ ...gif, url: gif.url.replace(".jpg", ".gif") }]),
      ),
    );
    expect([err2.kind, err2.message]).toEqual(["permanent", "Instagram does not support this image format."]);
  });

  it("fails permanently when the container ends in ERROR, without publishing", async () => {
    fake.processingError = "Error: Media upload has failed with error code 2207026";
    const err = await platformFailure(
      adapter.publish(testAdapterContext(), request("instagram_reel", [await storeTestMedia("video")])),
    );
    expect([err.kind, err.message]).toEqual(["permanent", "Instagram does not support this video format."]);
    expect(fake.summary().filter((s) => s.endsWith("/media_publish"))).toEqual([]);
    expect(fake.published).toEqual([]);
  });

  it("refuses a text-only post before calling Instagram", async () => {
    const err = await platformFailure(adapter.publish(testAdapterContext(), request("instagram_feed", [])));
    expect([err.kind, err.message]).toEqual(["permanent", "Instagram posts need an image or a video."]);
    expect(fake.calls).toEqual([]);
  });

  it.each([
    [
      "instagram_feed",
      "reach,likes,comments,shares,saved,total_interactions",
      "FEED" as const,
      [
        { label: "Reach", value: 1200 },
        { label: "Likes", value: 87 },
        { label: "Comments", value: 9 },
        { label: "Shares", value: 4 },
        { label: "Saved", value: 11 },
        { label: "Total interactions", value: 111 },
      ],
    ],
    [
      "instagram_reel",
      "reach,likes,comments,shares,saved,views",
      "REELS" as const,
      [
        { label: "Reach", value: 1200 },
        { label: "Likes", value: 87 },
        { label: "Comments", value: 9 },
        { label: "Shares", value: 4 },
        { label: "Saved", value: 11 },
        { label: "Plays", value: 5400 },
      ],
    ],
    [
      "instagram_story",
      "reach,views,replies",
      "STORY" as const,
      [
        { label: "Reach", value: 1200 },
        { label: "Impressions", value: 5400 },
        { label: "Replies", value: 2 },
      ],
    ],
  ])("reads %s insights with the §11 labels", async (contentType, metricParam, productType, expected) => {
    fake.setInsights(
      "17920000999",
      { reach: 1200, likes: 87, comments: 9, shares: 4, saved: 11, total_interactions: 111, views: 5400, replies: 2 },
      productType,
    );
    const metrics = await adapter.metrics!(testAdapterContext(), {
      platformPostId: "17920000999",
      platformUrl: null,
      contentType,
      account: testAccount(platform),
    });
    expect(metrics).toEqual(expected);
    expect(fake.calls.map(view)).toEqual([
      { method: "GET", path: "/v26.0/17920000999/insights", query: { metric: metricParam }, body: null, headers: AUTH },
    ]);
  });
});

describe("Instagram refresh", () => {
  let fake: MetaGraphFake;
  beforeEach(() => {
    fake = new MetaGraphFake("https://instagram.fake");
  });
  afterEach(() => fake.uninstall());

  it("refreshes an Instagram Login token with ig_refresh_token", async () => {
    const now = 1_800_000_000_000;
    const refreshed = await adapterFor("instagram")!.refresh!(
      testAdapterContext({ now: () => now }),
      testAccount("instagram", {
        credentials: { access_token: "access-token", expires_at: 1 },
      }),
    );
    expect(refreshed).toEqual({
      credentials: { access_token: "ig-refreshed-1", expires_at: now + 5_184_000_000 },
      expiresAt: now + 5_184_000_000,
    });
    expect(fake.calls.map(view)).toEqual([
      {
        method: "GET",
        path: "/refresh_access_token",
        query: { grant_type: "ig_refresh_token", access_token: "access-token" },
        body: null,
        headers: {},
      },
    ]);
  });

  it("maps a refused refresh to kind auth", async () => {
    fake.expiredTokens.add("access-token");
    const err = await platformFailure(
      adapterFor("instagram")!.refresh!(testAdapterContext(), testAccount("instagram")),
    );
    expect(err.kind).toBe("auth");
    expect(err.message).toMatch(/^Error validating access token/);
  });

  it("checks an Instagram-via-Facebook-Login token instead of refreshing it (no refresh grant)", async () => {
    const graph = new MetaGraphFake("https://facebook.fake");
    try {
      const account = testAccount("instagram-facebook", {
        credentials: { access_token: "access-token", expires_at: Date.now() - 1000 },
      });
      expect(await adapterFor("instagram-facebook")!.refresh!(testAdapterContext(), account)).toEqual({
        credentials: { access_token: "access-token", expires_at: null },
        expiresAt: null,
      });
      expect(graph.calls.map(view)).toEqual([
        { method: "GET", path: "/v26.0/me", query: { fields: "id" }, body: null, headers: AUTH },
      ]);
      graph.expiredTokens.add("access-token");
      const err = await platformFailure(adapterFor("instagram-facebook")!.refresh!(testAdapterContext(), account));
      expect(err.kind).toBe("auth");
      expect(fake.calls).toEqual([]);
    } finally {
      graph.uninstall();
    }
  });
});
