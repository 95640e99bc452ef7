import { describe, expect, it } from "vitest";
import { FitError, fitImage } from "../../src/media/fit-image";
import { decodeJpeg, openJpeg, scaleNumFor } from "../../src/media/jpeg-decoder";
import { packedRows, readAll, scaleRows } from "../../src/media/resample";
import { encodeRows } from "../../src/media/transcode";
import { codecInstantiations, liveWasmHeapBytes, releaseCodecInstances } from "../../src/media/wasm-codec";

const MiB = 1024 * 1024;

/** A photo-like RGB image (smooth areas and fine detail). */
function photo(w: number, h: number): Uint8Array {
  const out = new Uint8Array(w * h * 3);
  for (let y = 0, i = 0; y < h; y++)
    for (let x = 0; x < w; x++, i += 3) {
      out[i] = (128 + 100 * Math.sin(x / 37) * Math.cos(y / 53)) | 0;
      out[i + 1] = (128 + 90 * Math.sin((x + y) / 71)) | 0;
      out[i + 2] = ((x * 13) ^ (y * 7)) & 255;
    }
  return out;
}

const jpeg = (w: number, h: number, quality = 92) => encodeRows(packedRows(photo(w, h), w, h, 3), quality);
const BLUESKY = { maxBytes: 1_000_000, formats: ["image/jpeg"] as const };

describe("JPEG decoder (libjpeg-turbo, DCT scaling, rows out a few at a time)", () => {
  it("decodes at the smallest M/8 scale that still covers the target", async () => {
    expect(scaleNumFor(4000, 3000, 1951, 1463)).toBe(4); // 2000 × 1500
    expect(scaleNumFor(4000, 3000, 2001, 1463)).toBe(5); // 2500 × 1875
    expect(scaleNumFor(4000, 3000, 500, 375)).toBe(1);
    expect(scaleNumFor(4000, 3000, 4000, 3000)).toBe(8);
    const input = await jpeg(400, 300);
    const full = await decodeJpeg(input);
    expect([full.width, full.height]).toEqual([400, 300]);
    const half = await openJpeg(input, 200, 150);
    expect([half.width, half.height]).toEqual([200, 150]);
    const scaled = await readAll(half);
    half.close();
    const odd = await openJpeg(input, 201, 150);
    expect([odd.width, odd.height]).toEqual([250, 188]); // 5/8, rounded up as libjpeg does
    odd.close();
    // On smooth content (red and green; blue is a pixel-level pattern) the 1/2 decode is what averaging the full
    // decode gives, within the reduced IDCT's rounding.
    const averaged = await readAll(scaleRows(packedRows(full.pixels, 400, 300, 3), 200, 150));
    let sum = 0;
    for (let i = 0; i < scaled.length; i++)
      if (i % 3 !== 2) sum += Math.abs((scaled[i] as number) - (averaged[i] as number));
    expect(sum / ((scaled.length * 2) / 3)).toBeLessThan(1.5);
  });

  it("refuses a truncated or corrupt JPEG, then decodes the next file with a fresh instance", async () => {
    const input = await jpeg(640, 480);
    const truncated = input.slice(0, Math.floor(input.length * 0.6));
    await expect(fitImage(truncated, "image/jpeg", { ...BLUESKY, maxWidth: 100 })).rejects.toMatchObject({
      reason: "invalid",
    });
    const junk = input.slice();
    junk.fill(0x00, 700, 900); // entropy-coded data broken
    const err = await fitImage(junk, "image/jpeg", { ...BLUESKY, maxWidth: 100 }).catch((e) => e);
    // libjpeg may or may not see this as corrupt; it must never answer garbage silently when it does.
    if (err instanceof FitError) expect(err.reason).toBe("invalid");
    const ok = await fitImage(input, "image/jpeg", { ...BLUESKY, maxWidth: 320 });
    expect(ok).toMatchObject({ width: 320, height: 240, changed: true });
  });

  it("fits 12 MP photos again and again, sequentially and concurrently, in one decoder and one encoder instance", async () => {
    const input = await jpeg(4000, 3000);
    // From a fresh instance: another file in this runtime may have grown the shared decoder's heap.
    releaseCodecInstances();
    const first = await fitImage(input, "image/jpeg", BLUESKY);
    expect(first).toMatchObject({ width: 1951, height: 1463, changed: true });
    expect(first.bytes.length).toBeLessThanOrEqual(1_000_000);
    const made = codecInstantiations();
    for (let i = 0; i < 2; i++) await fitImage(input, "image/jpeg", BLUESKY);
    const together = await Promise.all([1, 2].map(() => fitImage(input, "image/jpeg", BLUESKY)));
    for (const out of together) expect(out.bytes).toEqual(first.bytes);
    // No new instance: each fit reused the heaps of the one before (a WebAssembly memory never shrinks).
    expect(codecInstantiations().libjpeg_turbo_decoder).toBe(made.libjpeg_turbo_decoder);
    expect(codecInstantiations().libjpeg_turbo).toBe(made.libjpeg_turbo);
    // The decoder's heap holds the file and libjpeg's working rows, not the 36 MB image.
    expect(liveWasmHeapBytes().libjpeg_turbo_decoder).toBeLessThanOrEqual(input.length + 3 * MiB);
  }, 120_000);
});
