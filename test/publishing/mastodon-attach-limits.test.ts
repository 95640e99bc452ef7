import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AppError } from "../../src/lib/errors";
import { attachUploadToPost } from "../../src/services/uploads/attach-upload";
import { GIF_1X1, jpegHeader, mediaForm, workspaceContext } from "../media/fixtures";
import { limitVideo, paddedVideo } from "../media/videos";
import { fakeOrigin } from "../support/fake-fetch";
import { call, type TestWorkspace } from "../support/harness";
import { accountMeta, connectMastodon, createMastodonPost, MB } from "./mastodon-support";
import { installFakesEachTest } from "./platforms";
import { createTestWorkspace, deliver, readRow, seedPost } from "./support";

/**
 * Issue 16: a Mastodon instance's own media limits (GET /api/v2/instance → configuration.media_attachments, as
 * stored on the account) apply as soon as a file is added to a post with an enabled Mastodon row — upload, from-url
 * and a signed upload attached by the MCP tool — not only at schedule time and publish. A video over the instance's
 * `video_size_limit` or `video_matrix_limit`, or a GIF over its `image_size_limit`, is refused there with the
 * schedule-time message; other images pass (they are fitted at publish). A limit the instance stops reporting is
 * not kept.
 */

const fakes = installFakesEachTest();
// Tests that fake Date (to age the stored limits) get real timers back.
afterEach(() => vi.useRealTimers());

const upload = (ws: TestWorkspace, postId: string, bytes: Uint8Array, filename: string, type: string) =>
  call("POST", `/api/posts/${postId}/media`, { key: ws.key, rawBody: mediaForm(bytes, filename, type) });

/** A real 3 s ffmpeg H.264 video of these sides (test/media/videos.ts limitVideo), padded to `bytes` when given. */
const clip = (bytes?: number, width = 1280, height = 720) => {
  const video = limitVideo(width, height, 3);
  return bytes === undefined ? video.bytes : paddedVideo(bytes, video);
};

const mediaError = (message: string) => ({ message, errors: { media: [message] } });

/** The workspace's stored media (rows and R2 objects): a refused file leaves neither. */
async function storedMedia(ws: TestWorkspace) {
  const rows = await env.DB.prepare("SELECT path, size FROM media WHERE workspace_id = ?")
    .bind(ws.workspaceId)
    .all<{ path: string; size: number }>();
  const objects = await Promise.all(rows.results.map(async (r) => (await env.MEDIA_BUCKET.head(r.path))?.size));
  return rows.results.map((r, i) => ({ size: r.size, stored: objects[i] }));
}

/** A connected Mastodon account (the fake instance's limits as set) and a draft post with its enabled row. */
async function mastodonPost() {
  const ws = await createTestWorkspace();
  const accountId = await connectMastodon(ws);
  return { ws, accountId, postId: await createMastodonPost(ws, accountId) };
}

const VIDEO_LIMIT = MB;
const oneByteOver = `Mastodon: Post accepts videos of at most 1 MB; clip.mp4 is ${(MB + 1).toLocaleString("en-US")} bytes.`;

describe("Mastodon: the instance's media limits when a file is added to a post (issue 16)", () => {
  it("upload: a video at video_size_limit is attached; one byte over is refused (422) and not kept", async () => {
    fakes.mastodon.videoSizeLimit = VIDEO_LIMIT;
    const { ws, postId } = await mastodonPost();

    const over = await upload(ws, postId, clip(VIDEO_LIMIT + 1), "clip.mp4", "video/mp4");
    expect([over.status, over.body]).toEqual([422, mediaError(oneByteOver)]);
    expect(await storedMedia(ws)).toEqual([]);

    const at = await upload(ws, postId, clip(VIDEO_LIMIT), "clip.mp4", "video/mp4");
    expect(at.status, at.text).toBe(200);
    expect(at.body.media.map((m: Record<string, unknown>) => [m.type, m.size, m.width, m.height])).toEqual([
      ["video", VIDEO_LIMIT, 1280, 720],
    ]);
    expect(await storedMedia(ws)).toEqual([{ size: VIDEO_LIMIT, stored: VIDEO_LIMIT }]);
  });

  it("upload: a video of exactly video_matrix_limit pixels is attached; one pixel over is refused", async () => {
    fakes.mastodon.videoMatrixLimit = 1280 * 720;
    const { ws, accountId, postId } = await mastodonPost();
    const at = await upload(ws, postId, clip(), "clip.mp4", "video/mp4");
    expect([at.status, at.body.media?.length]).toEqual([200, 1]);

    // The instance lowers its limit by one pixel; a reconnect reads it again.
    fakes.mastodon.videoMatrixLimit = 1280 * 720 - 1;
    expect(await connectMastodon(ws)).toBe(accountId);
    const over = await upload(ws, postId, clip(), "clip.mp4", "video/mp4");
    const message = "Mastodon: Post accepts videos of at most 921,599 pixels (width × height); clip.mp4 is 1280×720.";
    expect([over.status, over.body]).toEqual([422, mediaError(message)]);
  });

  it("an instance that cannot be read: Mastodon's default video_matrix_limit (8,294,400 px) applies, at and one past", async () => {
    fakes.mastodon.inject("GET /api/v2/instance", fakes.mastodon.unavailable(503));
    const { ws, accountId, postId } = await mastodonPost();
    expect(await accountMeta(accountId)).toEqual({ instance: "https://mastodon.fake" });
    const at = await upload(ws, postId, clip(undefined, 3840, 2160), "clip.mp4", "video/mp4");
    expect([at.status, at.body.media?.length]).toEqual([200, 1]);
    // 13,801 × 601 = 8,294,401 (a prime's neighbour has few factor pairs).
    const over = await upload(ws, postId, clip(undefined, 13_801, 601), "clip.mp4", "video/mp4");
    const message =
      "Mastodon: Post accepts videos of at most 8,294,400 pixels (width × height); clip.mp4 is 13801×601.";
    expect([over.status, over.body]).toEqual([422, mediaError(message)]);
  });

  it("upload: a GIF at image_size_limit is attached; one byte over is refused (GIFs are not re-encoded)", async () => {
    fakes.mastodon.imageSizeLimit = GIF_1X1.length;
    const { ws, accountId, postId } = await mastodonPost();
    const at = await upload(ws, postId, GIF_1X1, "anim.gif", "image/gif");
    expect([at.status, at.body.media?.length]).toEqual([200, 1]);

    fakes.mastodon.imageSizeLimit = GIF_1X1.length - 1;
    await connectMastodon(ws);
    const second = await createMastodonPost(ws, accountId);
    const over = await upload(ws, second, GIF_1X1, "anim.gif", "image/gif");
    const message = `Mastodon: Post accepts GIFs of at most ${GIF_1X1.length - 1} bytes; anim.gif is ${GIF_1X1.length} bytes (GIFs are not re-encoded).`;
    expect([over.status, over.body]).toEqual([422, mediaError(message)]);
  });

  it("upload: a JPEG over image_size_limit is attached (it is fitted at publish, not refused)", async () => {
    fakes.mastodon.imageSizeLimit = 64 * 1024;
    const { ws, postId } = await mastodonPost();
    const photo = jpegHeader(800, 600, 64 * 1024);
    const res = await upload(ws, postId, photo, "photo.jpg", "image/jpeg");
    expect(res.status, res.text).toBe(200);
    expect(res.body.media.map((m: Record<string, unknown>) => [m.type, m.size])).toEqual([["image", photo.length]]);
  });

  it("a disabled Mastodon row does not apply its instance's limits", async () => {
    fakes.mastodon.videoSizeLimit = VIDEO_LIMIT;
    const { ws, postId } = await mastodonPost();
    const rowId = (await ws.api("GET", `/api/posts/${postId}`)).body.platforms[0].id;
    await env.DB.prepare("UPDATE post_platforms SET enabled = 0 WHERE id = ?").bind(rowId).run();
    const res = await upload(ws, postId, clip(VIDEO_LIMIT + 1), "clip.mp4", "video/mp4");
    expect([res.status, res.body.media?.length]).toEqual([200, 1]);
  });

  it("from-url: the video at the limit is attached, the one a byte over is a failed URL", async () => {
    fakes.mastodon.videoSizeLimit = VIDEO_LIMIT;
    const { ws, postId } = await mastodonPost();
    const off = fakeOrigin("https://cdn.fake", (req) => {
      const bytes = new URL(req.url).pathname === "/at.mp4" ? VIDEO_LIMIT : VIDEO_LIMIT + 1;
      return new Response(clip(bytes), { headers: { "Content-Type": "video/mp4" } });
    });
    try {
      const res = await ws.api("POST", `/api/posts/${postId}/media/from-url`, {
        urls: ["https://cdn.fake/at.mp4", "https://cdn.fake/over.mp4"],
      });
      expect(res.status, res.text).toBe(200);
      expect([res.body.attached_count, res.body.failed_urls]).toEqual([1, ["https://cdn.fake/over.mp4"]]);
      expect(res.body.post.media.map((m: Record<string, unknown>) => m.size)).toEqual([VIDEO_LIMIT]);
      expect(await storedMedia(ws)).toEqual([{ size: VIDEO_LIMIT, stored: VIDEO_LIMIT }]);
    } finally {
      off();
    }
  });

  it("MCP attach-media-from-upload: a signed upload a byte over is refused and kept; one at the limit attaches", async () => {
    fakes.mastodon.videoSizeLimit = VIDEO_LIMIT;
    const { ws, postId } = await mastodonPost();
    const ctx = workspaceContext(ws);
    const signedUpload = async (bytes: Uint8Array) => {
      const issued = await ws.api("POST", "/api/uploads");
      const url = new URL(issued.body.upload_url);
      const res = await call("POST", `${url.pathname}${url.search}`, {
        rawBody: mediaForm(bytes, "clip.mp4", "video/mp4"),
        headers: { "CF-Connecting-IP": "198.51.100.16" },
      });
      expect(res.status, res.text).toBe(201);
      return issued.body.upload_token as string;
    };

    const overToken = await signedUpload(clip(VIDEO_LIMIT + 1));
    const refused = await attachUploadToPost(ctx, { post_id: postId, upload_token: overToken }).catch((e) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect([refused.code, refused.message, refused.errors]).toEqual([
      "validation",
      oneByteOver,
      { media: [oneByteOver] },
    ]);

    const atToken = await signedUpload(clip(VIDEO_LIMIT));
    const { post } = await attachUploadToPost(ctx, { post_id: postId, upload_token: atToken });
    expect(post.media.map((m) => m.size)).toEqual([VIDEO_LIMIT]);
    // The refused upload is the agent's: kept for another post.
    expect((await storedMedia(ws)).map((m) => m.size).sort()).toEqual([VIDEO_LIMIT, VIDEO_LIMIT + 1]);
  });
});

describe("Mastodon: limits the instance stops reporting are not kept (issue 16)", () => {
  it("a day later, publishing reads the instance again: a dropped media limit goes back to the default", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.now();
    vi.setSystemTime(t0);
    fakes.mastodon.videoSizeLimit = VIDEO_LIMIT;
    const { ws, accountId, postId } = await mastodonPost();
    expect((await upload(ws, postId, clip(VIDEO_LIMIT + 1), "clip.mp4", "video/mp4")).status).toBe(422);

    // The instance now answers without configuration.media_attachments (as some compatible servers do).
    fakes.mastodon.inject("GET /api/v2/instance", () =>
      Response.json({ domain: "mastodon.fake", configuration: { statuses: { max_characters: 1000 } } }),
    );
    vi.setSystemTime(t0 + 25 * 3_600_000);
    const text = await seedPost(ws, {
      content: "Still here",
      rows: [{ accountId, platform: "mastodon", contentType: "mastodon_post" }],
    });
    await deliver(text.messages);
    expect((await readRow(text.rowIds[0]!))!.status).toBe("published");
    expect(await accountMeta(accountId)).toEqual({
      instance: "https://mastodon.fake",
      max_characters: 1000,
      instance_checked_at: t0 + 25 * 3_600_000,
    });
    const res = await upload(ws, postId, clip(VIDEO_LIMIT + 1), "clip.mp4", "video/mp4");
    expect([res.status, res.body.media?.length]).toEqual([200, 1]);
  });

  it("an instance that does not answer keeps what it said last (a reconnect during an outage)", async () => {
    fakes.mastodon.videoSizeLimit = VIDEO_LIMIT;
    const { ws, accountId, postId } = await mastodonPost();
    const before = await accountMeta(accountId);
    fakes.mastodon.inject("GET /api/v2/instance", fakes.mastodon.unavailable(503));
    await connectMastodon(ws);
    expect(await accountMeta(accountId)).toEqual(before);
    const over = await upload(ws, postId, clip(VIDEO_LIMIT + 1), "clip.mp4", "video/mp4");
    expect([over.status, over.body]).toEqual([422, mediaError(oneByteOver)]);
  });
});
