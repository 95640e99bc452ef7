import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fitImage, MAX_DECODE_HEAP_BYTES } from "../../src/media/fit-image";
import { coefficientBytes, jpegDecodeBytes } from "../../src/media/jpeg-decode-heap";
import { decodeJpeg } from "../../src/media/jpeg-decoder";
import { jpegInfo } from "../../src/media/jpeg-meta";
import { transcodeToJpeg } from "../../src/media/transcode";
import { codecInstantiations, liveWasmHeapBytes, releaseCodecInstances } from "../../src/media/wasm-codec";
import { type Fakes, installFakes, seedBlueskyAccount, seedXAccount } from "../publishing/platforms";
import { deliverThroughRuntime, readPost, seedPost } from "../publishing/support";
import { call, createTestWorkspace } from "../support/harness";
import { insertPost, jpegHeader, makePng, mediaForm } from "./fixtures";
import { progressivePhoto } from "./progressive-jpeg";

const MiB = 1024 * 1024;
const BLUESKY = { maxBytes: 1_000_000, formats: ["image/jpeg"] as const };

/** `jpegHeader` as a progressive frame (SOF2) with the given sampling factors per component. */
function progressiveHeader(width: number, height: number, sampling: number[]): Uint8Array {
  const b = jpegHeader(width, height, 0, false);
  const sof = b.indexOf(0xc0, 20);
  b[sof] = 0xc2;
  sampling.forEach((s, c) => {
    b[sof + 10 + c * 3] = s;
  });
  return b;
}

describe("decoder heap estimate (jpeg-decode-heap.ts)", () => {
  it("counts libjpeg's coefficient blocks per component, padded to whole MCUs", () => {
    // 4032 × 3024 (a 12 MP phone photo): Y 504 × 378 blocks; 4:2:0 chroma 252 × 189 each; 128 bytes a block.
    expect(
      coefficientBytes({
        width: 4032,
        height: 3024,
        sampling: [
          [2, 2],
          [1, 1],
          [1, 1],
        ],
      }),
    ).toBe((504 * 378 + 2 * 252 * 189) * 128);
    expect(
      coefficientBytes({
        width: 4032,
        height: 3024,
        sampling: [
          [1, 1],
          [1, 1],
          [1, 1],
        ],
      }),
    ).toBe(3 * 504 * 378 * 128);
    expect(
      coefficientBytes({
        width: 4032,
        height: 3024,
        sampling: [
          [2, 1],
          [1, 1],
          [1, 1],
        ],
      }),
    ).toBe((504 * 378 + 2 * 252 * 378) * 128);
    expect(coefficientBytes({ width: 4032, height: 3024, sampling: [[1, 1]] })).toBe(504 * 378 * 128);
    // 4001 × 3001 4:2:0: 501 × 376 luma blocks padded to 502 × 376; chroma ⌈4001/16⌉ = 251 × ⌈3001/16⌉ = 188.
    expect(
      coefficientBytes({
        width: 4001,
        height: 3001,
        sampling: [
          [2, 2],
          [1, 1],
          [1, 1],
        ],
      }),
    ).toBe((502 * 376 + 2 * 251 * 188) * 128);
    // No components read: counted as 4:4:4 colour, the costliest ordinary case.
    expect(coefficientBytes({ width: 800, height: 800, sampling: [] })).toBe(3 * 100 * 100 * 128);
  });

  it("is file + working rows (+ coefficients when progressive), never below the module's 2 MiB", () => {
    const frame = {
      width: 4032,
      height: 3024,
      sampling: [
        [2, 2],
        [1, 1],
        [1, 1],
      ] as [number, number][],
    };
    const working = MiB + 96 * 4032;
    expect(jpegDecodeBytes(3 * MiB, { ...frame, progressive: false })).toBe(3 * MiB + working);
    expect(jpegDecodeBytes(3 * MiB, { ...frame, progressive: true })).toBe(3 * MiB + working + coefficientBytes(frame));
    expect(jpegDecodeBytes(1000, { width: 100, height: 100, progressive: false, sampling: [[1, 1]] })).toBe(2 * MiB);
  });
});

/** A 12 MP progressive phone photo (EXIF orientation 6), made once for the file. */
let made: Promise<Uint8Array> | undefined;
const phonePhoto = () => {
  made ??= progressivePhoto(4032, 3024, 97, 6);
  return made;
};

describe("progressive JPEGs in fitImage (issues 16/21)", () => {
  it("a 12 MP 4:2:0 progressive header is decoded (not refused); 12 MP 4:4:4, 16 MP and 24 MP 4:2:0 are refused first", async () => {
    const reason = (p: Promise<unknown>) =>
      p.then(
        () => "fitted",
        (e: { reason: string }) => e.reason,
      );
    const spec = { maxBytes: 1000, maxWidth: 1000, formats: ["image/jpeg"] as const };
    // Headers only: a frame that passes the heap check reaches libjpeg, which finds no scan ("invalid").
    expect(await reason(fitImage(progressiveHeader(4032, 3024, [0x22, 0x11, 0x11]), "image/jpeg", spec))).toBe(
      "invalid",
    );
    expect(await reason(fitImage(progressiveHeader(4032, 3024, [0x11, 0x11, 0x11]), "image/jpeg", spec))).toBe(
      "too_large_to_decode",
    );
    expect(await reason(fitImage(progressiveHeader(6000, 4000, [0x22, 0x11, 0x11]), "image/jpeg", spec))).toBe(
      "too_large_to_decode",
    );
    // At the 10 MB upload limit a 12 MP 4:2:0 file still passes (46.3 MiB); a 3 MB 16 MP 4:2:0 one (49.0) does not.
    const padded = (w: number, h: number, bytes: number) => {
      const b = jpegHeader(w, h, bytes - 200, false);
      b[b.indexOf(0xc0, 20)] = 0xc2;
      return b;
    };
    const tenMb = padded(4032, 3024, 10 * MiB);
    expect(jpegDecodeBytes(tenMb.length, jpegInfo(tenMb)!)).toBeLessThanOrEqual(MAX_DECODE_HEAP_BYTES);
    expect(await reason(fitImage(tenMb, "image/jpeg", spec))).toBe("invalid");
    expect(await reason(fitImage(padded(4608, 3456, 3 * MiB), "image/jpeg", spec))).toBe("too_large_to_decode");
  });

  it("fits a real 12 MP progressive phone photo for Bluesky within the decode limit", async () => {
    const photo = await phonePhoto();
    const frame = jpegInfo(photo)!;
    expect(frame).toEqual({
      width: 4032,
      height: 3024,
      progressive: true,
      orientation: 6,
      sampling: [
        [2, 2],
        [1, 1],
        [1, 1],
      ],
    });
    expect(photo.length).toBeGreaterThan(3 * MiB); // phone-sized
    const estimate = jpegDecodeBytes(photo.length, frame);
    expect(estimate).toBeLessThanOrEqual(MAX_DECODE_HEAP_BYTES);

    releaseCodecInstances(); // measure this fit's decoder, not one another file in the runtime grew
    const out = await fitImage(photo, "image/jpeg", { ...BLUESKY, formats: ["image/jpeg"] });
    expect(out.changed).toBe(true);
    expect(out.mime).toBe("image/jpeg");
    expect(out.bytes.length).toBeLessThanOrEqual(1_000_000);
    // Turned upright (orientation 6): portrait, same aspect as the original within a pixel.
    expect(out.height).toBeGreaterThan(out.width);
    expect(Math.abs(out.height / out.width - 4032 / 3024)).toBeLessThan(0.002);
    const decoded = await decodeJpeg(out.bytes);
    expect([decoded.width, decoded.height]).toEqual([out.width, out.height]);
    // The decoder really held the whole coefficient buffer, and no more than the estimate said.
    const heap = liveWasmHeapBytes().libjpeg_turbo_decoder!;
    expect(heap).toBeGreaterThan(coefficientBytes(frame) + photo.length);
    expect(heap).toBeLessThanOrEqual(estimate);
  }, 120_000);

  it("keeps the decoder's large heap for the next JPEG fit and drops it before a transcode", async () => {
    const photo = await phonePhoto();
    const spec = { maxBytes: 1_000_000, formats: ["image/jpeg"] as const };
    const made = () => codecInstantiations().libjpeg_turbo_decoder ?? 0;
    await fitImage(photo, "image/jpeg", spec);
    const first = made();
    // A second progressive fit reuses the instance (and its 38 MiB) instead of leaving one for the collector.
    await fitImage(photo, "image/jpeg", spec);
    expect(made()).toBe(first);
    // A PNG transcode never uses the decoder: it is dropped first, and the next fit makes a new one.
    await transcodeToJpeg("image/png", await makePng(4, 4));
    await fitImage(photo, "image/jpeg", spec);
    expect(made()).toBe(first + 1);
  }, 120_000);
});

describe("a progressive phone photo end to end", () => {
  let fakes: Fakes;
  beforeEach(() => {
    fakes = installFakes();
  });
  afterEach(() => fakes.uninstall());

  it("is uploaded as it is and publishes to Bluesky and X, each fake receiving a file within its limit", async () => {
    const photo = await phonePhoto();
    expect(photo.length).toBeGreaterThan(5 * MiB); // over X's 5 MB and Bluesky's 1,000,000 bytes
    const ws = await createTestWorkspace();
    // Uploaded through the API (stored without a decode: metadata stripped, orientation kept).
    const draft = await insertPost(ws, [{ platform: "bluesky", contentType: "bluesky_post" }]);
    const res = await call("POST", `/api/posts/${draft.postId}/media`, {
      key: ws.key,
      rawBody: mediaForm(photo, "IMG_0001.jpg", "image/jpeg"),
    });
    expect(res.status, res.text).toBe(200);
    const media = res.body.media[0];
    expect([media.width, media.height, media.mime_type]).toEqual([3024, 4032, "image/jpeg"]);

    const [x, bsky] = [await seedXAccount(ws), await seedBlueskyAccount(ws, fakes.bluesky)];
    const post = await seedPost(ws, {
      content: "Progressive",
      rows: [
        { accountId: x, platform: "x", contentType: "x_post" },
        { accountId: bsky, platform: "bluesky", contentType: "bluesky_post" },
      ],
      mediaIds: [media.id],
    });
    await deliverThroughRuntime(post.messages);
    expect((await readPost(post.postId))?.status).toBe("published");

    const blobs = [...fakes.bluesky.blobs.values()];
    expect(blobs.map((b) => b.mimeType)).toEqual(["image/jpeg"]);
    expect(blobs[0]!.size).toBeLessThanOrEqual(1_000_000);
    const xMedia = [...fakes.x.media.values()];
    expect(xMedia).toHaveLength(1);
    expect(xMedia[0]!.totalBytes).toBeLessThanOrEqual(5 * MiB);
  }, 180_000);
});
