/**
 * The EXIF Orientation an image file carries, whatever its format: JPEG (APP1), PNG (`eXIf` chunk, PNG 1.5 /
 * third edition) and WebP (`EXIF` chunk of an extended file). Read from the chunk structure without decoding. A PNG
 * or WebP that says it must be turned is stored as a JPEG that says the same (jpeg-meta.ts `withOrientationExif`),
 * so it shows upright, its `width`/`height` are what a viewer sees, and fitting turns its pixels for real.
 */
import { jpegInfo, tiffOrientation } from "./jpeg-meta";

const ascii = (b: Uint8Array, at: number, len: number) => String.fromCharCode(...b.subarray(at, at + len));
const u32be = (b: Uint8Array, i: number) =>
  (b[i] as number) * 16_777_216 + (((b[i + 1] as number) << 16) | ((b[i + 2] as number) << 8) | (b[i + 3] as number));
const u32le = (b: Uint8Array, i: number) =>
  (b[i] as number) + (((b[i + 1] as number) << 8) | ((b[i + 2] as number) << 16)) + (b[i + 3] as number) * 16_777_216;

/** Some writers start the EXIF payload with JPEG's "Exif\0\0" prefix, which PNG and WebP do not use. */
function exifPayload(b: Uint8Array, start: number, end: number): number {
  return end - start >= 6 && ascii(b, start, 6) === "Exif\0\0"
    ? tiffOrientation(b, start + 6, end)
    : tiffOrientation(b, start, end);
}

function pngOrientation(b: Uint8Array): number {
  for (let at = 8; at + 12 <= b.length; ) {
    const length = u32be(b, at);
    const type = ascii(b, at + 4, 4);
    const end = at + 8 + length;
    if (end > b.length || type === "IEND") return 1;
    if (type === "eXIf") return exifPayload(b, at + 8, end);
    at = end + 4; // CRC
  }
  return 1;
}

function webpOrientation(b: Uint8Array): number {
  if (b.length < 30 || ascii(b, 12, 4) !== "VP8X" || !((b[20] as number) & 0x08)) return 1; // EXIF flag
  for (let at = 12; at + 8 <= b.length; ) {
    const size = u32le(b, at + 4);
    const end = at + 8 + size;
    if (end > b.length) return 1;
    if (ascii(b, at, 4) === "EXIF") return exifPayload(b, at + 8, end);
    at = end + (size & 1);
  }
  return 1;
}

/** EXIF Orientation 1–8 of an image file (1 when absent, malformed, or not an image with EXIF). */
export function imageOrientation(mime: string, bytes: Uint8Array): number {
  if (mime === "image/png") return pngOrientation(bytes);
  if (mime === "image/webp") return webpOrientation(bytes);
  if (mime === "image/jpeg") return jpegInfo(bytes)?.orientation ?? 1;
  return 1;
}
