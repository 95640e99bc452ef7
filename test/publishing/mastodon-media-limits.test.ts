import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { packedRows } from "../../src/media/resample";
import { encodeRows } from "../../src/media/transcode";
import { MASTODON } from "../support/fakes/mastodon";
import type { TestWorkspace } from "../support/harness";
import { type Fakes, installFakes } from "./platforms";
import { createTestWorkspace, deliverThroughRuntime, readPost, seedMedia, seedPost } from "./support";

/**
 * Issue 16: a Mastodon instance's own media limits (GET /api/v2/instance → configuration.media_attachments) are
 * read with its text limits at connect and used instead of the catalog's defaults (16 MB images, 99 MB videos):
 * a video over the instance's limit is refused at schedule time, an image over it is fitted within it.
 */
const MB = 1024 * 1024;

let fakes: Fakes;
beforeEach(() => {
  fakes = installFakes();
});
afterEach(() => fakes.uninstall());

async function connectMastodon(ws: TestWorkspace): Promise<string> {
  const res = await ws.api("POST", "/api/social-accounts", {
    platform: "mastodon",
    display_name: "Alice on Mastodon",
    username: "alice",
    credentials: { access_token: "masto-token" },
    meta: { instance: MASTODON },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

const future = () => new Date(Date.now() + 3_600_000).toISOString();

async function scheduleWith(ws: TestWorkspace, accountId: string, mediaId: string) {
  const created = await ws.api("POST", "/api/posts", {
    content: "Clip",
    platforms: [{ social_account_id: accountId, content_type: "mastodon_post" }],
    media: [{ id: mediaId }],
  });
  expect(created.status).toBe(201);
  const res = await ws.api("PUT", `/api/posts/${created.body.id}`, { status: "scheduled", scheduled_at: future() });
  return Object.assign(res, { postId: created.body.id as string });
}

const video = (ws: TestWorkspace, bytes: number, width = 1280, height = 720) =>
  seedMedia(ws, "video", { bytes: new Uint8Array(bytes).fill(7), width, height });

/** A 2400 × 1800 photo-like JPEG with fine detail, over 2 MB. */
function photo(): Promise<Uint8Array> {
  const w = 2400;
  const h = 1800;
  const px = new Uint8Array(w * h * 3);
  for (let y = 0, i = 0; y < h; y++)
    for (let x = 0; x < w; x++, i += 3) {
      px[i] = (128 + 100 * Math.sin(x / 37) * Math.cos(y / 53)) | 0;
      px[i + 1] = (128 + 90 * Math.sin((x + y) / 71)) | 0;
      px[i + 2] = ((x * 13) ^ (y * 7)) & 255;
    }
  return encodeRows(packedRows(px, w, h, 3), 97);
}

describe("Mastodon: the instance's media limits (issue 16)", () => {
  it("a video over the instance's video_size_limit is refused at schedule time; one at it passes", async () => {
    fakes.mastodon.videoSizeLimit = 5 * MB;
    const ws = await createTestWorkspace();
    const id = await connectMastodon(ws);

    expect((await scheduleWith(ws, id, await video(ws, 5 * MB))).status).toBe(200);
    const over = await scheduleWith(ws, id, await video(ws, 5 * MB + 1));
    const message = "Mastodon: Post accepts videos of at most 5 MB; file.mp4 is 5,242,881 bytes.";
    expect([over.status, over.body]).toEqual([422, { message, errors: { media: [message] } }]);
    // The preview names the same problem for the row.
    const preview = await ws.api("GET", `/api/posts/${over.postId}/preview`);
    expect([preview.status, preview.body.map((r: { problems: string[] }) => r.problems)]).toEqual([200, [[message]]]);
  });

  it("a video over the instance's video_matrix_limit is refused at schedule time", async () => {
    fakes.mastodon.videoMatrixLimit = 1280 * 720;
    const ws = await createTestWorkspace();
    const id = await connectMastodon(ws);
    expect((await scheduleWith(ws, id, await video(ws, MB, 1280, 720))).status).toBe(200);
    const over = await scheduleWith(ws, id, await video(ws, MB, 1080, 1920));
    const message = "Mastodon: Post accepts videos of at most 921,600 pixels (width × height); file.mp4 is 1080×1920.";
    expect([over.status, over.body]).toEqual([422, { message, errors: { media: [message] } }]);
  });

  it("an instance that does not answer keeps the defaults (a 6 MB video schedules, 99 MB is the limit)", async () => {
    fakes.mastodon.videoSizeLimit = 5 * MB;
    fakes.mastodon.inject("GET /api/v2/instance", fakes.mastodon.unavailable(503));
    const ws = await createTestWorkspace();
    const id = await connectMastodon(ws);
    expect((await scheduleWith(ws, id, await video(ws, 6 * MB))).status).toBe(200);
  });

  it("an image over the instance's image_size_limit is fitted within it; the fake receives a file within it", async () => {
    fakes.mastodon.imageSizeLimit = 2 * MB;
    const bytes = await photo();
    expect(bytes.length).toBeGreaterThan(2 * MB);
    const ws = await createTestWorkspace();
    const id = await connectMastodon(ws);
    const mediaId = await seedMedia(ws, "image", { bytes, width: 2400, height: 1800 });
    // Schedule time lets it through: it can be fitted.
    expect((await scheduleWith(ws, id, mediaId)).status).toBe(200);

    const post = await seedPost(ws, {
      content: "Sunset",
      rows: [{ accountId: id, platform: "mastodon", contentType: "mastodon_post" }],
      mediaIds: [mediaId],
    });
    await deliverThroughRuntime(post.messages);
    expect((await readPost(post.postId))?.status).toBe("published");
    const sent = [...fakes.mastodon.media.values()];
    expect(sent).toHaveLength(1);
    expect(sent[0]!.size).toBeGreaterThan(0);
    expect(sent[0]!.size).toBeLessThanOrEqual(2 * MB);
    // The original is untouched.
    const path = (await env.DB.prepare("SELECT path FROM media WHERE id = ?").bind(mediaId).first<{ path: string }>())!
      .path;
    expect((await env.MEDIA_BUCKET.head(path))!.size).toBe(bytes.length);
  }, 120_000);

  it("with the default 16 MB the same image goes as it is", async () => {
    const bytes = await photo();
    const ws = await createTestWorkspace();
    const id = await connectMastodon(ws);
    const mediaId = await seedMedia(ws, "image", { bytes, width: 2400, height: 1800 });
    const post = await seedPost(ws, {
      content: "Sunset",
      rows: [{ accountId: id, platform: "mastodon", contentType: "mastodon_post" }],
      mediaIds: [mediaId],
    });
    await deliverThroughRuntime(post.messages);
    expect((await readPost(post.postId))?.status).toBe("published");
    expect([...fakes.mastodon.media.values()].map((m) => m.size)).toEqual([bytes.length]);
  }, 120_000);
});
