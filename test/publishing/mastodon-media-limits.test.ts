import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { TestWorkspace } from "../support/harness";
import { connectMastodon, MB, scheduleMastodonPost } from "./mastodon-support";
import { detailedPhoto } from "./photos";
import { installFakesEachTest } from "./platforms";
import { createTestWorkspace, deliverThroughRuntime, readPost, seedMedia, seedPost } from "./support";

/**
 * Issue 16: a Mastodon instance's own media limits (GET /api/v2/instance → configuration.media_attachments) are
 * read with its text limits at connect and used instead of the catalog's defaults (16 MB images, 99 MB videos):
 * a video over the instance's limit is refused at schedule time, an image over it is fitted within it.
 */
const fakes = installFakesEachTest();

const scheduleWith = (ws: TestWorkspace, accountId: string, mediaId: string) =>
  scheduleMastodonPost(ws, accountId, { mediaIds: [mediaId] });

const video = (ws: TestWorkspace, bytes: number, width = 1280, height = 720) =>
  seedMedia(ws, "video", { bytes: new Uint8Array(bytes).fill(7), width, height });

/** A 2400 × 1800 photo-like JPEG, over 2 MB; made once for the file. */
let made: Promise<Uint8Array> | undefined;
const photo = () => {
  made ??= detailedPhoto(2400, 1800);
  return made;
};

/** Publishes a post with this image to the Mastodon account through the runtime; it must publish. */
async function publishImage(ws: TestWorkspace, accountId: string, mediaId: string): Promise<void> {
  const post = await seedPost(ws, {
    content: "Sunset",
    rows: [{ accountId, platform: "mastodon", contentType: "mastodon_post" }],
    mediaIds: [mediaId],
  });
  await deliverThroughRuntime(post.messages);
  expect((await readPost(post.postId))?.status).toBe("published");
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

  it("a video of exactly the instance's video_matrix_limit pixels schedules; one pixel over is refused", async () => {
    // 640 × 552 = 353,280 pixels; 881 × 401 = 353,281.
    fakes.mastodon.videoMatrixLimit = 640 * 552;
    const ws = await createTestWorkspace();
    const id = await connectMastodon(ws);
    expect((await scheduleWith(ws, id, await video(ws, MB, 640, 552))).status).toBe(200);
    const over = await scheduleWith(ws, id, await video(ws, MB, 881, 401));
    const message = "Mastodon: Post accepts videos of at most 353,280 pixels (width × height); file.mp4 is 881×401.";
    expect([over.status, over.body]).toEqual([422, { message, errors: { media: [message] } }]);
  });

  it("an instance that does not answer keeps the defaults (a 6 MB video schedules, 99 MB is the limit)", async () => {
    fakes.mastodon.videoSizeLimit = 5 * MB;
    fakes.mastodon.inject("GET /api/v2/instance", fakes.mastodon.unavailable(503));
    const ws = await createTestWorkspace();
    const id = await connectMastodon(ws);
    expect((await scheduleWith(ws, id, await video(ws, 6 * MB))).status).toBe(200);
  });

  it("the instance's max_media_attachments lowers the cap of 4: at it schedules, one over is refused", async () => {
    fakes.mastodon.inject("GET /api/v2/instance", () =>
      Response.json({ configuration: { statuses: { max_characters: 500, max_media_attachments: 2 } } }),
    );
    const ws = await createTestWorkspace();
    const id = await connectMastodon(ws);
    const images = (n: number) => Promise.all(Array.from({ length: n }, () => seedMedia(ws, "image")));
    expect((await scheduleMastodonPost(ws, id, { mediaIds: await images(2) })).status).toBe(200);
    const over = await scheduleMastodonPost(ws, id, { mediaIds: await images(3) });
    const message = "Mastodon: Post allows at most 2 media items (3 attached).";
    expect([over.status, over.body]).toEqual([422, { message, errors: { media: [message] } }]);
    const preview = await ws.api("GET", `/api/posts/${over.postId}/preview`);
    expect(
      preview.body.map((r: { max_media_count: number; problems: string[] }) => [r.max_media_count, r.problems]),
    ).toEqual([[2, [message]]]);
  });

  it("an instance's larger max_media_attachments does not raise the catalog's cap of 4", async () => {
    fakes.mastodon.inject("GET /api/v2/instance", () =>
      Response.json({ configuration: { statuses: { max_characters: 500, max_media_attachments: 8 } } }),
    );
    const ws = await createTestWorkspace();
    const id = await connectMastodon(ws);
    const mediaIds = await Promise.all(Array.from({ length: 5 }, () => seedMedia(ws, "image")));
    const over = await scheduleMastodonPost(ws, id, { mediaIds });
    const message = "Mastodon: Post allows at most 4 media items (5 attached).";
    expect([over.status, over.body]).toEqual([422, { message, errors: { media: [message] } }]);
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

    await publishImage(ws, id, mediaId);
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
    await publishImage(ws, id, mediaId);
    expect([...fakes.mastodon.media.values()].map((m) => m.size)).toEqual([bytes.length]);
  }, 120_000);
});
