import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adapterFor } from "../../../src/platforms";
import type { AdapterMedia, PublishRequest } from "../../../src/platforms/types";
import { storeTestMedia, testAccount, testAdapterContext } from "../../support/adapter-context";
import { platformFailure } from "../../support/fakes/fake-kit";
import {
  fakeFacebookGraph,
  type MetaGraphFake,
  metaServerError,
  metaThrottle,
  type RecordedCall,
} from "../../support/fakes/meta";

const adapter = adapterFor("facebook")!;
const PAGE = "1234567890";
const AUTH = { authorization: "Bearer access-token" };
const JSON_HEADERS = { ...AUTH, "content-type": "application/json" };
const view = (c: RecordedCall) => ({
  method: c.method,
  path: c.path,
  query: c.query,
  body: c.body,
  headers: c.headers,
});

let fake: MetaGraphFake;
beforeEach(() => {
  fake = fakeFacebookGraph();
});
afterEach(() => fake.uninstall());

const request = (contentType: string, media: AdapterMedia[], content = "Opening hours changed"): PublishRequest => ({
  postPlatformId: crypto.randomUUID(),
  contentType,
  content,
  media,
  meta: {},
  account: testAccount("facebook", { platformUserId: PAGE }),
});

describe("Facebook Page publish", () => {
  it("publishes text to /feed and keeps the permalink_url", async () => {
    const result = await adapter.publish(testAdapterContext(), request("facebook_post", []));
    expect(result).toEqual({
      platformPostId: `${PAGE}_122000001`,
      platformUrl: `https://www.facebook.com/permalink.php?story_fbid=122000001&id=${PAGE}`,
    });
    expect(fake.calls.map(view)).toEqual([
      {
        method: "POST",
        path: `/v26.0/${PAGE}/feed`,
        query: { fields: "id,permalink_url" },
        body: { message: "Opening hours changed", published: true },
        headers: JSON_HEADERS,
      },
    ]);
  });

  it("publishes one image with /photos and returns its post_id", async () => {
    const image = await storeTestMedia("image");
    const result = await adapter.publish(testAdapterContext(), request("facebook_post", [image]));
    expect(result).toEqual({
      platformPostId: `${PAGE}_122000002`,
      platformUrl: `https://www.facebook.com/${PAGE}/posts/122000002`,
    });
    expect(fake.calls.map(view)).toEqual([
      {
        method: "POST",
        path: `/v26.0/${PAGE}/photos`,
        query: {},
        body: { url: image.url, message: "Opening hours changed", published: true },
        headers: JSON_HEADERS,
      },
    ]);
  });

  it("publishes several images as unpublished photos attached to one feed post", async () => {
    const media = [await storeTestMedia("image"), await storeTestMedia("image"), await storeTestMedia("image")];
    const result = await adapter.publish(testAdapterContext(), request("facebook_post", media));
    expect(result).toEqual({
      platformPostId: `${PAGE}_122000004`,
      platformUrl: `https://www.facebook.com/permalink.php?story_fbid=122000004&id=${PAGE}`,
    });
    expect(fake.calls.map(view)).toEqual([
      ...media.map((m) => ({
        method: "POST",
        path: `/v26.0/${PAGE}/photos`,
        query: {},
        body: { url: m.url, published: false },
        headers: JSON_HEADERS,
      })),
      {
        method: "POST",
        path: `/v26.0/${PAGE}/feed`,
        query: { fields: "id,permalink_url" },
        body: {
          message: "Opening hours changed",
          attached_media: [
            { media_fbid: "122100000001" },
            { media_fbid: "122100000002" },
            { media_fbid: "122100000003" },
          ],
          published: true,
        },
        headers: JSON_HEADERS,
      },
    ]);
    expect(fake.published.map((p) => p.kind)).toEqual(["feed"]);
  });

  it("publishes a video by its public URL (file_url)", async () => {
    const video = await storeTestMedia("video");
    const result = await adapter.publish(testAdapterContext(), request("facebook_post", [video]));
    expect(result).toEqual({
      platformPostId: "122200000001",
      platformUrl: `https://www.facebook.com/${PAGE}/videos/122200000001`,
    });
    expect(fake.calls.map(view)).toEqual([
      {
        method: "POST",
        path: `/v26.0/${PAGE}/videos`,
        query: {},
        body: { file_url: video.url, description: "Opening hours changed", published: true },
        headers: JSON_HEADERS,
      },
    ]);
  });

  it("publishes a reel: start → rupload with file_url → finish PUBLISHED → status until ready", async () => {
    fake.videoPolls = 1;
    const video = await storeTestMedia("video");
    const sleeps: number[] = [];
    const result = await adapter.publish(
      testAdapterContext({ sleep: async (ms) => void sleeps.push(ms) }),
      request("facebook_reel", [video], "Behind the scenes"),
    );
    expect(result).toEqual({
      platformPostId: "122300000001",
      platformUrl: "https://www.facebook.com/reel/122300000001",
    });
    const status = {
      method: "GET",
      path: "/v26.0/122300000001",
      query: { fields: "status" },
      body: null,
      headers: AUTH,
    };
    expect(fake.calls.map(view)).toEqual([
      {
        method: "POST",
        path: `/v26.0/${PAGE}/video_reels`,
        query: { upload_phase: "start" },
        body: null,
        headers: AUTH,
      },
      {
        method: "POST",
        path: "/video-upload/v26.0/122300000001",
        query: {},
        body: null,
        headers: { authorization: "OAuth access-token", file_url: video.url },
      },
      {
        method: "POST",
        path: `/v26.0/${PAGE}/video_reels`,
        query: {
          upload_phase: "finish",
          video_id: "122300000001",
          video_state: "PUBLISHED",
          description: "Behind the scenes",
        },
        body: null,
        headers: AUTH,
      },
      status,
      status,
    ]);
    expect(sleeps).toEqual([3000]);
    expect(fake.published.map((p) => p.kind)).toEqual(["reel"]);
  });

  it("fails a reel permanently with Facebook's processing error", async () => {
    fake.reelError = "The video file you tried to upload is too short. Reels must be at least 3 seconds.";
    const err = await platformFailure(
      adapter.publish(testAdapterContext(), request("facebook_reel", [await storeTestMedia("video")])),
    );
    expect([err.kind, err.message]).toEqual([
      "permanent",
      "The video file you tried to upload is too short. Reels must be at least 3 seconds.",
    ]);
  });

  it("publishes a photo story (unpublished photo → photo_stories)", async () => {
    const image = await storeTestMedia("image");
    const result = await adapter.publish(testAdapterContext(), request("facebook_story", [image]));
    expect(result).toEqual({ platformPostId: "122500000002", platformUrl: null });
    expect(fake.calls.map(view)).toEqual([
      {
        method: "POST",
        path: `/v26.0/${PAGE}/photos`,
        query: {},
        body: { url: image.url, published: false },
        headers: JSON_HEADERS,
      },
      {
        method: "POST",
        path: `/v26.0/${PAGE}/photo_stories`,
        query: {},
        body: { photo_id: "122100000001" },
        headers: JSON_HEADERS,
      },
    ]);
  });

  it("publishes a video story (start → rupload → finish)", async () => {
    const video = await storeTestMedia("video");
    const result = await adapter.publish(testAdapterContext(), request("facebook_story", [video]));
    expect(result).toEqual({ platformPostId: "122400000002", platformUrl: null });
    expect(fake.calls.map(view)).toEqual([
      {
        method: "POST",
        path: `/v26.0/${PAGE}/video_stories`,
        query: {},
        body: { upload_phase: "start" },
        headers: JSON_HEADERS,
      },
      {
        method: "POST",
        path: "/video-upload/v26.0/122300000001",
        query: {},
        body: null,
        headers: { authorization: "OAuth access-token", file_url: video.url },
      },
      {
        method: "POST",
        path: `/v26.0/${PAGE}/video_stories`,
        query: {},
        body: { upload_phase: "finish", video_id: "122300000001" },
        headers: JSON_HEADERS,
      },
    ]);
  });

  it("maps a Page throttle (400, code 80001) to transient with the BUC wait", async () => {
    fake.failNext({ path: `/v26.0/${PAGE}/feed` }, () =>
      metaThrottle({ code: 80001, regainMinutes: 5, businessId: PAGE }),
    );
    const err = await platformFailure(adapter.publish(testAdapterContext(), request("facebook_post", [])));
    expect({ kind: err.kind, status: err.status, retryAfterSeconds: err.retryAfterSeconds }).toEqual({
      kind: "transient",
      status: 400,
      retryAfterSeconds: 300,
    });
    expect(fake.published).toEqual([]);
  });

  it("maps a page-level throttle (code 32) to transient", async () => {
    fake.failNext({ path: `/v26.0/${PAGE}/feed` }, () => metaThrottle({ code: 32, status: 403 }));
    const err = await platformFailure(adapter.publish(testAdapterContext(), request("facebook_post", [])));
    expect([err.kind, err.status, err.message]).toEqual(["transient", 403, "Page request limit reached"]);
  });

  it("maps a 5xx to transient", async () => {
    fake.failNext({ path: `/v26.0/${PAGE}/feed` }, () => metaServerError(500));
    const err = await platformFailure(adapter.publish(testAdapterContext(), request("facebook_post", [])));
    expect([err.kind, err.status]).toEqual(["transient", 500]);
  });

  it("maps an expired Page token to kind auth", async () => {
    fake.expiredTokens.add("access-token");
    const err = await platformFailure(adapter.publish(testAdapterContext(), request("facebook_post", [])));
    expect(err.kind).toBe("auth");
  });

  it("fails permanently with Facebook's words for a duplicate status (code 506)", async () => {
    await adapter.publish(testAdapterContext(), request("facebook_post", [], "Same text"));
    const err = await platformFailure(adapter.publish(testAdapterContext(), request("facebook_post", [], "Same text")));
    expect([err.kind, err.status, err.message]).toEqual([
      "permanent",
      400,
      "This status update is identical to the last one you posted. Try posting something different, or delete your previous update.",
    ]);
    expect(fake.published).toHaveLength(1);
  });

  it("refuses several media with a video before calling Facebook", async () => {
    const media = [await storeTestMedia("image"), await storeTestMedia("video")];
    const err = await platformFailure(adapter.publish(testAdapterContext(), request("facebook_post", media)));
    expect([err.kind, err.message]).toEqual([
      "permanent",
      "Facebook posts with several media items accept images only.",
    ]);
    expect(fake.calls).toEqual([]);
  });

  it("has no refresh grant: a refresh checks that the Page token still works and keeps it, without expiry", async () => {
    // A Page token from a long-lived user token does not expire; a stored expires_at (the user token's) is dropped.
    const account = testAccount("facebook", {
      credentials: { access_token: "access-token", expires_at: Date.now() - 1000 },
    });
    expect(await adapter.refresh!(testAdapterContext(), account)).toEqual({
      credentials: { access_token: "access-token", expires_at: null },
      expiresAt: null,
    });
    expect(fake.calls.map(view)).toEqual([
      { method: "GET", path: "/v26.0/me", query: { fields: "id" }, body: null, headers: AUTH },
    ]);
  });

  it("reports a token Graph refuses (code 190) as auth, and a failed check as transient", async () => {
    fake.expiredTokens.add("access-token");
    const refused = await platformFailure(adapter.refresh!(testAdapterContext(), testAccount("facebook")));
    expect(refused.kind).toBe("auth");
    expect(refused.message).toMatch(/^Error validating access token: Session has expired/);

    fake.expiredTokens.clear();
    fake.failNext({ path: /^\/v26\.0\/me/ }, () => metaServerError(500));
    const failed = await platformFailure(adapter.refresh!(testAdapterContext(), testAccount("facebook")));
    expect(failed.kind).toBe("transient");
  });
});

describe("Facebook metrics", () => {
  it("reads post insights into Impressions, Unique impressions, Reactions, Clicks (media views replace impressions)", async () => {
    fake.setInsights(`${PAGE}_122000777`, {
      post_media_view: 3021,
      post_total_media_view_unique: 1877,
      post_reactions_by_type_total: { like: 40, love: 6, wow: 1, haha: 2, sorry: 0, anger: 1 },
      post_clicks: 95,
    });
    const metrics = await adapter.metrics!(testAdapterContext(), {
      platformPostId: `${PAGE}_122000777`,
      platformUrl: `https://www.facebook.com/${PAGE}/posts/122000777`,
      contentType: "facebook_post",
      account: testAccount("facebook", { platformUserId: PAGE }),
    });
    expect(metrics).toEqual([
      { label: "Impressions", value: 3021 },
      { label: "Unique impressions", value: 1877 },
      { label: "Reactions", value: 50 },
      { label: "Clicks", value: 95 },
    ]);
    expect(fake.calls.map(view)).toEqual([
      {
        method: "GET",
        path: `/v26.0/${PAGE}_122000777/insights`,
        query: { metric: "post_media_view,post_total_media_view_unique,post_reactions_by_type_total,post_clicks" },
        body: null,
        headers: AUTH,
      },
    ]);
  });

  it("the retired post_impressions fails the whole request, as Graph does", async () => {
    fake.setInsights(`${PAGE}_1`, { post_media_view: 1 });
    const res = await fetch(`https://facebook.fake/v26.0/${PAGE}_1/insights?metric=post_impressions,post_media_view`, {
      headers: AUTH,
    });
    expect([res.status, await res.json()]).toEqual([
      400,
      {
        error: {
          message: "(#100) The value must be a valid insights metric",
          type: "OAuthException",
          is_transient: false,
          code: 100,
          fbtrace_id: expect.any(String),
        },
      },
    ]);
  });

  it("reads a video post and a reel from /{video-id}/video_insights by their current names, not the retired impressions", async () => {
    // The retired "impressions" names are seeded too: Graph no longer answers them (the fake drops them), so a
    // reader still asking for them would report 0.
    fake.setVideoInsights(
      "900100",
      {
        total_video_views: 410,
        total_video_views_unique: 320,
        total_video_impressions: 1500,
        total_video_impressions_unique: 1200,
        total_video_reactions_by_type_total: { like: 12, love: 3 },
      },
      "video",
    );
    fake.setVideoInsights(
      "900200",
      {
        blue_reels_play_count: 5200,
        fb_reels_total_plays: 6100,
        post_impressions_unique: 4300,
        post_total_media_view_unique: 3900,
        post_video_likes_by_reaction_type: { REACTION_LIKE: 80, REACTION_LOVE: 9 },
        post_video_avg_time_watched: 7100,
      },
      "reel",
    );
    const account = testAccount("facebook", { platformUserId: PAGE });
    const video = await adapter.metrics!(testAdapterContext(), {
      platformPostId: "900100",
      platformUrl: `https://www.facebook.com/${PAGE}/videos/900100`,
      contentType: "facebook_post",
      account,
    });
    const reel = await adapter.metrics!(testAdapterContext(), {
      platformPostId: "900200",
      platformUrl: "https://www.facebook.com/reel/900200",
      contentType: "facebook_reel",
      account,
    });
    expect([video, reel]).toEqual([
      [
        { label: "Impressions", value: 410 },
        { label: "Unique impressions", value: 320 },
        { label: "Reactions", value: 15 },
        { label: "Clicks", value: 0 },
      ],
      [
        { label: "Impressions", value: 6100 },
        { label: "Unique impressions", value: 3900 },
        { label: "Reactions", value: 89 },
        { label: "Clicks", value: 0 },
      ],
    ]);
    expect(fake.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      "GET /v26.0/900100/video_insights",
      "GET /v26.0/900200/video_insights",
    ]);
  });

  it("maps an unknown post to a permanent error with Meta's message", async () => {
    const err = await platformFailure(
      adapter.metrics!(testAdapterContext(), {
        platformPostId: "nope",
        platformUrl: null,
        contentType: "facebook_post",
        account: testAccount("facebook"),
      }),
    );
    expect(err.kind).toBe("permanent");
    expect(err.message).toMatch(/^Unsupported get request\. Object with ID 'nope' does not exist/);
  });
});
