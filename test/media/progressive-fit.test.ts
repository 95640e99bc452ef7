import { describe, expect, it } from "vitest";
import { fitImage, MAX_DECODE_HEAP_BYTES } from "../../src/media/fit-image";
import { coefficientBytes, jpegDecodeBytes } from "../../src/media/jpeg-decode-heap";
import { decodeJpeg } from "../../src/media/jpeg-decoder";
import { jpegInfo } from "../../src/media/jpeg-meta";
import { wasmHeapBytes } from "../../src/media/wasm-codec";
import { jpegHeader } from "./fixtures";
import { progressivePhoto } from "./progressive-jpeg";

const MiB = 1024 * 1024;
const BLUESKY = { maxBytes: 1_000_000, formats: ["image/jpeg"] as const };

/** `jpegHeader` as a progressive frame (SOF2) with the given sampling factors per component. */
function progressiveHeader(width: number, height: number, sampling: number[]): Uint8Array {
  const b = jpegHeader(width, height);
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

describe("progressive JPEGs in fitImage (issues 16/21)", () => {
  it("a 12 MP 4:2:0 progressive header is decoded (not refused); 12 MP 4:4:4 and 24 MP 4:2:0 are refused first", async () => {
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
  });

  it("fits a real 12 MP progressive phone photo for Bluesky within the decode limit", async () => {
    const photo = await progressivePhoto(4032, 3024, 95, 6);
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
    const heap = wasmHeapBytes().libjpeg_turbo_decoder!;
    expect(heap).toBeGreaterThan(coefficientBytes(frame) + photo.length);
    expect(heap).toBeLessThanOrEqual(estimate);
  }, 120_000);
});
