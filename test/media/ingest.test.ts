import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { bytesSource } from "../../src/media/byte-source";
import { type IngestLimits, ingestMedia, MediaRejectedError } from "../../src/media/ingest";
import { readDimensions } from "../../src/media/sniff";
import { putStream, TooLargeError } from "../../src/media/storage";
import { bucketKeys, GIF_1X1, jpegHeader, makePng, WEBP_LOSSLESS_1X1, WEBP_LOSSY_1X1 } from "./fixtures";
import { clipMov, paddedVideo, phoneMp4 } from "./videos";

const limits = (over: Partial<IngestLimits> = {}): IngestLimits => ({
  imageMaxBytes: 10 * 1024 * 1024,
  videoMaxBytes: 64 * 1024 * 1024,
  maxPixels: 16_000_000,
  maxFullDecodePixels: 8_000_000,
  accept: new Set(["image", "video"]),
  ...over,
});

const sha256 = async (b: Uint8Array) => [...new Uint8Array(await crypto.subtle.digest("SHA-256", b))].join(",");

const ingest = (bytes: Uint8Array, l = limits(), chunk = 64 * 1024) =>
  ingestMedia(env.MEDIA_BUCKET, bytesSource(bytes, chunk), { filename: "in.bin", limits: l });

async function rejected(p: Promise<unknown>) {
  const err = await p.then(
    () => null,
    (e) => e,
  );
  expect(err).toBeInstanceOf(MediaRejectedError);
  return { reason: (err as MediaRejectedError).reason, message: (err as MediaRejectedError).message };
}

describe("ingestMedia", () => {
  it("stores JPEG and GIF byte for byte, with dimensions from the header", async () => {
    const jpeg = jpegHeader(640, 480, 100);
    const a = await ingest(jpeg);
    expect(a).toEqual({
      path: expect.stringMatching(/^medias\/[0-9a-f-]{36}\.jpg$/),
      type: "image",
      mimeType: "image/jpeg",
      originalFilename: "in.bin",
      size: jpeg.length,
      width: 640,
      height: 480,
      durationSeconds: null,
    });
    const stored = await env.MEDIA_BUCKET.get(a.path);
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(jpeg);
    expect(stored!.httpMetadata?.contentType).toBe("image/jpeg");
    expect(stored!.customMetadata).toEqual({ original_filename: "in.bin" });

    const g = await ingest(GIF_1X1);
    expect(g.path).toMatch(/\.gif$/);
    expect(g).toMatchObject({ mimeType: "image/gif", width: 1, height: 1, size: GIF_1X1.length });
    expect(new Uint8Array(await (await env.MEDIA_BUCKET.get(g.path))!.arrayBuffer())).toEqual(GIF_1X1);
  });

  it("turns PNG (alpha flattened on white) and WebP into JPEG", async () => {
    const png = await makePng(4, 3, (x) => (x === 0 ? [0, 0, 0, 0] : [200, 10, 10, 255]));
    const out = await ingest(png);
    expect(out).toMatchObject({ type: "image", mimeType: "image/jpeg", width: 4, height: 3 });
    expect(out.path).toMatch(/\.jpg$/);
    const jpeg = new Uint8Array(await (await env.MEDIA_BUCKET.get(out.path))!.arrayBuffer());
    expect([jpeg[0], jpeg[1], jpeg[2]]).toEqual([0xff, 0xd8, 0xff]);
    expect(out.size).toBe(jpeg.length);

    for (const webp of [WEBP_LOSSLESS_1X1, WEBP_LOSSY_1X1]) {
      const w = await ingest(webp);
      expect(w).toMatchObject({ mimeType: "image/jpeg", width: 1, height: 1 });
    }
  });

  it("encodes larger images with libjpeg-turbo in stitched strips (one valid baseline JPEG)", async () => {
    // 700×1000 = 700 000 px: above the turbo threshold and taller than one strip (2 MB / (700 × 4) → 736 rows).
    const png = await makePng(700, 1000, (x, y) => [x & 255, y & 255, (x + y) & 255, 255], { alpha: false });
    const out = await ingest(png);
    expect(out).toMatchObject({ mimeType: "image/jpeg", width: 700, height: 1000 });
    const jpeg = new Uint8Array(await (await env.MEDIA_BUCKET.get(out.path))!.arrayBuffer());
    expect(readDimensions("image/jpeg", jpeg)).toEqual({ width: 700, height: 1000 });
    const markers = new Set<number>();
    for (let i = 0; i < jpeg.length - 1; i++)
      if (jpeg[i] === 0xff && jpeg[i + 1]! >= 0xd0 && jpeg[i + 1]! <= 0xdd) markers.add(jpeg[i + 1]!);
    expect(markers.has(0xdd)).toBe(true); // DRI: restart interval = one strip
    expect(markers.has(0xd0)).toBe(true); // RST0 between strip 0 and strip 1
    expect([jpeg[jpeg.length - 2], jpeg[jpeg.length - 1]]).toEqual([0xff, 0xd9]);
  });

  it("streams videos to R2, using a multipart upload past one part (20 MB in 8 MiB parts)", async () => {
    // A real phone video (ffmpeg, test/media/videos.ts) grown to 20 MB by a trailing free box.
    const mp4 = paddedVideo(20 * 1024 * 1024 + 123, phoneMp4);
    const v = await ingest(mp4);
    // Issue 16: the displayed size and duration come from the container's moov (src/media/mp4-info.ts).
    expect(v).toMatchObject({
      type: "video",
      mimeType: "video/mp4",
      size: mp4.length,
      width: 540,
      height: 960,
      durationSeconds: 4.524,
    });
    expect(v.path).toMatch(/\.mp4$/);
    const stored = await env.MEDIA_BUCKET.get(v.path);
    expect(stored!.size).toBe(mp4.length);
    // Compare digests: toEqual on 20 M-element arrays is too slow and memory-hungry.
    expect(await sha256(new Uint8Array(await stored!.arrayBuffer()))).toBe(await sha256(mp4));

    const mov = await ingest(clipMov.bytes);
    expect(mov).toMatchObject({ mimeType: "video/quicktime", size: clipMov.bytes.length, width: 320, height: 240 });
    expect(mov.path).toMatch(/\.mov$/);
  });

  it("rejects and leaves nothing in R2: unsupported, not accepted, over the cap (image and streamed video)", async () => {
    const before = await bucketKeys();
    expect(await rejected(ingest(new TextEncoder().encode("%PDF-1.4 not media")))).toEqual({
      reason: "unsupported_type",
      message: "The media field must be a file of type: jpeg, png, gif, webp, mp4, mov.",
    });
    expect(await rejected(ingest(jpegHeader(10, 10), limits({ accept: new Set(["video"]) })))).toEqual({
      reason: "not_accepted",
      message: "No enabled platform on this post accepts this media type.",
    });
    expect(await rejected(ingest(jpegHeader(10, 10, 3000), limits({ imageMaxBytes: 2048 })))).toEqual({
      reason: "too_large",
      message: "The media field must not be greater than 2 kilobytes.",
    });
    // 18 MB video against a 12 MB cap: one 8 MiB part is already uploaded when the cap is hit; the upload is aborted.
    expect(await rejected(ingest(paddedVideo(18 * 1024 * 1024), limits({ videoMaxBytes: 12 * 1024 * 1024 })))).toEqual({
      reason: "too_large",
      message: "The media field must not be greater than 12288 kilobytes.",
    });
    expect(await bucketKeys()).toEqual(before);
  });

  it("refuses decompression bombs from the header and truncated or corrupt images, and keeps working", async () => {
    const before = await bucketKeys();
    // An 8-bit RGBA PNG: its limit is 48 MiB of inflated rows / 4 bytes a pixel (below the 16 MP of RGB).
    const bomb = await makePng(1, 1, undefined, { declared: [40000, 40000] });
    expect(await rejected(ingest(bomb))).toEqual({
      reason: "too_many_pixels",
      message: "The media field has invalid image dimensions: at most 12582912 pixels are supported.",
    });
    // WebP is decoded whole, so its lower limit applies: a 3000×3000 (9 MP) VP8X canvas is refused.
    const bigWebp = new Uint8Array(30);
    bigWebp.set(new TextEncoder().encode("RIFF"), 0);
    new DataView(bigWebp.buffer).setUint32(4, 22, true);
    bigWebp.set(new TextEncoder().encode("WEBPVP8X"), 8);
    new DataView(bigWebp.buffer).setUint32(16, 10, true);
    bigWebp.set([2999 & 255, 2999 >> 8, 0, 2999 & 255, 2999 >> 8, 0], 24);
    expect(await rejected(ingest(bigWebp))).toEqual({
      reason: "too_many_pixels",
      message: "The media field has invalid image dimensions: at most 8000000 pixels are supported.",
    });
    const truncated = await makePng(64, 64, (x, y) => [x * 4, y * 4, (x * y) & 255, 255], { truncate: 40 });
    expect((await rejected(ingest(truncated))).reason).toBe("invalid_image");
    const noIdat = (await makePng(8, 8)).subarray(0, 33);
    expect((await rejected(ingest(noIdat))).reason).toBe("invalid_image");
    const badWebp = WEBP_LOSSY_1X1.slice();
    badWebp.fill(7, 30);
    expect((await rejected(ingest(badWebp))).reason).toBe("invalid_image");
    expect((await rejected(ingest(jpegHeader(10, 10).subarray(0, 20)))).reason).toBe("invalid_image");
    expect(await bucketKeys()).toEqual(before);
    // The codecs still work after the failures above.
    expect((await ingest(await makePng(2, 2))).mimeType).toBe("image/jpeg");
  });
});

describe("putStream", () => {
  it("throws TooLargeError while streaming and cancels the source", async () => {
    let cancelled = false;
    let reads = 0;
    const source = {
      async read() {
        reads++;
        return new Uint8Array(1024);
      },
      async cancel() {
        cancelled = true;
      },
    };
    const err = await putStream(env.MEDIA_BUCKET, "medias/x.mp4", source, {
      maxBytes: 10 * 1024,
      contentType: "video/mp4",
    }).catch((e) => e);
    expect(err).toBeInstanceOf(TooLargeError);
    expect(cancelled).toBe(true);
    expect(reads).toBe(11);
    expect(await env.MEDIA_BUCKET.head("medias/x.mp4")).toBeNull();
  });
});
