import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { bytesSource } from "../../src/media/byte-source";
import { fitImage } from "../../src/media/fit-image";
import { ingestMedia } from "../../src/media/ingest";
import { decodeJpeg } from "../../src/media/jpeg-decoder";
import { jpegInfo } from "../../src/media/jpeg-meta";
import { imageOrientation } from "../../src/media/orientation";
import { chunk, makePng, SAMPLING_420, WEBP_LOSSY_1X1 } from "./fixtures";

const limits = {
  imageMaxBytes: 10 * 1024 * 1024,
  videoMaxBytes: 0,
  maxPixels: 16_000_000,
  maxFullDecodePixels: 4_000_000,
  accept: new Set(["image" as const]),
};
const ingest = (bytes: Uint8Array) => ingestMedia(env.MEDIA_BUCKET, bytesSource(bytes), { filename: "turned", limits });

/** A TIFF structure with IFD0 holding one Orientation tag. */
function tiff(orientation: number, little = true, prefix = false): Uint8Array {
  const le = [0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, orientation, 0, 0, 0, 0, 0, 0, 0];
  const be = [0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0, 0, 0, 0, 0];
  const body = Uint8Array.from(little ? le : be);
  if (!prefix) return body;
  const out = new Uint8Array(6 + body.length);
  out.set([0x45, 0x78, 0x69, 0x66, 0, 0]);
  out.set(body, 6);
  return out;
}

/** `png` with an eXIf chunk inserted before IEND (after IDAT: allowed, and readers must still find it). */
function withExifChunk(png: Uint8Array, payload: Uint8Array): Uint8Array {
  const iend = png.length - 12;
  const exif = chunk("eXIf", payload);
  const out = new Uint8Array(png.length + exif.length);
  out.set(png.subarray(0, iend));
  out.set(exif, iend);
  out.set(png.subarray(iend), iend + exif.length);
  return out;
}

/** The 1×1 lossy WebP as an extended file (VP8X) with an EXIF chunk after the bitstream. */
function webpWithExif(payload: Uint8Array, flag = true): Uint8Array {
  const vp8 = WEBP_LOSSY_1X1.subarray(12);
  const vp8x = Uint8Array.from([0x56, 0x50, 0x38, 0x58, 10, 0, 0, 0, flag ? 0x08 : 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  const pad = payload.length & 1;
  const exif = new Uint8Array(8 + payload.length + pad);
  exif.set([0x45, 0x58, 0x49, 0x46, payload.length & 255, payload.length >> 8, 0, 0]);
  exif.set(payload, 8);
  const size = 4 + vp8x.length + vp8.length + exif.length;
  const head = Uint8Array.from([0x52, 0x49, 0x46, 0x46, size & 255, size >> 8, 0, 0, 0x57, 0x45, 0x42, 0x50]);
  const out = new Uint8Array(12 + size - 4);
  out.set(head);
  out.set(vp8x, 12);
  out.set(vp8, 12 + vp8x.length);
  out.set(exif, 12 + vp8x.length + vp8.length);
  return out;
}

// 40 × 20: left half red, right half blue. Orientation 6 (turn 90° clockwise to view): red on top, blue below.
const sideways = () => makePng(40, 20, (x) => (x < 20 ? [220, 20, 20, 255] : [20, 20, 220, 255]), { alpha: false });

async function topAndBottom(jpeg: Uint8Array) {
  const d = await decodeJpeg(jpeg);
  const at = (x: number, y: number) => [...d.pixels.subarray((y * d.width + x) * 3, (y * d.width + x) * 3 + 3)];
  return { width: d.width, height: d.height, top: at(d.width >> 1, 2), bottom: at(d.width >> 1, d.height - 3) };
}
const isRed = (p: number[]) => (p[0] as number) > 150 && (p[2] as number) < 90;
const isBlue = (p: number[]) => (p[2] as number) > 150 && (p[0] as number) < 90;

describe("EXIF orientation of PNG (eXIf) and WebP (EXIF)", () => {
  it("reads it from either byte order, with or without JPEG's Exif prefix, and ignores what is malformed", async () => {
    const png = await sideways();
    expect(imageOrientation("image/png", png)).toBe(1);
    expect(imageOrientation("image/png", withExifChunk(png, tiff(6)))).toBe(6);
    expect(imageOrientation("image/png", withExifChunk(png, tiff(8, false)))).toBe(8);
    expect(imageOrientation("image/png", withExifChunk(png, tiff(3, true, true)))).toBe(3);
    expect(imageOrientation("image/png", withExifChunk(png, tiff(9)))).toBe(1);
    expect(imageOrientation("image/png", withExifChunk(png, Uint8Array.from([1, 2, 3])))).toBe(1);
    expect(imageOrientation("image/webp", webpWithExif(tiff(5)))).toBe(5);
    expect(imageOrientation("image/webp", webpWithExif(tiff(7, false, true)))).toBe(7);
    expect(imageOrientation("image/webp", webpWithExif(tiff(5), false))).toBe(1); // VP8X says there is no EXIF
    expect(imageOrientation("image/webp", WEBP_LOSSY_1X1)).toBe(1);
  });

  it("a PNG stored as JPEG keeps the orientation as a one-tag EXIF, with the size a viewer sees", async () => {
    const out = await ingest(withExifChunk(await sideways(), tiff(6)));
    expect(out).toMatchObject({ mimeType: "image/jpeg", width: 20, height: 40 });
    const stored = new Uint8Array(await (await env.MEDIA_BUCKET.get(out.path))!.arrayBuffer());
    expect(jpegInfo(stored)).toEqual({
      width: 40,
      height: 20,
      progressive: false,
      orientation: 6,
      sampling: SAMPLING_420,
    });
    // Fitting it turns the pixels for real: upright, red on top.
    const fitted = await fitImage(stored, "image/jpeg", { maxBytes: 1_000_000, maxWidth: 10, formats: ["image/jpeg"] });
    expect(fitted).toMatchObject({ width: 10, height: 20, changed: true });
    expect(jpegInfo(fitted.bytes)?.orientation).toBe(1);
    const seen = await topAndBottom(fitted.bytes);
    expect([seen.width, seen.height]).toEqual([10, 20]);
    expect(isRed(seen.top) && isBlue(seen.bottom)).toBe(true);
  });

  it("fitting a PNG with eXIf turns it upright too; without eXIf it stays as it is", async () => {
    const spec = { maxBytes: 1_000_000, maxWidth: 30, formats: ["image/jpeg"] as const };
    const turned = await fitImage(withExifChunk(await sideways(), tiff(6)), "image/png", { ...spec });
    expect(turned).toMatchObject({ width: 20, height: 40, changed: true });
    const seen = await topAndBottom(turned.bytes);
    expect([seen.width, seen.height]).toEqual([20, 40]);
    expect(isRed(seen.top) && isBlue(seen.bottom)).toBe(true);
    const plain = await fitImage(await sideways(), "image/png", { ...spec });
    expect(plain).toMatchObject({ width: 30, height: 15 });
  });

  it("a WebP stored as JPEG keeps its EXIF orientation", async () => {
    const out = await ingest(webpWithExif(tiff(8)));
    const stored = new Uint8Array(await (await env.MEDIA_BUCKET.get(out.path))!.arrayBuffer());
    expect(jpegInfo(stored)).toEqual({
      width: 1,
      height: 1,
      progressive: false,
      orientation: 8,
      sampling: SAMPLING_420,
    });
    const plain = await ingest(WEBP_LOSSY_1X1);
    const plainStored = new Uint8Array(await (await env.MEDIA_BUCKET.get(plain.path))!.arrayBuffer());
    expect(jpegInfo(plainStored)?.orientation).toBe(1);
  });
});
