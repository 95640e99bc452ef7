import { env, exports } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BSKY_PDS } from "../support/fakes/bluesky";
import { detailedPhoto } from "./photos";
import { type Fakes, installFakes, seedBlueskyAccount, seedMastodonAccount, seedXAccount } from "./platforms";
import { createTestWorkspace, deliverThroughRuntime, readPost, seedMedia, seedPost } from "./support";

/**
 * Issue 16, done-when: a phone-sized photo publishes to the image networks through fakes that refuse what the real
 * networks refuse (Bluesky BlobTooLarge over 1,000,000 bytes, X over 5 MB, Mastodon over 16 MB); each receives a
 * file within its limit — the fitted variant — while the original stays untouched and is still what media[] shows.
 */
const MB = 1024 * 1024;

/** A 4000 × 3000 photo-like JPEG with fine detail (several MB, like a phone's); made once for the file. */
let made: Promise<Uint8Array> | undefined;
const phonePhoto = () => {
  made ??= detailedPhoto(4000, 3000);
  return made;
};
let fakes: Fakes;
beforeEach(() => {
  fakes = installFakes();
});
afterEach(() => fakes.uninstall());

const variantKeys = async (mediaPath: string) => {
  const uuid = /medias\/([0-9a-f-]{36})\./.exec(mediaPath)![1];
  return (await env.MEDIA_BUCKET.list({ prefix: `variants/${uuid}/` })).objects.map((o) => o.key).sort();
};

describe("fitted images at publish time (issue 16)", () => {
  it("a phone photo publishes to X, Bluesky and Mastodon; each fake gets a file within its limit", async () => {
    const photo = await phonePhoto();
    expect(photo.length).toBeGreaterThan(5 * MB); // over X's and Bluesky's limits, under Mastodon's
    const ws = await createTestWorkspace();
    const mediaId = await seedMedia(ws, "image", { bytes: photo, width: 4000, height: 3000 });
    const path = (await env.DB.prepare("SELECT path FROM media WHERE id = ?").bind(mediaId).first<{ path: string }>())!
      .path;
    const [x, bsky, masto] = [
      await seedXAccount(ws),
      await seedBlueskyAccount(ws, fakes.bluesky),
      await seedMastodonAccount(ws),
    ];
    const post = await seedPost(ws, {
      content: "Sunset",
      rows: [
        { accountId: x, platform: "x", contentType: "x_post" },
        { accountId: bsky, platform: "bluesky", contentType: "bluesky_post" },
        { accountId: masto, platform: "mastodon", contentType: "mastodon_post" },
      ],
      mediaIds: [mediaId],
    });
    await deliverThroughRuntime(post.messages);
    const after = await readPost(post.postId);
    expect(after?.status).toBe("published");

    const blobs = [...fakes.bluesky.blobs.values()];
    expect(blobs).toHaveLength(1);
    expect(blobs[0]!.mimeType).toBe("image/jpeg");
    expect(blobs[0]!.size).toBeLessThanOrEqual(1_000_000);
    const xMedia = [...fakes.x.media.values()];
    expect(xMedia).toHaveLength(1);
    expect(xMedia[0]!.totalBytes).toBeLessThanOrEqual(5 * MB);
    // Mastodon takes 16 MB: the original goes as it is.
    expect([...fakes.mastodon.media.values()].map((m) => m.size)).toEqual([photo.length]);

    // Two variants beside the original (Bluesky's and X's), the original untouched.
    const keys = await variantKeys(path);
    expect(keys).toHaveLength(2);
    for (const k of keys) expect(k).toMatch(/^variants\/[0-9a-f-]{36}\/[0-9a-f]{16}\.jpg$/);
    const original = await env.MEDIA_BUCKET.get(path);
    expect(original!.size).toBe(photo.length);

    // A variant is served like an original (for networks that pull by URL).
    const served = await env.MEDIA_BUCKET.head(keys[0]!);
    const res = await exports.default.fetch(new Request(`https://api.test/media/${keys[0]}`));
    expect([res.status, res.headers.get("Content-Type"), Number(res.headers.get("Content-Length"))]).toEqual([
      200,
      "image/jpeg",
      served!.size,
    ]);
    await res.arrayBuffer();
  }, 120_000);

  it("reuses a variant for another post and deletes it with the original", async () => {
    const photo = await phonePhoto();
    const ws = await createTestWorkspace();
    const mediaId = await seedMedia(ws, "image", { bytes: photo, width: 4000, height: 3000 });
    const path = (await env.DB.prepare("SELECT path FROM media WHERE id = ?").bind(mediaId).first<{ path: string }>())!
      .path;
    const bsky = await seedBlueskyAccount(ws, fakes.bluesky);
    const first = await seedPost(ws, {
      content: "One",
      rows: [{ accountId: bsky, platform: "bluesky", contentType: "bluesky_post" }],
      mediaIds: [mediaId],
    });
    await deliverThroughRuntime(first.messages);
    const keys = await variantKeys(path);
    expect(keys).toHaveLength(1);
    const made = (await env.MEDIA_BUCKET.head(keys[0]!))!.uploaded.getTime();

    const second = await seedPost(ws, {
      content: "Two",
      rows: [{ accountId: bsky, platform: "bluesky", contentType: "bluesky_post" }],
      mediaIds: [mediaId],
    });
    await deliverThroughRuntime(second.messages);
    expect((await readPost(second.postId))?.status).toBe("published");
    expect(await variantKeys(path)).toEqual(keys);
    expect((await env.MEDIA_BUCKET.head(keys[0]!))!.uploaded.getTime()).toBe(made);

    // Deleting both posts releases the media: the original and its variants go.
    for (const p of [first.postId, second.postId]) {
      const res = await ws.api("DELETE", `/api/posts/${p}`);
      expect(res.status).toBe(204);
    }
    expect(await env.MEDIA_BUCKET.head(path)).toBeNull();
    expect(await variantKeys(path)).toEqual([]);
    expect(BSKY_PDS).toMatch(/^https:/);
  }, 120_000);
});
