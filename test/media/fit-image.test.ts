import { describe, expect, it } from "vitest";
import { FitError, fitImage } from "../../src/media/fit-image";
import { decodeJpeg } from "../../src/media/jpeg-decoder";
import { jpegInfo } from "../../src/media/jpeg-meta";
import { packedRows, scaleRows } from "../../src/media/resample";
import { encodeRows } from "../../src/media/transcode";
import { GIF_1X1, jpegHeader, makePng } from "./fixtures";

/** An RGB image from `pixel(x, y)`, as packed bytes. */
function pixels(w: number, h: number, pixel: (x: number, y: number) => [number, number, number]) {
  const out = new Uint8Array(w * h * 3);
  for (let y = 0, i = 0; y < h; y++) for (let x = 0; x < w; x++, i += 3) out.set(pixel(x, y), i);
  return out;
}

const photo = (x: number, y: number): [number, number, number] => [
  (128 + 100 * Math.sin(x / 37) * Math.cos(y / 53)) | 0,
  (128 + 90 * Math.sin((x + y) / 71)) | 0,
  ((x * 13) ^ (y * 7)) & 255, // fine detail so quality matters
];

const jpeg = (w: number, h: number, pixel = photo, quality = 95) =>
  encodeRows(packedRows(pixels(w, h, pixel), w, h, 3), quality);

/** `jpeg` with an EXIF APP1 (Orientation only, little-endian TIFF) inserted after SOI. */
function withOrientation(bytes: Uint8Array, orientation: number): Uint8Array {
  const app1 = Uint8Array.from([
    0xff,
    0xe1,
    0x00,
    0x22,
    0x45,
    0x78,
    0x69,
    0x66,
    0x00,
    0x00,
    0x49,
    0x49,
    0x2a,
    0x00,
    0x08,
    0x00,
    0x00,
    0x00,
    0x01,
    0x00,
    0x12,
    0x01,
    0x03,
    0x00,
    0x01,
    0x00,
    0x00,
    0x00,
    orientation,
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,
  ]);
  const out = new Uint8Array(bytes.length + app1.length);
  out.set(bytes.subarray(0, 2), 0);
  out.set(app1, 2);
  out.set(bytes.subarray(2), 2 + app1.length);
  return out;
}

const sof = (b: Uint8Array) => {
  const info = jpegInfo(b);
  return info && { width: info.width, height: info.height };
};

async function refusal(p: Promise<unknown>) {
  const err = await p.then(
    () => null,
    (e) => e,
  );
  expect(err).toBeInstanceOf(FitError);
  return { reason: (err as FitError).reason, message: (err as FitError).message };
}

describe("fitImage", () => {
  it("returns the input itself when it already fits (format, bytes, size)", async () => {
    const input = await jpeg(300, 200);
    const out = await fitImage(input, "image/jpeg", {
      maxBytes: input.length,
      maxWidth: 300,
      maxHeight: 200,
      maxPixels: 60_000,
      formats: ["image/jpeg"],
    });
    expect(out).toEqual({ bytes: input, mime: "image/jpeg", width: 300, height: 200, changed: false });
    expect(out.bytes).toBe(input);
    const gif = await fitImage(GIF_1X1, "image/gif", { maxBytes: 1000, formats: ["image/gif", "image/jpeg"] });
    expect(gif).toMatchObject({ bytes: GIF_1X1, mime: "image/gif", width: 1, height: 1, changed: false });
  });

  it("downscales to the width, height and pixel limits, keeping the aspect ratio", async () => {
    const input = await jpeg(1200, 800);
    const wide = await fitImage(input, "image/jpeg", { maxBytes: 10_000_000, maxWidth: 600, formats: ["image/jpeg"] });
    expect(wide).toMatchObject({ mime: "image/jpeg", width: 600, height: 400, changed: true });
    expect(sof(wide.bytes)).toEqual({ width: 600, height: 400 });

    const tall = await fitImage(input, "image/jpeg", { maxBytes: 10_000_000, maxHeight: 100, formats: ["image/jpeg"] });
    expect(sof(tall.bytes)).toEqual({ width: 150, height: 100 });

    const pixels = await fitImage(input, "image/jpeg", {
      maxBytes: 10_000_000,
      maxPixels: 240_000,
      formats: ["image/jpeg"],
    });
    expect(sof(pixels.bytes)).toEqual({ width: 600, height: 400 });
  });

  it("meets a byte budget by lowering quality, then size", async () => {
    const input = await jpeg(1000, 1000, photo, 98);
    for (const maxBytes of [input.length - 1, 150_000, 40_000]) {
      const out = await fitImage(input, "image/jpeg", { maxBytes, formats: ["image/jpeg"] });
      expect(out.bytes.length).toBeLessThanOrEqual(maxBytes);
      expect(out.changed).toBe(true);
      expect(out.width).toBe(out.height); // square stays square
      expect(sof(out.bytes)).toEqual({ width: out.width, height: out.height });
    }
  });

  it("re-encodes a PNG the destination does not take, and passes one it takes", async () => {
    const png = await makePng(300, 300, (x, y) => [x & 255, y & 255, 90, 255], { alpha: false });
    const asJpeg = await fitImage(png, "image/png", { maxBytes: 5_000_000, formats: ["image/jpeg"] });
    expect(asJpeg).toMatchObject({ mime: "image/jpeg", width: 300, height: 300, changed: true });
    expect(sof(asJpeg.bytes)).toEqual({ width: 300, height: 300 });
    const kept = await fitImage(png, "image/png", { maxBytes: 5_000_000, formats: ["image/png", "image/jpeg"] });
    expect(kept.bytes).toBe(png);
  });

  it("turns an image upright (EXIF orientation 6: stored sideways) and reports what a viewer sees", async () => {
    // Stored 200 × 100: left half red, right half blue. Orientation 6 shows it turned 90° clockwise: 100 × 200,
    // red on top, blue at the bottom.
    const stored = withOrientation(await jpeg(200, 100, (x) => (x < 100 ? [220, 0, 0] : [0, 0, 220])), 6);
    const untouched = await fitImage(stored, "image/jpeg", { maxBytes: 1e7, formats: ["image/jpeg"] });
    expect(untouched).toMatchObject({ width: 100, height: 200, changed: false });

    const out = await fitImage(stored, "image/jpeg", { maxBytes: 1e7, maxHeight: 100, formats: ["image/jpeg"] });
    expect(out).toMatchObject({ width: 50, height: 100, changed: true });
    expect(sof(out.bytes)).toEqual({ width: 50, height: 100 });
    expect(jpegInfo(out.bytes)?.orientation).toBe(1); // no EXIF left: the pixels are upright
    const decoded = await decodeJpeg(out.bytes);
    const at = (x: number, y: number) => [...decoded.pixels.subarray((y * 50 + x) * 3, (y * 50 + x) * 3 + 3)];
    const [top, bottom] = [at(25, 10), at(25, 90)];
    decoded.release();
    expect(top[0]).toBeGreaterThan(180);
    expect(top[2]).toBeLessThan(40);
    expect(bottom[2]).toBeGreaterThan(180);
    expect(bottom[0]).toBeLessThan(40);
  });

  it("refuses what it cannot fit: no JPEG allowed, a GIF too big, a decode too large for the heap, junk", async () => {
    const input = await jpeg(400, 300);
    expect(await refusal(fitImage(input, "image/jpeg", { maxBytes: 1000, formats: ["image/png"] }))).toMatchObject({
      reason: "unsupported",
    });
    expect(await refusal(fitImage(GIF_1X1, "image/gif", { maxBytes: 10, formats: ["image/gif"] }))).toMatchObject({
      reason: "unsupported",
    });
    // 6000 × 4000 progressive 4:2:0: 69 MiB of coefficients (3 bytes/px) > 60 MiB, refused before decoding.
    const progressive = jpegHeader(6000, 4000);
    progressive[progressive.indexOf(0xc0, 20)] = 0xc2;
    expect(
      await refusal(fitImage(progressive, "image/jpeg", { maxBytes: 1000, maxWidth: 1000, formats: ["image/jpeg"] })),
    ).toMatchObject({ reason: "too_large_to_decode" });
    expect(
      await refusal(fitImage(jpegHeader(300, 300), "image/jpeg", { maxBytes: 10, formats: ["image/jpeg"] })),
    ).toMatchObject({ reason: "invalid" });
    expect(
      await refusal(fitImage(new Uint8Array(50), "image/png", { maxBytes: 10, formats: ["image/jpeg"] })),
    ).toMatchObject({ reason: "unsupported" });
  });
});

describe("scaleRows (area average)", () => {
  it("averages whole and fractional source areas", async () => {
    // 4 × 1 → 2 × 1: pairs; 3 × 1 → 2 × 1: pixel 1 is split half and half.
    const row = Uint8Array.from([0, 0, 0, 100, 100, 100, 200, 200, 200, 40, 40, 40]);
    const out = new Uint8Array(6);
    await scaleRows(packedRows(row, 4, 1, 3), 2, 1).readRows(1, out);
    expect([...out]).toEqual([50, 50, 50, 120, 120, 120]);
    await scaleRows(packedRows(row.subarray(0, 9), 3, 1, 3), 2, 1).readRows(1, out);
    expect([...out]).toEqual([33, 33, 33, 167, 167, 167]); // (0 + 100/2) / 1.5, (100/2 + 200) / 1.5
    // 2 × 3 → 1 × 2 vertically and horizontally at once.
    const block = Uint8Array.from([0, 0, 0, 30, 30, 30, 60, 60, 60, 90, 90, 90, 120, 120, 120, 150, 150, 150]);
    const two = new Uint8Array(6);
    const scaled = scaleRows(packedRows(block, 2, 3, 3), 1, 2);
    await scaled.readRows(1, two.subarray(0, 3));
    await scaled.readRows(1, two.subarray(3));
    // Row 0 = rows 0 and half of 1: (15 + 75/2) / 1.5 = 35; row 1 = half of 1 and 2: (75/2 + 135) / 1.5 = 115.
    expect([...two]).toEqual([35, 35, 35, 115, 115, 115]);
  });
});
