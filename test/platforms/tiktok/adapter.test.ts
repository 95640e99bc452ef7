import { afterEach, describe, expect, it } from "vitest";
import { adapterFor } from "../../../src/platforms";
import { tiktokAdapter } from "../../../src/platforms/tiktok/adapter";
import type { PublishRequest } from "../../../src/platforms/types";
import { memoryCheckpoint, storeTestMedia, testAccount, testAdapterContext } from "../../support/adapter-context";
import { platformRejection, sha256, testBytes } from "../../support/fakes/fake-kit";
import { fakeTikTok, type TikTokFake, tiktokErrorResponse } from "../../support/fakes/tiktok";

const MIB = 1024 * 1024;
const JSON_HEADERS = { authorization: "Bearer access-token", "content-type": "application/json; charset=UTF-8" };
const CREATOR_CALL = { method: "POST", path: "/v2/post/publish/creator_info/query/", headers: JSON_HEADERS };

let fake: TikTokFake | undefined;
afterEach(() => fake?.stop());

function request(overrides: Partial<PublishRequest> = {}): PublishRequest {
  return {
    postPlatformId: crypto.randomUUID(),
    contentType: "tiktok_video",
    content: "Hello TikTok #edge",
    media: [],
    meta: {},
    account: testAccount("tiktok"),
    ...overrides,
  };
}

const rejection = platformRejection;

// No default visibility or interaction is chosen for the creator: the most private level, interactions off.
const videoPostInfo = (privacy = "SELF_ONLY") => ({
  title: "Hello TikTok #edge",
  privacy_level: privacy,
  disable_duet: true,
  disable_comment: true,
  disable_stitch: true,
  brand_content_toggle: false,
  brand_organic_toggle: false,
  is_aigc: false,
});

describe("tiktok adapter: publish", () => {
  it("is registered", () => {
    expect(adapterFor("tiktok")).toBe(tiktokAdapter);
  });

  it("uploads a small video as one chunk, polls status and returns the public post id", async () => {
    fake = fakeTikTok();
    const bytes = testBytes(300_000);
    const media = await storeTestMedia("video", bytes);
    const result = await tiktokAdapter.publish(testAdapterContext(), request({ media: [media] }));

    expect(result).toEqual({
      platformPostId: "7351234567890123456",
      platformUrl: "https://www.tiktok.com/@tester_tt/video/7351234567890123456",
    });
    const publishId = "v_pub_file~v2-1.7000000000000000001";
    expect(fake.calls).toEqual([
      CREATOR_CALL,
      {
        method: "POST",
        path: "/v2/post/publish/video/init/",
        headers: JSON_HEADERS,
        json: {
          post_info: videoPostInfo(),
          source_info: { source: "FILE_UPLOAD", video_size: 300_000, chunk_size: 300_000, total_chunk_count: 1 },
        },
      },
      {
        method: "PUT",
        path: `/upload/video/?upload_id=up1&upload_token=tok-${encodeURIComponent(publishId)}`,
        headers: { "content-type": "video/mp4", "content-length": "300000", "content-range": "bytes 0-299999/300000" },
        bytes: 300_000,
      },
      {
        method: "POST",
        path: "/v2/post/publish/status/fetch/",
        headers: JSON_HEADERS,
        json: { publish_id: publishId },
      },
      {
        method: "POST",
        path: "/v2/post/publish/status/fetch/",
        headers: JSON_HEADERS,
        json: { publish_id: publishId },
      },
    ]);
    expect(await sha256(fake.uploaded(publishId))).toBe(await sha256(bytes));
  });

  it("splits a 25 MiB video into floor(size/10 MiB) = 2 chunks, the last one taking the remainder", async () => {
    fake = fakeTikTok({ statuses: ["PUBLISH_COMPLETE"] });
    const size = 25 * MIB + 123;
    const bytes = testBytes(size);
    const media = await storeTestMedia("video", bytes);
    const result = await tiktokAdapter.publish(testAdapterContext(), request({ media: [media] }));

    expect(result.platformPostId).toBe("7351234567890123456");
    const init = fake.calls.find((c) => c.path === "/v2/post/publish/video/init/");
    expect((init!.json as any).source_info).toEqual({
      source: "FILE_UPLOAD",
      video_size: size,
      chunk_size: 10 * MIB,
      total_chunk_count: 2,
    });
    const puts = fake.calls.filter((c) => c.method === "PUT").map((c) => [c.headers["content-range"], c.bytes]);
    expect(puts).toEqual([
      [`bytes 0-${10 * MIB - 1}/${size}`, 10 * MIB],
      [`bytes ${10 * MIB}-${size - 1}/${size}`, size - 10 * MIB],
    ]);
    expect(await sha256(fake.uploaded("v_pub_file~v2-1.7000000000000000001"))).toBe(await sha256(bytes));
  });

  it("lets TikTok pull the video from the public media URL when video_source is PULL_FROM_URL", async () => {
    fake = fakeTikTok({ statuses: ["PROCESSING_DOWNLOAD", "PUBLISH_COMPLETE"] });
    const media = await storeTestMedia("video");
    const result = await tiktokAdapter.publish(
      testAdapterContext(),
      request({ media: [media], meta: { video_source: "PULL_FROM_URL", privacy_level: "SELF_ONLY", is_aigc: true } }),
    );
    expect(result).toEqual({
      platformPostId: "7351234567890123456",
      platformUrl: "https://www.tiktok.com/@tester_tt/video/7351234567890123456",
    });
    expect(fake.calls.slice(1, 2)).toEqual([
      {
        method: "POST",
        path: "/v2/post/publish/video/init/",
        headers: JSON_HEADERS,
        json: {
          post_info: { ...videoPostInfo("SELF_ONLY"), is_aigc: true },
          source_info: { source: "PULL_FROM_URL", video_url: media.url },
        },
      },
    ]);
    expect(fake.calls.filter((c) => c.method === "PUT")).toEqual([]);
    expect(fake.calls.filter((c) => c.path === "/v2/post/publish/status/fetch/")).toHaveLength(2);
  });

  it("posts photos by URL as a PHOTO content post and links to /photo/", async () => {
    fake = fakeTikTok({ statuses: ["PUBLISH_COMPLETE"], commentDisabled: true });
    const photos = [await storeTestMedia("image"), await storeTestMedia("image"), await storeTestMedia("image")];
    const result = await tiktokAdapter.publish(
      testAdapterContext(),
      request({ contentType: "tiktok_photo", media: photos, meta: { title: "Trip", photo_cover_index: 2 } }),
    );
    expect(result).toEqual({
      platformPostId: "7351234567890123456",
      platformUrl: "https://www.tiktok.com/@tester_tt/photo/7351234567890123456",
    });
    expect(fake.calls).toEqual([
      CREATOR_CALL,
      {
        method: "POST",
        path: "/v2/post/publish/content/init/",
        headers: JSON_HEADERS,
        json: {
          post_info: {
            title: "Trip",
            description: "Hello TikTok #edge",
            privacy_level: "SELF_ONLY",
            disable_comment: true,
            auto_add_music: true,
            brand_content_toggle: false,
            brand_organic_toggle: false,
          },
          source_info: { source: "PULL_FROM_URL", photo_cover_index: 2, photo_images: photos.map((p) => p.url) },
          post_mode: "DIRECT_POST",
          media_type: "PHOTO",
        },
      },
      {
        method: "POST",
        path: "/v2/post/publish/status/fetch/",
        headers: JSON_HEADERS,
        json: { publish_id: "p_pub_url~v2-1.7000000000000000001" },
      },
    ]);
  });

  it("a private post (complete without a public id) is published at the creator's profile URL", async () => {
    fake = fakeTikTok({ statuses: ["PUBLISH_COMPLETE"], postId: null });
    const media = await storeTestMedia("video");
    const result = await tiktokAdapter.publish(testAdapterContext(), request({ media: [media] }));
    expect(result).toEqual({
      platformPostId: "v_pub_file~v2-1.7000000000000000001",
      platformUrl: "https://www.tiktok.com/@tester_tt",
    });
  });

  it("a post still in moderation after the poll window is re-checked later from its publish_id, not posted again", async () => {
    fake = fakeTikTok({ statuses: ["PROCESSING_DOWNLOAD"] });
    const sleeps: number[] = [];
    const media = await storeTestMedia("video");
    const checkpoint = memoryCheckpoint();
    const req = request({ media: [media], checkpoint });
    const actx = testAdapterContext({ sleep: async (ms) => void sleeps.push(ms) });
    expect(await rejection(tiktokAdapter.publish(actx, req))).toEqual({
      name: "PlatformError",
      kind: "transient",
      message: "TikTok is still processing the post; it will be checked again.",
      retryAfterSeconds: 300,
      status: undefined,
    });
    expect(fake.calls.filter((c) => c.path === "/v2/post/publish/status/fetch/")).toHaveLength(36);
    expect(sleeps).toEqual(Array(35).fill(5000));
    expect(checkpoint.saved).toEqual({
      publish_id: "v_pub_file~v2-1.7000000000000000001",
      file_upload: true,
      file_size: media.size,
    });

    // The next delivery asks about the same publish id; the last one the queue makes settles at the profile URL.
    fake.publishes.get("v_pub_file~v2-1.7000000000000000001")!.statuses = ["PUBLISH_COMPLETE"];
    expect(await tiktokAdapter.publish(actx, req)).toEqual({
      platformPostId: "7351234567890123456",
      platformUrl: "https://www.tiktok.com/@tester_tt/video/7351234567890123456",
    });
    expect(fake.publishes.size).toBe(1);
    expect(fake.calls.filter((c) => c.path === "/v2/post/publish/video/init/")).toHaveLength(1);
  });

  it("on the queue's last delivery a post still in moderation is recorded as published at the profile URL", async () => {
    fake = fakeTikTok({ statuses: ["PROCESSING_DOWNLOAD"] });
    const media = await storeTestMedia("video");
    const result = await tiktokAdapter.publish(testAdapterContext(), request({ media: [media], finalAttempt: true }));
    expect(result).toEqual({
      platformPostId: "v_pub_file~v2-1.7000000000000000001",
      platformUrl: "https://www.tiktok.com/@tester_tt",
    });
  });

  it("keeps polling through a failed status read instead of failing a post already sent", async () => {
    fake = fakeTikTok({ statuses: ["PUBLISH_COMPLETE"] });
    fake.script.add("POST", "/v2/post/publish/status/fetch/", () =>
      tiktokErrorResponse(429, "rate_limit_exceeded", "Api rate limit exceeded, please retry later."),
    );
    const media = await storeTestMedia("video");
    const result = await tiktokAdapter.publish(testAdapterContext(), request({ media: [media] }));
    expect(result.platformPostId).toBe("7351234567890123456");
  });

  it("fails permanently with TikTok's reason when processing fails", async () => {
    fake = fakeTikTok({ statuses: ["PROCESSING_UPLOAD", "FAILED"], failReason: "duration_check_failed" });
    const media = await storeTestMedia("video");
    expect(await rejection(tiktokAdapter.publish(testAdapterContext(), request({ media: [media] })))).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message: "TikTok rejected the video length.",
      retryAfterSeconds: undefined,
      status: undefined,
    });
  });
});

describe("tiktok adapter: privacy level", () => {
  it("defaults to the most private level the creator offers", async () => {
    fake = fakeTikTok({
      privacyLevelOptions: ["PUBLIC_TO_EVERYONE", "FOLLOWER_OF_CREATOR"],
      statuses: ["PUBLISH_COMPLETE"],
    });
    const media = await storeTestMedia("video");
    await tiktokAdapter.publish(testAdapterContext(), request({ media: [media] }));
    const init = fake.calls.find((c) => c.path === "/v2/post/publish/video/init/");
    expect((init!.json as any).post_info.privacy_level).toBe("FOLLOWER_OF_CREATOR");
  });

  it("refuses a privacy level the creator does not offer before calling init", async () => {
    fake = fakeTikTok({ privacyLevelOptions: ["SELF_ONLY"] });
    const media = await storeTestMedia("video");
    expect(
      await rejection(
        tiktokAdapter.publish(
          testAdapterContext(),
          request({ media: [media], meta: { privacy_level: "PUBLIC_TO_EVERYONE" } }),
        ),
      ),
    ).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message: "TikTok privacy level PUBLIC_TO_EVERYONE is not available for this account (allowed: SELF_ONLY).",
      retryAfterSeconds: undefined,
      status: undefined,
    });
    expect(fake.calls).toEqual([CREATOR_CALL]);
  });

  it("an unaudited app publishes by default (SELF_ONLY) and is told plainly when meta asks for public", async () => {
    fake = fakeTikTok({ unaudited: true, statuses: ["PUBLISH_COMPLETE"], postId: null });
    const media = await storeTestMedia("video");
    expect(await tiktokAdapter.publish(testAdapterContext(), request({ media: [media] }))).toEqual({
      platformPostId: "v_pub_file~v2-1.7000000000000000001",
      platformUrl: "https://www.tiktok.com/@tester_tt",
    });
    const publicReq = request({ media: [media], meta: { privacy_level: "PUBLIC_TO_EVERYONE" } });
    expect(await rejection(tiktokAdapter.publish(testAdapterContext(), publicReq))).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message:
        "TikTok only allows private posts from this app until it passes TikTok's audit: set privacy_level to SELF_ONLY.",
      retryAfterSeconds: undefined,
      status: 403,
    });
  });
});

describe("tiktok adapter: errors", () => {
  it("429 rate_limit_exceeded on init → transient, retry after TikTok's one-minute window", async () => {
    fake = fakeTikTok({ initLimitPerMinute: 0 });
    const media = await storeTestMedia("video");
    expect(await rejection(tiktokAdapter.publish(testAdapterContext(), request({ media: [media] })))).toEqual({
      name: "PlatformError",
      kind: "transient",
      message: "TikTok rate limit reached.",
      retryAfterSeconds: 60,
      status: 429,
    });
  });

  it("honours a Retry-After header when TikTok sends one", async () => {
    fake = fakeTikTok();
    fake.script.add("POST", "/v2/post/publish/video/init/", () => {
      const res = tiktokErrorResponse(429, "rate_limit_exceeded", "Api rate limit exceeded, please retry later.");
      res.headers.set("retry-after", "17");
      return res;
    });
    const media = await storeTestMedia("video");
    const err = await rejection(tiktokAdapter.publish(testAdapterContext(), request({ media: [media] })));
    expect([err.kind, err.retryAfterSeconds]).toEqual(["transient", 17]);
  });

  it("5xx internal_error → transient", async () => {
    fake = fakeTikTok();
    fake.script.add("POST", "/v2/post/publish/creator_info/query/", () =>
      tiktokErrorResponse(500, "internal_error", "Something went wrong. Please try again later."),
    );
    const media = await storeTestMedia("video");
    expect(await rejection(tiktokAdapter.publish(testAdapterContext(), request({ media: [media] })))).toEqual({
      name: "PlatformError",
      kind: "transient",
      message: "TikTok had an internal error.",
      retryAfterSeconds: undefined,
      status: 500,
    });
  });

  it("a failed chunk upload is transient (nothing was published yet)", async () => {
    fake = fakeTikTok();
    fake.script.add("PUT", "/upload/video/", () => new Response("upstream error", { status: 503 }));
    const media = await storeTestMedia("video");
    const err = await rejection(tiktokAdapter.publish(testAdapterContext(), request({ media: [media] })));
    expect([err.kind, err.message, err.status]).toEqual(["transient", "TikTok answered HTTP 503.", 503]);
  });

  it("401 access_token_invalid → auth", async () => {
    fake = fakeTikTok({ accessTokens: ["another-token"] });
    const media = await storeTestMedia("video");
    expect(await rejection(tiktokAdapter.publish(testAdapterContext(), request({ media: [media] })))).toEqual({
      name: "PlatformError",
      kind: "auth",
      message: "The TikTok access token is invalid or expired.",
      retryAfterSeconds: undefined,
      status: 401,
    });
  });

  it("a content rejection (daily post cap) → permanent with TikTok's reason", async () => {
    fake = fakeTikTok();
    fake.script.add("POST", "/v2/post/publish/video/init/", () =>
      tiktokErrorResponse(403, "spam_risk_too_many_posts", "The daily post cap for this user has been reached."),
    );
    const media = await storeTestMedia("video");
    expect(await rejection(tiktokAdapter.publish(testAdapterContext(), request({ media: [media] })))).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message: "The TikTok account has reached its daily post limit.",
      retryAfterSeconds: undefined,
      status: 403,
    });
  });

  it("an unknown rejection keeps TikTok's own message", async () => {
    fake = fakeTikTok();
    const media = await storeTestMedia("video");
    const err = await rejection(
      tiktokAdapter.publish(testAdapterContext(), request({ media: [media], content: "x".repeat(2201) })),
    );
    expect([err.kind, err.message, err.status]).toEqual([
      "permanent",
      "TikTok: The title is longer than 2200 characters.",
      400,
    ]);
  });

  it("refuses media that do not fit the content type without calling TikTok", async () => {
    fake = fakeTikTok();
    const image = await storeTestMedia("image");
    const err = await rejection(tiktokAdapter.publish(testAdapterContext(), request({ media: [image] })));
    expect([err.kind, err.message]).toEqual(["permanent", "A TikTok video post needs exactly one video."]);
    expect(fake.calls).toEqual([]);
  });

  it("has no metrics (platform_not_supported)", () => {
    expect(tiktokAdapter.metrics).toBeUndefined();
  });
});

describe("tiktok adapter: refresh", () => {
  it("refreshes with client key/secret and keeps the rotated refresh token", async () => {
    fake = fakeTikTok();
    const now = 1_700_000_000_000;
    const result = await tiktokAdapter.refresh!(testAdapterContext({ now: () => now }), testAccount("tiktok"));
    expect(result).toEqual({
      // TikTok access tokens live 2 hours (TikTok "Manage OAuth Access Tokens", November 2026; was 24 hours).
      credentials: {
        access_token: "tt-access-1",
        refresh_token: "tt-refresh-1",
        expires_at: now + 7_200_000,
        refresh_expires_at: now + 15_552_000_000, // refresh_expires_in: 180 days
      },
      expiresAt: now + 7_200_000,
    });
    expect(fake.calls).toEqual([
      {
        method: "POST",
        path: "/v2/oauth/token/",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        form: {
          client_key: "tt-key",
          client_secret: "tt-secret",
          grant_type: "refresh_token",
          refresh_token: "refresh-token",
        },
      },
    ]);
  });

  it("a refused refresh → auth with TikTok's description", async () => {
    fake = fakeTikTok({ refreshTokens: [] });
    expect(await rejection(tiktokAdapter.refresh!(testAdapterContext(), testAccount("tiktok")))).toEqual({
      name: "PlatformError",
      kind: "auth",
      message: "TikTok refused to refresh the token: Refresh token is invalid or expired.",
      retryAfterSeconds: undefined,
      status: 400,
    });
  });

  it("a 5xx during refresh is transient", async () => {
    fake = fakeTikTok();
    fake.script.add("POST", "/v2/oauth/token/", () => new Response("", { status: 502 }));
    const err = await rejection(tiktokAdapter.refresh!(testAdapterContext(), testAccount("tiktok")));
    expect([err.kind, err.status]).toEqual(["transient", 502]);
  });
});
