import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { describeAuth } from "../support/auth-cases";
import { call, createTestWorkspace, type TestWorkspace, UUID } from "../support/harness";
import {
  bucketKeys,
  GIF_1X1,
  insertPost,
  isoBmff,
  jpegHeader,
  makePng,
  mediaForm,
  mediaRows,
  WEBP_LOSSY_1X1,
} from "./fixtures";
import { clipMp4, limitVideo, phoneMp4, portraitMov } from "./videos";

const upload = (ws: TestWorkspace, postId: string, body: BodyInit, headers: Record<string, string> = {}) =>
  call("POST", `/api/posts/${postId}/media`, { key: ws.key, rawBody: body, headers });

const mediaError = (message: string) => ({ message, errors: { media: [message] } });

describe("POST /api/posts/{post}/media", () => {
  describeAuth("POST", `/api/posts/${crypto.randomUUID()}/media`);

  it("stores a PNG as JPEG, appends it to media[] and returns the whole post", async () => {
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [{ platform: "x", contentType: "x_post" }]);
    const png = await makePng(5, 4);
    const res = await upload(ws, postId, mediaForm(png, "holiday photo.png", "image/png"));
    expect(res.status, res.text).toBe(200);
    const [row] = await mediaRows(ws.workspaceId);
    const path = row!.path as string;
    expect(path).toMatch(/^medias\/[0-9a-f-]{36}\.jpg$/);
    const stored = await env.MEDIA_BUCKET.get(path);
    expect(res.body.id).toBe(postId);
    expect(res.body.media).toEqual([
      {
        id: expect.stringMatching(UUID),
        path,
        url: `https://media.test/${path}`,
        type: "image",
        mime_type: "image/jpeg",
        original_filename: "holiday photo.png",
        size: stored!.size,
        width: 5,
        height: 4,
        duration_seconds: null,
        alt: null,
      },
    ]);
    expect(res.body.platforms).toHaveLength(1);
    expect(row).toMatchObject({ upload_token: null, workspace_id: ws.workspaceId, type: "image" });

    // A second upload goes last; GIF stays GIF (byte for byte).
    const second = await upload(ws, postId, mediaForm(GIF_1X1, "anim.gif"));
    expect(second.status).toBe(200);
    expect(second.body.media.map((m: { mime_type: string }) => m.mime_type)).toEqual(["image/jpeg", "image/gif"]);
    const gifPath = second.body.media[1].path;
    expect(gifPath).toMatch(/\.gif$/);
    expect(new Uint8Array(await (await env.MEDIA_BUCKET.get(gifPath))!.arrayBuffer())).toEqual(GIF_1X1);
  });

  it("detects the type from the bytes, not the name or Content-Type", async () => {
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [{ platform: "facebook", contentType: "facebook_post" }]);
    const res = await upload(ws, postId, mediaForm(clipMp4.bytes, "clip.png", "image/png"));
    expect(res.status).toBe(200);
    expect(res.body.media[0]).toMatchObject({
      type: "video",
      mime_type: "video/mp4",
      size: clipMp4.bytes.length,
      width: 320,
      height: 240,
      duration_seconds: 3.024,
    });
    expect(res.body.media[0].path).toMatch(/\.mp4$/);

    const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"></svg>');
    const bad = await upload(ws, postId, mediaForm(svg, "fine.jpg", "image/jpeg"));
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual(mediaError("The media field must be a file of type: jpeg, png, gif, webp, mp4, mov."));
  });

  it("accepts only what every enabled platform accepts (disabled rows do not count)", async () => {
    const ws = await createTestWorkspace();
    const tiktokVideo = await insertPost(ws, [{ platform: "tiktok", contentType: "tiktok_video" }]);
    const image = () => mediaForm(jpegHeader(100, 80), "p.jpg");
    const rejected = await upload(ws, tiktokVideo.postId, image());
    expect(rejected.status).toBe(422);
    expect(rejected.body).toEqual(mediaError("No enabled platform on this post accepts this media type."));
    expect((await upload(ws, tiktokVideo.postId, mediaForm(phoneMp4.bytes))).status).toBe(200);

    const tiktokPhoto = await insertPost(ws, [{ platform: "tiktok", contentType: "tiktok_photo" }]);
    expect((await upload(ws, tiktokPhoto.postId, image())).status).toBe(200);
    expect((await upload(ws, tiktokPhoto.postId, mediaForm(clipMp4.bytes))).status).toBe(422);

    const mixed = await insertPost(ws, [
      { platform: "x", contentType: "x_post" },
      { platform: "youtube", contentType: "youtube_short" },
    ]);
    expect((await upload(ws, mixed.postId, image())).status).toBe(422);
    const withDisabled = await insertPost(ws, [
      { platform: "x", contentType: "x_post" },
      { platform: "youtube", contentType: "youtube_short", enabled: false },
    ]);
    expect((await upload(ws, withDisabled.postId, image())).status).toBe(200);
    const noneEnabled = await insertPost(ws, [{ platform: "youtube", contentType: "youtube_short", enabled: false }]);
    expect((await upload(ws, noneEnabled.postId, image())).status).toBe(200);
  });

  it("answers 422 for a missing file, a text field, an over-cap image, a bomb or a corrupt image, storing nothing", async () => {
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [{ platform: "x", contentType: "x_post" }]);
    const before = await bucketKeys();

    const empty = new FormData();
    empty.append("other", new File([GIF_1X1], "a.gif"));
    expect((await upload(ws, postId, empty)).body).toEqual(mediaError("The media field is required."));
    const text = new FormData();
    text.append("media", "not a file");
    expect((await upload(ws, postId, text)).body).toEqual(mediaError("The media field must be a file."));
    const json = await call("POST", `/api/posts/${postId}/media`, { key: ws.key, body: { media: "x" } });
    expect(json.status).toBe(422);
    expect(json.body).toEqual(mediaError("The media field is required."));

    const big = await upload(ws, postId, mediaForm(jpegHeader(10, 10, 10 * 1024 * 1024), "big.jpg"));
    expect(big.status).toBe(422);
    expect(big.body).toEqual(mediaError("The media field must not be greater than 10240 kilobytes."));

    const bomb = await upload(ws, postId, mediaForm(await makePng(1, 1, undefined, { declared: [30000, 30000] })));
    expect(bomb.body).toEqual(
      // 8-bit RGBA: 48 MiB of inflated rows / 4 bytes a pixel (ingest.ts MAX_INFLATED_BYTES).
      mediaError("The media field has invalid image dimensions: at most 12582912 pixels are supported."),
    );
    const corrupt = WEBP_LOSSY_1X1.slice();
    corrupt.fill(1, 30);
    expect((await upload(ws, postId, mediaForm(corrupt))).body).toEqual(
      mediaError("The media field must be a valid image."),
    );

    expect(await bucketKeys()).toEqual(before);
    expect(await mediaRows(ws.workspaceId)).toEqual([]);
    // The worker keeps serving after all of that.
    expect((await upload(ws, postId, mediaForm(await makePng(2, 2)))).status).toBe(200);
  });

  it("answers 400 for a body cut mid-file, storing nothing", async () => {
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [{ platform: "x", contentType: "x_post" }]);
    const before = await bucketKeys();
    const whole = new Uint8Array(
      await new Request("https://x/", { method: "POST", body: mediaForm(clipMp4.bytes) }).arrayBuffer(),
    );
    const boundary = /^--(.+)\r\n/.exec(new TextDecoder().decode(whole.subarray(0, 200)))![1]!;
    const res = await upload(ws, postId, whole.subarray(0, 6000), {
      "Content-Type": `multipart/form-data; boundary=${boundary}`,
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Malformed multipart body." });
    expect(await bucketKeys()).toEqual(before);
  });

  it("refuses media on a published post (422) and on a publishing one (409), storing nothing", async () => {
    const ws = await createTestWorkspace();
    const before = await bucketKeys();
    const { postId } = await insertPost(ws, [{ platform: "x", contentType: "x_post" }]);
    await env.DB.prepare("UPDATE posts SET status = 'published' WHERE id = ?").bind(postId).run();
    const published = await upload(ws, postId, mediaForm(GIF_1X1, "a.gif"));
    expect(published.status).toBe(422);
    expect(published.body).toEqual(mediaError("Cannot edit a published post."));
    await env.DB.prepare("UPDATE posts SET status = 'publishing' WHERE id = ?").bind(postId).run();
    const publishing = await upload(ws, postId, mediaForm(GIF_1X1, "a.gif"));
    expect(publishing.status).toBe(409);
    expect(publishing.body).toEqual({ message: "The post is being published and cannot be changed." });
    expect(await bucketKeys()).toEqual(before);
    expect(await mediaRows(ws.workspaceId)).toEqual([]);
  });

  it("answers 404 for a post of another workspace, an unknown post, or a non-UUID id", async () => {
    const ws = await createTestWorkspace();
    const other = await createTestWorkspace();
    const { postId } = await insertPost(other, [{ platform: "x", contentType: "x_post" }]);
    for (const id of [postId, crypto.randomUUID(), "not-a-uuid"]) {
      const res = await upload(ws, id, mediaForm(GIF_1X1));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: "Not found." });
    }
    expect(await mediaRows(other.workspaceId)).toEqual([]);
  });

  it("refuses a file that only starts like an MP4/MOV (issue 16, #21): ftyp without a moov, or a cut-off moov", async () => {
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [{ platform: "x", contentType: "x_post" }]);
    const before = await bucketKeys();
    // Hand-built on purpose (malformed): ftyp cut off, ftyp + mdat without a moov, a moov cut off mid-box.
    for (const bytes of [isoBmff(4096).slice(0, 12), isoBmff(512), isoBmff(4096).slice(0, 400)]) {
      const res = await upload(ws, postId, mediaForm(bytes, "clip.mp4", "video/mp4"));
      expect(res.status).toBe(422);
      expect(res.body).toEqual(mediaError("The media field must be a valid video."));
    }
    expect(await bucketKeys()).toEqual(before);
    expect(await mediaRows(ws.workspaceId)).toEqual([]);
    // A rotated phone video (ffmpeg: HEVC stored 320×180, 90° matrix) is stored with its displayed size.
    const ok = await upload(ws, postId, mediaForm(portraitMov.bytes, "phone.mov"));
    expect(ok.status).toBe(200);
    expect(ok.body.media[0]).toMatchObject({
      mime_type: "video/quicktime",
      width: 180,
      height: 320,
      duration_seconds: 3.024,
    });
  });

  it("refuses a file an enabled network can never publish and that cannot be fitted (issue 16)", async () => {
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [
      { platform: "facebook", contentType: "facebook_reel" },
      { platform: "youtube", contentType: "youtube_short" },
    ]);
    const before = await bucketKeys();
    const long = limitVideo(1920, 1080, 200).bytes; // ffmpeg: 200 s, 1920×1080
    const res = await upload(ws, postId, mediaForm(long, "long.mp4"));
    const media = [
      "Facebook Page: Reel needs a video between 3 s and 90 s long; long.mp4 is 200 s.",
      "Facebook Page: Reel needs a video aspect ratio between 0.55:1 and 0.57:1; long.mp4 is 1920×1080.",
      "YouTube Shorts: Short needs a video at most 180 s long; long.mp4 is 200 s.",
      "YouTube Shorts: Short needs a video aspect ratio at most 1:1; long.mp4 is 1920×1080.",
    ];
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: `${media[0]} (and 3 more errors)`, errors: { media } });
    expect(await bucketKeys()).toEqual(before);
    expect(await mediaRows(ws.workspaceId)).toEqual([]);

    const ok = await upload(ws, postId, mediaForm(phoneMp4.bytes));
    expect(ok.status).toBe(200);

    // A GIF where only JPEG goes is refused; an oversized JPEG is not (it is fitted at publish time).
    const ig = await insertPost(ws, [{ platform: "instagram", contentType: "instagram_feed" }]);
    const gif = await upload(ws, ig.postId, mediaForm(GIF_1X1, "anim.gif"));
    expect(gif.status).toBe(422);
    expect(gif.body).toEqual(mediaError("Instagram: Feed Post does not accept GIF images (anim.gif)."));
    const big = await upload(ws, ig.postId, mediaForm(jpegHeader(4000, 3000, 9 * 1024 * 1024), "phone.jpg"));
    expect(big.status).toBe(200);
  });
});
