import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { bytesSource } from "../../src/media/byte-source";
import { ingestMedia } from "../../src/media/ingest";
import { decodeJpeg } from "../../src/media/jpeg-decoder";
import { jpegInfo, stripJpegMetadata } from "../../src/media/jpeg-meta";
import { packedRows } from "../../src/media/resample";
import { encodeRows } from "../../src/media/transcode";
import { jpegHeader, SAMPLING_420 } from "./fixtures";

const text = (s: string) => new TextEncoder().encode(s);
const latin1 = (b: Uint8Array) => String.fromCharCode(...b);

/** A marker segment: FF marker, 16-bit length, payload. */
function segment(marker: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + payload.length);
  out.set([0xff, marker, (payload.length + 2) >> 8, (payload.length + 2) & 255], 0);
  out.set(payload, 4);
  return out;
}

/** EXIF (little-endian TIFF): IFD0 with Orientation and a Make string, plus a fake GPS block in the payload. */
function exif(orientation: number): Uint8Array {
  const tiff = [0x49, 0x49, 0x2a, 0x00, 0x08, 0x00, 0x00, 0x00];
  const ifd = [0x01, 0x00, 0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, orientation, 0x00, 0x00, 0x00];
  const tail = text("\0\0\0\0GPSLatitude 48.8584 N; Make PhoneCo; Serial 12345");
  return Uint8Array.from([...text("Exif\0\0"), ...tiff, ...ifd, ...tail]);
}

const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/** A real JPEG (48 × 32, left half red) with every kind of metadata and a trailer after EOI. */
async function phoneJpeg(orientation: number) {
  const w = 48;
  const h = 32;
  const px = new Uint8Array(w * h * 3);
  for (let i = 0; i < w * h; i++) px.set(i % w < 24 ? [220, 0, 0] : [0, 0, 220], i * 3);
  const plain = await encodeRows(packedRows(px, w, h, 3), 90);
  // plain = SOI APP0(JFIF) …: insert after APP0.
  const app0End = 4 + ((plain[4]! << 8) | plain[5]!);
  const icc = segment(0xe2, concat(text("ICC_PROFILE\0"), Uint8Array.from([1, 1, 9, 9, 9])));
  const withMeta = concat(
    plain.subarray(0, app0End),
    segment(0xe1, exif(orientation)),
    segment(0xe1, text("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>GPS</x:xmpmeta>")),
    icc,
    segment(0xe2, text("MPF\0GPS-secondary")),
    segment(0xed, text("Photoshop 3.0\0IPTC GPS city")),
    segment(0xfe, text("comment: taken at GPS home")),
    plain.subarray(app0End),
    text("GPS trailer: a second image with its own EXIF"),
  );
  return { plain, withMeta, icc, app0: plain.subarray(2, app0End) };
}

describe("JPEG metadata", () => {
  it("drops EXIF, XMP, other APPn, comments and trailers; keeps JFIF, ICC and a one-tag orientation EXIF", async () => {
    const { plain, withMeta, icc, app0 } = await phoneJpeg(6);
    expect(jpegInfo(withMeta)).toEqual({
      width: 48,
      height: 32,
      progressive: false,
      orientation: 6,
      sampling: SAMPLING_420,
    });
    const stripped = stripJpegMetadata(withMeta)!;
    expect(latin1(stripped)).not.toContain("GPS");
    expect(latin1(stripped)).not.toContain("PhoneCo");
    expect(latin1(stripped)).not.toContain("xmpmeta");
    expect(jpegInfo(stripped)).toEqual({
      width: 48,
      height: 32,
      progressive: false,
      orientation: 6,
      sampling: SAMPLING_420,
    });
    // SOI, JFIF, the minimal EXIF, the ICC profile, then the original image's tables and scan up to EOI.
    const minimalExif = stripped.subarray(2 + app0.length, 2 + app0.length + 36);
    expect([minimalExif[0], minimalExif[1], minimalExif[3]]).toEqual([0xff, 0xe1, 34]);
    expect(stripped).toEqual(concat(plain.subarray(0, 2), app0, minimalExif, icc, plain.subarray(2 + app0.length)));
    // Same pixels.
    const a = await decodeJpeg(plain);
    const pa = a.pixels.slice();
    a.release();
    const b = await decodeJpeg(stripped);
    expect(b.pixels.slice()).toEqual(pa);
    b.release();
  });

  it("leaves a JPEG without metadata as it is, and drops the orientation EXIF when it is 1", async () => {
    const header = jpegHeader(640, 480, 100);
    expect(stripJpegMetadata(header)).toBe(header);
    const { plain, withMeta, icc, app0 } = await phoneJpeg(1);
    const app0End = 2 + app0.length;
    expect(stripJpegMetadata(withMeta)).toEqual(concat(plain.subarray(0, app0End), icc, plain.subarray(app0End)));
    expect(stripJpegMetadata(plain)).toBe(plain);
  });

  it("ingest stores the stripped JPEG and reports the size a viewer sees (orientation 6: 32 × 48)", async () => {
    const { withMeta } = await phoneJpeg(6);
    const out = await ingestMedia(env.MEDIA_BUCKET, bytesSource(withMeta), {
      filename: "IMG_0001.JPG",
      limits: {
        imageMaxBytes: 1 << 20,
        videoMaxBytes: 1 << 20,
        maxPixels: 16e6,
        maxFullDecodePixels: 8e6,
        accept: new Set(["image"]),
      },
    });
    expect(out).toMatchObject({ mimeType: "image/jpeg", width: 32, height: 48 });
    const stored = new Uint8Array(await (await env.MEDIA_BUCKET.get(out.path))!.arrayBuffer());
    expect(stored).toEqual(stripJpegMetadata(withMeta));
    expect(out.size).toBe(stored.length);
    expect(latin1(stored)).not.toContain("GPS");
  });
});
