import { afterEach, describe, expect, it } from "vitest";
import { adapterFor } from "../../../src/platforms";
import { MEDIA_POLLS, pinterestAdapter } from "../../../src/platforms/pinterest/adapter";
import type { PublishRequest } from "../../../src/platforms/types";
import { storeTestMedia, testAccount, testAdapterContext } from "../../support/adapter-context";
import { platformRejection, sha256, testBytes } from "../../support/fakes/fake-kit";
import {
  fakePinterest,
  PINTEREST_UPLOAD_PATH,
  type PinterestFake,
  pinterestErrorResponse,
  s3ErrorResponse,
} from "../../support/fakes/pinterest";

const BOARD = "549755885175";
const AUTH_JSON = { authorization: "Bearer access-token", "content-type": "application/json" };
const AUTH = { authorization: "Bearer access-token" };

let fake: PinterestFake | undefined;
afterEach(() => fake?.stop());

function request(overrides: Partial<PublishRequest> = {}): PublishRequest {
  return {
    postPlatformId: crypto.randomUUID(),
    contentType: "pinterest_pin",
    content: "Five-minute breakfast ideas",
    media: [],
    meta: { board_id: BOARD },
    account: testAccount("pinterest"),
    ...overrides,
  };
}

const rejection = platformRejection;

describe("pinterest adapter: publish", () => {
  it("is registered", () => {
    expect(adapterFor("pinterest")).toBe(pinterestAdapter);
  });

  it("creates an image Pin from the public media URL", async () => {
    fake = fakePinterest();
    const image = await storeTestMedia("image");
    const result = await pinterestAdapter.publish(
      testAdapterContext(),
      request({
        media: [image],
        meta: { board_id: BOARD, title: "Breakfast", link: "https://example.com/recipes", alt_text: "A bowl of oats" },
      }),
    );
    expect(result).toEqual({
      platformPostId: "1130253812253000001",
      platformUrl: "https://www.pinterest.com/pin/1130253812253000001/",
    });
    expect(fake.calls).toEqual([
      {
        method: "POST",
        path: "/v5/pins",
        headers: AUTH_JSON,
        json: {
          board_id: BOARD,
          description: "Five-minute breakfast ideas",
          title: "Breakfast",
          link: "https://example.com/recipes",
          alt_text: "A bowl of oats",
          media_source: { source_type: "image_url", url: image.url },
        },
      },
    ]);
  });

  it("uses the account's default_board_id when the row has no board_id", async () => {
    fake = fakePinterest();
    const image = await storeTestMedia("image");
    await pinterestAdapter.publish(
      testAdapterContext(),
      request({ media: [image], meta: {}, account: testAccount("pinterest", { meta: { default_board_id: BOARD } }) }),
    );
    expect((fake.calls[0]!.json as any).board_id).toBe(BOARD);
  });

  it("without any board fails with the decisions message and calls nothing", async () => {
    fake = fakePinterest();
    const image = await storeTestMedia("image");
    expect(
      await rejection(pinterestAdapter.publish(testAdapterContext(), request({ media: [image], meta: {} }))),
    ).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message: "Pinterest board_id is required.",
      retryAfterSeconds: undefined,
      status: undefined,
    });
    expect(fake.calls).toEqual([]);
  });

  it("creates a carousel Pin from 2–5 image URLs", async () => {
    fake = fakePinterest();
    const images = [await storeTestMedia("image"), await storeTestMedia("image"), await storeTestMedia("image")];
    const result = await pinterestAdapter.publish(
      testAdapterContext(),
      request({ contentType: "pinterest_carousel", media: images }),
    );
    expect(result.platformPostId).toBe("1130253812253000001");
    expect(fake.calls).toEqual([
      {
        method: "POST",
        path: "/v5/pins",
        headers: AUTH_JSON,
        json: {
          board_id: BOARD,
          description: "Five-minute breakfast ideas",
          media_source: { source_type: "multiple_image_urls", items: images.map((i) => ({ url: i.url })), index: 0 },
        },
      },
    ]);
  });

  it("refuses a one-image carousel before calling Pinterest", async () => {
    fake = fakePinterest();
    const image = await storeTestMedia("image");
    const err = await rejection(
      pinterestAdapter.publish(testAdapterContext(), request({ contentType: "pinterest_carousel", media: [image] })),
    );
    expect([err.kind, err.message]).toEqual(["permanent", "A Pinterest carousel needs 2 to 5 images."]);
    expect(fake.calls).toEqual([]);
  });

  it("video Pin: registers media, form-POSTs the file to the upload URL, polls, then pins the video_id", async () => {
    fake = fakePinterest();
    const bytes = testBytes(700_000);
    const video = await storeTestMedia("video", bytes);
    const sleeps: number[] = [];
    const result = await pinterestAdapter.publish(
      testAdapterContext({ sleep: async (ms) => void sleeps.push(ms) }),
      request({ contentType: "pinterest_video_pin", media: [video] }),
    );
    expect(result).toEqual({
      platformPostId: "1130253812253000002",
      platformUrl: "https://www.pinterest.com/pin/1130253812253000002/",
    });
    const mediaId = "5000000000000000001";
    const m = fake.media.get(mediaId)!;
    const upload = fake.calls[1]!;
    expect(fake.calls).toEqual([
      { method: "POST", path: "/v5/media", headers: AUTH_JSON, json: { media_type: "video" } },
      {
        method: "POST",
        path: PINTEREST_UPLOAD_PATH,
        // Storage gets no bearer token; the body length is fixed up front.
        headers: { "content-type": upload.headers["content-type"], "content-length": upload.headers["content-length"] },
        form: m.parameters,
        bytes: 700_000,
      },
      { method: "GET", path: `/v5/media/${mediaId}`, headers: AUTH },
      { method: "GET", path: `/v5/media/${mediaId}`, headers: AUTH },
      {
        method: "POST",
        path: "/v5/pins",
        headers: AUTH_JSON,
        json: {
          board_id: BOARD,
          description: "Five-minute breakfast ideas",
          media_source: { source_type: "video_id", media_id: mediaId, cover_image_key_frame_time: 1 },
        },
      },
    ]);
    expect(upload.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=----pinterest-upload-\w+$/);
    expect(Number(upload.headers["content-length"])).toBeGreaterThan(700_000);
    expect([m.fileName, m.fileType, await sha256(m.fileBytes)]).toEqual(["file.mp4", "video/mp4", await sha256(bytes)]);
    expect(sleeps).toEqual([5000, 5000]);
  });

  it("video Pin with meta.cover_image_url uses it as the cover", async () => {
    fake = fakePinterest({ mediaStatuses: ["succeeded"] });
    const video = await storeTestMedia("video");
    await pinterestAdapter.publish(
      testAdapterContext(),
      request({
        contentType: "pinterest_video_pin",
        media: [video],
        meta: { board_id: BOARD, cover_image_url: "https://media.test/medias/c.jpg" },
      }),
    );
    expect((fake.calls.at(-1)!.json as any).media_source).toEqual({
      source_type: "video_id",
      media_id: "5000000000000000001",
      cover_image_url: "https://media.test/medias/c.jpg",
    });
  });

  it("a failed video processing → permanent, and no Pin is created", async () => {
    fake = fakePinterest({ mediaStatuses: ["processing", "failed"] });
    const video = await storeTestMedia("video");
    expect(
      await rejection(
        pinterestAdapter.publish(testAdapterContext(), request({ contentType: "pinterest_video_pin", media: [video] })),
      ),
    ).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message: "Pinterest could not process the video.",
      retryAfterSeconds: undefined,
      status: undefined,
    });
    expect(fake.calls.filter((c) => c.path === "/v5/pins")).toEqual([]);
  });

  it("a video still processing after the polling budget → transient (no Pin yet, safe to retry)", async () => {
    fake = fakePinterest({ mediaStatuses: ["processing"] });
    const video = await storeTestMedia("video");
    const err = await rejection(
      pinterestAdapter.publish(testAdapterContext(), request({ contentType: "pinterest_video_pin", media: [video] })),
    );
    expect([err.kind, err.message]).toEqual(["transient", "Pinterest is still processing the video."]);
    expect(fake.calls.filter((c) => c.method === "GET")).toHaveLength(MEDIA_POLLS);
  });

  it("an upload refused by media storage → error with storage's reason", async () => {
    fake = fakePinterest();
    fake.script.add("POST", PINTEREST_UPLOAD_PATH, () =>
      s3ErrorResponse(400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size"),
    );
    const video = await storeTestMedia("video");
    expect(
      await rejection(
        pinterestAdapter.publish(testAdapterContext(), request({ contentType: "pinterest_video_pin", media: [video] })),
      ),
    ).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message:
        "Pinterest's media storage refused the video upload: Your proposed upload exceeds the maximum allowed size.",
      retryAfterSeconds: undefined,
      status: 400,
    });
  });
});

describe("pinterest adapter: errors", () => {
  it("429 → transient (no reset hint unless Pinterest sends Retry-After)", async () => {
    fake = fakePinterest();
    fake.script.add("POST", "/v5/pins", () =>
      pinterestErrorResponse(429, 8, "You have exceeded your rate limit. Try again later."),
    );
    fake.script.add("POST", "/v5/pins", () =>
      pinterestErrorResponse(429, 8, "You have exceeded your rate limit. Try again later.", { "retry-after": "42" }),
    );
    const image = await storeTestMedia("image");
    const first = await rejection(pinterestAdapter.publish(testAdapterContext(), request({ media: [image] })));
    const second = await rejection(pinterestAdapter.publish(testAdapterContext(), request({ media: [image] })));
    expect([first, second]).toEqual([
      {
        name: "PlatformError",
        kind: "transient",
        message: "Pinterest rate limit reached.",
        retryAfterSeconds: undefined,
        status: 429,
      },
      {
        name: "PlatformError",
        kind: "transient",
        message: "Pinterest rate limit reached.",
        retryAfterSeconds: 42,
        status: 429,
      },
    ]);
  });

  it("5xx → transient", async () => {
    fake = fakePinterest();
    fake.script.add("POST", "/v5/pins", () => pinterestErrorResponse(503, 503, "Service unavailable"));
    const image = await storeTestMedia("image");
    expect(await rejection(pinterestAdapter.publish(testAdapterContext(), request({ media: [image] })))).toEqual({
      name: "PlatformError",
      kind: "transient",
      message: "Pinterest: Service unavailable.",
      retryAfterSeconds: undefined,
      status: 503,
    });
  });

  it("401 → auth", async () => {
    fake = fakePinterest({ accessTokens: [] });
    const image = await storeTestMedia("image");
    expect(await rejection(pinterestAdapter.publish(testAdapterContext(), request({ media: [image] })))).toEqual({
      name: "PlatformError",
      kind: "auth",
      message: "The Pinterest access token is invalid or expired.",
      retryAfterSeconds: undefined,
      status: 401,
    });
  });

  it("an app in Trial access (403 code 29 on every Pin) → permanent, naming the API Sandbox setting", async () => {
    fake = fakePinterest({ access: "trial" });
    const image = await storeTestMedia("image");
    expect(await rejection(pinterestAdapter.publish(testAdapterContext(), request({ media: [image] })))).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message:
        'Pinterest refused the Pin: this Pinterest app has Trial access, and Trial apps may not create Pins on the production API (code 29). Either set PINTEREST_API_URL to the API Sandbox (https://api-sandbox.pinterest.com) and connect the account with a Sandbox token — Sandbox Pins are visible only to their creator — or get Standard access for the app (docs/configuration.md, "Pinterest Trial access").',
      retryAfterSeconds: undefined,
      status: 403,
    });
    expect(fake.pins.size).toBe(0);
  });

  it("a content rejection → permanent with Pinterest's message", async () => {
    fake = fakePinterest();
    const image = await storeTestMedia("image");
    const tooLong = await rejection(
      pinterestAdapter.publish(testAdapterContext(), request({ media: [image], content: "a".repeat(501) })),
    );
    const noBoard = await rejection(
      pinterestAdapter.publish(testAdapterContext(), request({ media: [image], meta: { board_id: "999" } })),
    );
    expect([tooLong, noBoard]).toEqual([
      {
        name: "PlatformError",
        kind: "permanent",
        message: "Pinterest: Invalid parameters. 'description' must be at most 500 characters.",
        retryAfterSeconds: undefined,
        status: 400,
      },
      {
        name: "PlatformError",
        kind: "permanent",
        message: "Pinterest: Board not found.",
        retryAfterSeconds: undefined,
        status: 404,
      },
    ]);
  });
});

describe("pinterest adapter: refresh", () => {
  it("refreshes with Basic client auth and continuous_refresh=true; stores the new 60-day refresh token", async () => {
    fake = fakePinterest();
    const now = 1_700_000_000_000;
    const result = await pinterestAdapter.refresh!(testAdapterContext({ now: () => now }), testAccount("pinterest"));
    expect(result).toEqual({
      credentials: {
        access_token: "pina_fake_1",
        refresh_token: "pinr_fake_1",
        expires_at: now + 2_592_000_000,
        refresh_expires_at: now + 5_184_000_000, // refresh_token_expires_in: 60 days (continuous refresh)
      },
      expiresAt: now + 2_592_000_000,
    });
    expect(fake.calls).toEqual([
      {
        method: "POST",
        path: "/v5/oauth/token",
        headers: {
          authorization: `Basic ${btoa("pin-client:pin-secret")}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        form: { grant_type: "refresh_token", refresh_token: "refresh-token", continuous_refresh: "true" },
      },
    ]);
  });

  it("the rolling refresh token keeps the account alive: each refresh's new token refreshes again", async () => {
    fake = fakePinterest();
    const first = await pinterestAdapter.refresh!(testAdapterContext(), testAccount("pinterest"));
    const second = await pinterestAdapter.refresh!(
      testAdapterContext(),
      testAccount("pinterest", { credentials: first.credentials }),
    );
    expect([first.credentials.refresh_token, second.credentials.refresh_token]).toEqual(["pinr_fake_1", "pinr_fake_2"]);
    expect(fake.calls.map((c) => c.form?.refresh_token)).toEqual(["refresh-token", "pinr_fake_1"]);
  });

  it("a refused refresh → auth with Pinterest's message", async () => {
    fake = fakePinterest({ refreshTokens: [] });
    expect(await rejection(pinterestAdapter.refresh!(testAdapterContext(), testAccount("pinterest")))).toEqual({
      name: "PlatformError",
      kind: "auth",
      message: "Pinterest refused to refresh the token: Invalid refresh token.",
      retryAfterSeconds: undefined,
      status: 400,
    });
  });
});

describe("pinterest adapter: metrics", () => {
  const now = Date.parse("2026-11-23T10:00:00Z");

  it("maps an image Pin's window totals (summary_metrics) to the five labels (no video metric requested)", async () => {
    fake = fakePinterest();
    fake.addPin("1130253812253999999");
    const metrics = await pinterestAdapter.metrics!(testAdapterContext({ now: () => now }), {
      platformPostId: "1130253812253999999",
      platformUrl: "https://www.pinterest.com/pin/1130253812253999999/",
      contentType: "pinterest_pin",
      account: testAccount("pinterest"),
    });
    expect(metrics).toEqual([
      { label: "Impressions", value: 5120 },
      { label: "Saves", value: 87 },
      { label: "Pin clicks", value: 230 },
      { label: "Outbound clicks", value: 41 },
      { label: "Video views", value: 0 },
    ]);
    expect(fake.calls).toEqual([
      {
        method: "GET",
        path:
          "/v5/pins/1130253812253999999/analytics?start_date=2026-08-26&end_date=2026-11-23" +
          "&metric_types=IMPRESSION,SAVE,PIN_CLICK,OUTBOUND_CLICK&app_types=ALL&split_field=NO_SPLIT",
        headers: AUTH,
      },
    ]);
  });

  it("a video Pin also reports Video views", async () => {
    fake = fakePinterest();
    fake.addPin("42");
    const metrics = await pinterestAdapter.metrics!(testAdapterContext({ now: () => now }), {
      platformPostId: "42",
      platformUrl: null,
      contentType: "pinterest_video_pin",
      account: testAccount("pinterest"),
    });
    expect(metrics.at(-1)).toEqual({ label: "Video views", value: 960 });
    expect(fake.calls[0]!.path).toContain("metric_types=IMPRESSION,SAVE,PIN_CLICK,OUTBOUND_CLICK,VIDEO_MRC_VIEW&");
  });

  it("a deleted Pin → permanent error with Pinterest's message", async () => {
    fake = fakePinterest();
    const err = await rejection(
      pinterestAdapter.metrics!(testAdapterContext({ now: () => now }), {
        platformPostId: "404",
        platformUrl: null,
        contentType: "pinterest_pin",
        account: testAccount("pinterest"),
      }),
    );
    expect([err.kind, err.message, err.status]).toEqual(["permanent", "Pinterest: Pin not found.", 404]);
  });
});
