import { afterEach, describe, expect, it } from "vitest";
import { adapterFor } from "../../../src/platforms";
import type { PublishRequest } from "../../../src/platforms/types";
import { createYouTubeAdapter, PROCESSING_POLLS, youtubeAdapter } from "../../../src/platforms/youtube/adapter";
import { memoryCheckpoint, storeTestMedia, testAccount, testAdapterContext } from "../../support/adapter-context";
import { failAfterHandling } from "../../support/fake-fetch";
import { platformRejection, sha256, testBytes } from "../../support/fakes/fake-kit";
import {
  fakeYouTube,
  googleErrorResponse,
  QUOTA_EXCEEDED_MESSAGE,
  type YouTubeFake,
} from "../../support/fakes/youtube";

const KIB = 1024;
const MIB = 1024 * KIB;
const START_PATH = "/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status&notifySubscribers=true";
const SESSION_PATH = (id: string) =>
  `/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status&upload_id=${id}`;
const STATUS_CALL = (id: string) => ({
  method: "GET",
  path: `/youtube/v3/videos?part=status,processingDetails&id=${id}`,
  headers: { authorization: "Bearer access-token" },
});

let fake: YouTubeFake | undefined;
afterEach(() => fake?.stop());

function request(overrides: Partial<PublishRequest> = {}): PublishRequest {
  return {
    postPlatformId: crypto.randomUUID(),
    contentType: "youtube_short",
    content: "Sunrise timelapse #Shorts",
    media: [],
    meta: {},
    account: testAccount("youtube"),
    ...overrides,
  };
}

const rejection = platformRejection;

function startCall(size: number, metadata: unknown) {
  return {
    method: "POST",
    path: START_PATH,
    headers: {
      authorization: "Bearer access-token",
      "content-type": "application/json; charset=UTF-8",
      "x-upload-content-type": "video/mp4",
      "x-upload-content-length": String(size),
    },
    json: metadata,
  };
}

const DEFAULT_METADATA = {
  snippet: { title: "Sunrise timelapse #Shorts", description: "", categoryId: "22" },
  status: { privacyStatus: "public", selfDeclaredMadeForKids: false },
};

describe("youtube adapter: publish", () => {
  it("is registered", () => {
    expect(adapterFor("youtube")).toBe(youtubeAdapter);
  });

  it("opens a resumable session, PUTs the video, waits for processing and returns the Short", async () => {
    fake = fakeYouTube();
    const bytes = testBytes(200_000);
    const media = await storeTestMedia("video", bytes);
    const result = await youtubeAdapter.publish(testAdapterContext(), request({ media: [media] }));

    expect(result).toEqual({
      platformPostId: "Sh0rt000001",
      platformUrl: "https://www.youtube.com/shorts/Sh0rt000001",
    });
    expect(fake.calls).toEqual([
      startCall(200_000, DEFAULT_METADATA),
      {
        method: "PUT",
        path: SESSION_PATH("upl1"),
        headers: { "content-length": "200000", "content-range": "bytes 0-199999/200000" },
        bytes: 200_000,
      },
      STATUS_CALL("Sh0rt000001"),
      STATUS_CALL("Sh0rt000001"),
    ]);
    expect(await sha256(fake.uploaded("upl1"))).toBe(await sha256(bytes));
  });

  it("sends 8 MiB chunks by default: 308 Resume Incomplete, then 200 on the last", async () => {
    fake = fakeYouTube({ processing: [{ uploadStatus: "processed", processingStatus: "succeeded" }] });
    const size = 9 * MIB + 5;
    const bytes = testBytes(size);
    const media = await storeTestMedia("video", bytes);
    await youtubeAdapter.publish(testAdapterContext(), request({ media: [media] }));
    const puts = fake.calls.filter((c) => c.method === "PUT").map((c) => c.headers);
    expect(puts).toEqual([
      { "content-length": String(8 * MIB), "content-range": `bytes 0-${8 * MIB - 1}/${size}` },
      { "content-length": String(MIB + 5), "content-range": `bytes ${8 * MIB}-${size - 1}/${size}` },
    ]);
    expect(await sha256(fake.uploaded("upl1"))).toBe(await sha256(bytes));
  });

  it("uses 256 KiB-multiple chunk boundaries and passes row meta into the metadata", async () => {
    fake = fakeYouTube({ processing: [{ uploadStatus: "processed", processingStatus: "succeeded" }] });
    const adapter = createYouTubeAdapter({ chunkBytes: 256 * KIB });
    const size = 600_000;
    const bytes = testBytes(size);
    const media = await storeTestMedia("video", bytes);
    await adapter.publish(
      testAdapterContext(),
      request({
        media: [media],
        meta: {
          description: "Shot on the ridge.",
          privacy_status: "unlisted",
          tags: ["sunrise", "timelapse"],
          made_for_kids: false,
          notify_subscribers: false,
        },
      }),
    );
    expect(fake.calls[0]).toEqual({
      ...startCall(size, {
        snippet: {
          title: "Sunrise timelapse #Shorts",
          description: "Shot on the ridge.",
          categoryId: "22",
          tags: ["sunrise", "timelapse"],
        },
        status: { privacyStatus: "unlisted", selfDeclaredMadeForKids: false },
      }),
      path: "/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status&notifySubscribers=false",
    });
    expect(fake.calls.filter((c) => c.method === "PUT").map((c) => [c.headers["content-range"], c.bytes])).toEqual([
      ["bytes 0-262143/600000", 262144],
      ["bytes 262144-524287/600000", 262144],
      ["bytes 524288-599999/600000", 75712],
    ]);
    expect(await sha256(fake.uploaded("upl1"))).toBe(await sha256(bytes));
  });

  it("after a 503 on a chunk, probes the session and resends from what it holds (no new session)", async () => {
    fake = fakeYouTube({ processing: [{ uploadStatus: "processed", processingStatus: "succeeded" }] });
    const adapter = createYouTubeAdapter({ chunkBytes: 256 * KIB });
    const bytes = testBytes(600_000);
    const media = await storeTestMedia("video", bytes);
    const sleeps: number[] = [];
    // The second chunk fails once with 503 before reaching storage.
    fake.script.add(
      "PUT",
      "/upload/youtube/v3/videos",
      () => googleErrorResponse(503, "backendError", "Backend Error"),
      1,
      {
        skip: 1,
      },
    );
    const result = await adapter.publish(
      testAdapterContext({ sleep: async (ms) => void sleeps.push(ms) }),
      request({ media: [media] }),
    );
    expect(result.platformPostId).toBe("Sh0rt000001");
    expect(fake.calls.filter((c) => c.method === "PUT").map((c) => c.headers["content-range"])).toEqual([
      "bytes 0-262143/600000",
      "bytes 262144-524287/600000",
      "bytes */600000",
      "bytes 262144-524287/600000",
      "bytes 524288-599999/600000",
    ]);
    expect(fake.calls.filter((c) => c.method === "POST")).toHaveLength(1);
    expect(sleeps).toEqual([2000, 5000]); // one backoff before the probe, then one processing poll
    expect(await sha256(fake.uploaded("upl1"))).toBe(await sha256(bytes));
  });

  it("falls back to the file name for the title when the content is empty", async () => {
    fake = fakeYouTube();
    const media = await storeTestMedia("video");
    await youtubeAdapter.publish(testAdapterContext(), request({ media: [media], content: "  " }));
    expect((fake.calls[0]!.json as any).snippet.title).toBe("file");
  });

  it("returns the Short when processing is still running after the polling budget", async () => {
    fake = fakeYouTube({ processing: [{ uploadStatus: "uploaded", processingStatus: "processing" }] });
    const media = await storeTestMedia("video");
    const result = await youtubeAdapter.publish(testAdapterContext(), request({ media: [media] }));
    expect(result).toEqual({
      platformPostId: "Sh0rt000001",
      platformUrl: "https://www.youtube.com/shorts/Sh0rt000001",
    });
    expect(fake.calls.filter((c) => c.method === "GET")).toHaveLength(PROCESSING_POLLS);
  });

  it("a rejected video → permanent with the rejection reason", async () => {
    fake = fakeYouTube({
      processing: [{ uploadStatus: "rejected", processingStatus: "failed", rejectionReason: "duplicate" }],
    });
    const media = await storeTestMedia("video");
    expect(await rejection(youtubeAdapter.publish(testAdapterContext(), request({ media: [media] })))).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message: "YouTube rejected the video as a duplicate of one already uploaded.",
      retryAfterSeconds: undefined,
      status: undefined,
    });
  });

  it("a processing failure → permanent with the failure reason", async () => {
    fake = fakeYouTube({
      processing: [
        { uploadStatus: "uploaded", processingStatus: "processing" },
        { uploadStatus: "failed", processingStatus: "failed", failureReason: "codec" },
      ],
    });
    const media = await storeTestMedia("video");
    const err = await rejection(youtubeAdapter.publish(testAdapterContext(), request({ media: [media] })));
    expect([err.kind, err.message]).toEqual(["permanent", "YouTube could not process the video: unsupported codec."]);
  });
});

describe("youtube adapter: the privacy YouTube applied (unaudited projects are locked private)", () => {
  const LOCKED =
    "YouTube locked the video private (asked: public): uploads from a Google Cloud project that has not passed YouTube's API audit are private whatever is asked. The video is at https://www.youtube.com/shorts/Sh0rt000001, visible to the channel only; after the audit (support.google.com/youtube/contact/yt_api_form) make it public in YouTube Studio.";

  it("reads status.privacyStatus back after the upload; locked private when public was asked → permanent, with the reason", async () => {
    fake = fakeYouTube({ unauditedProject: true });
    const media = await storeTestMedia("video");
    const err = await rejection(youtubeAdapter.publish(testAdapterContext(), request({ media: [media] })));
    expect([err.kind, err.message]).toEqual(["permanent", LOCKED]);
    // The privacy came from the processing polls' videos.list read; the upload was made once.
    expect(fake.calls.filter((c) => c.method !== "PUT").map((c) => `${c.method} ${c.path}`)).toEqual([
      `POST ${START_PATH}`,
      `GET ${STATUS_CALL("Sh0rt000001").path}`,
      `GET ${STATUS_CALL("Sh0rt000001").path}`,
    ]);
  });

  it("with the upload's own answer final, reads videos.list?part=status once", async () => {
    fake = fakeYouTube({
      unauditedProject: true,
      processing: [{ uploadStatus: "processed", processingStatus: "succeeded" }],
    });
    const media = await storeTestMedia("video");
    const err = await rejection(
      youtubeAdapter.publish(testAdapterContext(), request({ media: [media], meta: { privacy_status: "unlisted" } })),
    );
    expect(err.message).toBe(LOCKED.replace("(asked: public)", "(asked: unlisted)"));
    expect(fake.calls.filter((c) => c.method === "GET").map((c) => c.path)).toEqual([
      "/youtube/v3/videos?part=status,processingDetails&id=Sh0rt000001",
    ]);
  });

  it("private asked and applied is a plain success, as is public on an audited project", async () => {
    fake = fakeYouTube({ unauditedProject: true });
    const media = await storeTestMedia("video");
    const priv = await youtubeAdapter.publish(
      testAdapterContext(),
      request({ media: [media], meta: { privacy_status: "private" } }),
    );
    expect(priv.platformUrl).toBe("https://www.youtube.com/shorts/Sh0rt000001");
    fake.stop();
    fake = fakeYouTube();
    const pub = await youtubeAdapter.publish(testAdapterContext(), request({ media: [media] }));
    expect(pub.platformUrl).toBe("https://www.youtube.com/shorts/Sh0rt000001");
  });

  it("a privacy read that fails leaves the Short published (the video exists; nothing says it was locked)", async () => {
    fake = fakeYouTube({ processing: [{ uploadStatus: "processed", processingStatus: "succeeded" }] });
    fake.script.add("GET", "/youtube/v3/videos", () => new Response("", { status: 503 }), 2);
    const media = await storeTestMedia("video");
    const result = await youtubeAdapter.publish(testAdapterContext(), request({ media: [media] }));
    expect(result.platformPostId).toBe("Sh0rt000001");
  });
});

describe("youtube adapter: errors", () => {
  it("403 quotaExceeded → transient, retry at midnight Pacific when the quota resets", async () => {
    fake = fakeYouTube();
    fake.script.add("POST", "/upload/youtube/v3/videos", () =>
      googleErrorResponse(403, "quotaExceeded", QUOTA_EXCEEDED_MESSAGE),
    );
    const media = await storeTestMedia("video");
    // 20:00 UTC on 15 January = 12:00 PST → 12 hours to midnight.
    const now = Date.parse("2026-01-15T20:00:00Z");
    expect(
      await rejection(youtubeAdapter.publish(testAdapterContext({ now: () => now }), request({ media: [media] }))),
    ).toEqual({
      name: "PlatformError",
      kind: "transient",
      message: "The YouTube API daily quota is used up.",
      retryAfterSeconds: 43_200,
      status: 403,
    });
  });

  it("403 rateLimitExceeded → transient, honouring Retry-After when sent", async () => {
    fake = fakeYouTube();
    fake.script.add("POST", "/upload/youtube/v3/videos", () => {
      const res = googleErrorResponse(
        403,
        "rateLimitExceeded",
        "The request cannot be completed because you have exceeded your quota.",
      );
      res.headers.set("retry-after", "30");
      return res;
    });
    const media = await storeTestMedia("video");
    expect(await rejection(youtubeAdapter.publish(testAdapterContext(), request({ media: [media] })))).toEqual({
      name: "PlatformError",
      kind: "transient",
      message: "YouTube rate limit reached.",
      retryAfterSeconds: 30,
      status: 403,
    });
  });

  it("5xx → transient", async () => {
    fake = fakeYouTube();
    fake.script.add("POST", "/upload/youtube/v3/videos", () =>
      googleErrorResponse(503, "backendError", "Backend Error"),
    );
    const media = await storeTestMedia("video");
    expect(await rejection(youtubeAdapter.publish(testAdapterContext(), request({ media: [media] })))).toEqual({
      name: "PlatformError",
      kind: "transient",
      message: "YouTube: Backend Error.",
      retryAfterSeconds: undefined,
      status: 503,
    });
  });

  it("a chunk that keeps failing → transient after the in-place retries", async () => {
    fake = fakeYouTube();
    fake.script.add(
      "PUT",
      "/upload/youtube/v3/videos",
      () => googleErrorResponse(500, "backendError", "Backend Error"),
      10,
    );
    const media = await storeTestMedia("video");
    const err = await rejection(youtubeAdapter.publish(testAdapterContext(), request({ media: [media] })));
    expect([err.kind, err.status]).toEqual(["transient", 500]);
  });

  it("401 authError → auth", async () => {
    fake = fakeYouTube({ accessTokens: [] });
    const media = await storeTestMedia("video");
    expect(await rejection(youtubeAdapter.publish(testAdapterContext(), request({ media: [media] })))).toEqual({
      name: "PlatformError",
      kind: "auth",
      message: "The YouTube access token is invalid or expired.",
      retryAfterSeconds: undefined,
      status: 401,
    });
  });

  it("401 youtubeSignupRequired → permanent (a refresh cannot create a channel)", async () => {
    fake = fakeYouTube({ noChannel: true });
    const media = await storeTestMedia("video");
    const err = await rejection(youtubeAdapter.publish(testAdapterContext(), request({ media: [media] })));
    expect([err.kind, err.message]).toEqual([
      "permanent",
      "This Google account has no YouTube channel: create one, then reconnect the account.",
    ]);
  });

  it("a title or description with < or > is fixed (‹ ›), not refused", async () => {
    fake = fakeYouTube({ processing: [{ uploadStatus: "processed", processingStatus: "succeeded" }] });
    const media = await storeTestMedia("video");
    const result = await youtubeAdapter.publish(
      testAdapterContext(),
      request({ media: [media], content: "Best <video> ever", meta: { description: "a<b>c" } }),
    );
    expect(result.platformUrl).toMatch(/^https:\/\/www\.youtube\.com\/shorts\/Sh0rt/);
    expect((fake.calls[0]!.json as any).snippet).toEqual({
      title: "Best \u2039video\u203a ever",
      description: "a\u2039b\u203ac",
      categoryId: "22",
    });
  });

  it("a content rejection (description too long) → permanent with YouTube's message", async () => {
    fake = fakeYouTube();
    const media = await storeTestMedia("video");
    expect(
      await rejection(
        youtubeAdapter.publish(
          testAdapterContext(),
          request({ media: [media], meta: { description: "x".repeat(5001) } }),
        ),
      ),
    ).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message: "YouTube: The request metadata specifies an invalid video description.",
      retryAfterSeconds: undefined,
      status: 400,
    });
    expect(fake.calls.filter((c) => c.method === "PUT")).toEqual([]);
  });

  it("a retry after the final chunk's answer was lost asks the saved session and returns that video", async () => {
    fake = fakeYouTube({ processing: [{ uploadStatus: "processed", processingStatus: "succeeded" }] });
    const media = await storeTestMedia("video", testBytes(600 * 1024));
    const checkpoint = memoryCheckpoint();
    const req = request({ media: [media], checkpoint });
    // The final chunk's answer and the in-place probe after it are both lost.
    failAfterHandling("PUT", "/upload/youtube/v3/videos", { kind: "timeout" }, 2);
    expect((await rejection(youtubeAdapter.publish(testAdapterContext(), req))).kind).toBe("transient");
    expect(checkpoint.saved).toEqual({ upload_session: expect.stringContaining("upload_id=upl1"), total: 600 * 1024 });
    const result = await youtubeAdapter.publish(testAdapterContext(), req);
    expect(result).toEqual({
      platformPostId: "Sh0rt000001",
      platformUrl: "https://www.youtube.com/shorts/Sh0rt000001",
    });
    expect(fake.calls.filter((c) => c.method === "POST")).toHaveLength(1);
  });

  it("400 uploadLimitExceeded → permanent in plain words", async () => {
    fake = fakeYouTube();
    fake.script.add("POST", "/upload/youtube/v3/videos", () =>
      googleErrorResponse(400, "uploadLimitExceeded", "The user has exceeded the number of videos they may upload."),
    );
    const media = await storeTestMedia("video");
    const err = await rejection(youtubeAdapter.publish(testAdapterContext(), request({ media: [media] })));
    expect([err.kind, err.message]).toEqual(["permanent", "The YouTube channel has reached its daily upload limit."]);
  });

  it("refuses an unknown privacy_status and a non-video without calling YouTube", async () => {
    fake = fakeYouTube();
    const media = await storeTestMedia("video");
    const image = await storeTestMedia("image");
    const a = await rejection(
      youtubeAdapter.publish(testAdapterContext(), request({ media: [media], meta: { privacy_status: "friends" } })),
    );
    const b = await rejection(youtubeAdapter.publish(testAdapterContext(), request({ media: [image] })));
    expect([a.kind, a.message, b.kind, b.message]).toEqual([
      "permanent",
      "YouTube privacy_status must be public, unlisted or private.",
      "permanent",
      "A YouTube Short needs exactly one video.",
    ]);
    expect(fake.calls).toEqual([]);
  });
});

describe("youtube adapter: refresh", () => {
  it("refreshes at GOOGLE_OAUTH_URL/token and keeps the old refresh token", async () => {
    fake = fakeYouTube();
    const now = 1_700_000_000_000;
    const result = await youtubeAdapter.refresh!(testAdapterContext({ now: () => now }), testAccount("youtube"));
    expect(result).toEqual({
      credentials: { access_token: "ya29.fake-1", refresh_token: "refresh-token", expires_at: now + 3_599_000 },
      expiresAt: now + 3_599_000,
    });
    expect(fake.calls).toEqual([
      {
        method: "POST",
        path: "/token",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        form: {
          grant_type: "refresh_token",
          refresh_token: "refresh-token",
          client_id: "g-client",
          client_secret: "g-secret",
        },
      },
    ]);
  });

  it("invalid_grant → auth with Google's description", async () => {
    fake = fakeYouTube({ refreshTokens: [] });
    expect(await rejection(youtubeAdapter.refresh!(testAdapterContext(), testAccount("youtube")))).toEqual({
      name: "PlatformError",
      kind: "auth",
      message: "Google refused to refresh the token: Token has been expired or revoked.",
      retryAfterSeconds: undefined,
      status: 400,
    });
  });

  it("a 5xx during refresh is transient", async () => {
    fake = fakeYouTube();
    fake.script.add("POST", "/token", () => new Response("", { status: 503, headers: { "retry-after": "5" } }));
    const err = await rejection(youtubeAdapter.refresh!(testAdapterContext(), testAccount("youtube")));
    expect([err.kind, err.status, err.retryAfterSeconds]).toEqual(["transient", 503, 5]);
  });
});

describe("youtube adapter: metrics", () => {
  it("maps statistics to Views, Likes, Comments", async () => {
    fake = fakeYouTube();
    fake.addVideo("AbCdEfGhIjK");
    const metrics = await youtubeAdapter.metrics!(testAdapterContext(), {
      platformPostId: "AbCdEfGhIjK",
      platformUrl: "https://www.youtube.com/shorts/AbCdEfGhIjK",
      contentType: "youtube_short",
      account: testAccount("youtube"),
    });
    expect(metrics).toEqual([
      { label: "Views", value: 15230 },
      { label: "Likes", value: 842 },
      { label: "Comments", value: 37 },
    ]);
    expect(fake.calls).toEqual([
      {
        method: "GET",
        path: "/youtube/v3/videos?part=statistics&id=AbCdEfGhIjK",
        headers: { authorization: "Bearer access-token" },
      },
    ]);
  });

  it("a video YouTube no longer lists → permanent error; an expired token → auth", async () => {
    fake = fakeYouTube();
    const req = {
      platformPostId: "gone0000000",
      platformUrl: null,
      contentType: "youtube_short",
      account: testAccount("youtube"),
    };
    const a = await rejection(youtubeAdapter.metrics!(testAdapterContext(), req));
    const b = await rejection(
      youtubeAdapter.metrics!(testAdapterContext(), {
        ...req,
        account: testAccount("youtube", { credentials: { access_token: "expired" } }),
      }),
    );
    expect([a.kind, a.message, b.kind]).toEqual(["permanent", "The YouTube video no longer exists.", "auth"]);
  });
});
