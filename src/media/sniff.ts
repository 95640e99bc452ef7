/**
 * Media type detection from the bytes only (never the file name or a Content-Type header), and image dimensions
 * read from the container headers before anything is decoded.
 */
import type { MediaKind } from "../catalog/platforms";

export type MediaMime = "image/jpeg" | "image/png" | "image/gif" | "image/webp" | "video/mp4" | "video/quicktime";

export interface DetectedType {
  mime: MediaMime;
  kind: MediaKind;
}

/** Bytes needed by `detectType`; fewer is fine at the end of a (tiny) file. */
export const SNIFF_BYTES = 16;

const ascii = (b: Uint8Array, at: number, len: number): string => {
  let s = "";
  for (let i = at; i < at + len && i < b.length; i++) s += String.fromCharCode(b[i] as number);
  return s;
};

// ISO base media major brands that are plain MP4 video. HEIC/AVIF (`heic`, `mif1`, `avif`, …) share the `ftyp`
// box but are still images, so they are deliberately absent.
const MP4_BRANDS = new Set([
  "isom",
  "iso2",
  "iso3",
  "iso4",
  "iso5",
  "iso6",
  "iso7",
  "iso8",
  "iso9",
  "mp41",
  "mp42",
  "mp71",
  "avc1",
  "hvc1",
  "M4V ",
  "M4VH",
  "M4VP",
  "MSNV",
  "dash",
  "f4v ",
  "NDAS",
  "XAVC",
  "mmp4",
  "3gp4",
  "3gp5",
  "3gp6",
  "3g2a",
]);
// Classic QuickTime files may start with any of these atoms instead of `ftyp`.
const QT_LEADING_ATOMS = new Set(["moov", "mdat", "wide", "free", "skip", "pnot"]);

export function detectType(head: Uint8Array): DetectedType | null {
  const b = head;
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return { mime: "image/jpeg", kind: "image" };
  if (b.length >= 8 && ascii(b, 0, 8) === "\x89PNG\r\n\x1a\n") return { mime: "image/png", kind: "image" };
  if (b.length >= 6 && (ascii(b, 0, 6) === "GIF87a" || ascii(b, 0, 6) === "GIF89a"))
    return { mime: "image/gif", kind: "image" };
  if (b.length >= 12 && ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 4) === "WEBP")
    return { mime: "image/webp", kind: "image" };
  if (b.length >= 12) {
    const box = ascii(b, 4, 4);
    if (box === "ftyp") {
      const brand = ascii(b, 8, 4);
      if (brand === "qt  ") return { mime: "video/quicktime", kind: "video" };
      if (MP4_BRANDS.has(brand)) return { mime: "video/mp4", kind: "video" };
      return null;
    }
    if (QT_LEADING_ATOMS.has(box)) return { mime: "video/quicktime", kind: "video" };
  }
  return null;
}

/** Stored extension per detected type; PNG and WebP are stored as JPEG. */
export function storedFormat(mime: MediaMime): { mime: MediaMime; ext: string } {
  switch (mime) {
    case "image/gif":
      return { mime, ext: "gif" };
    case "video/mp4":
      return { mime, ext: "mp4" };
    case "video/quicktime":
      return { mime, ext: "mov" };
    default:
      return { mime: "image/jpeg", ext: "jpg" };
  }
}

export interface Dimensions {
  width: number;
  height: number;
}

const u16be = (b: Uint8Array, i: number) => ((b[i] as number) << 8) | (b[i + 1] as number);
const u16le = (b: Uint8Array, i: number) => (b[i] as number) | ((b[i + 1] as number) << 8);
const u24le = (b: Uint8Array, i: number) => u16le(b, i) | ((b[i + 2] as number) << 16);
const u32be = (b: Uint8Array, i: number) => u16be(b, i) * 65536 + u16be(b, i + 2);

/**
 * Width and height from the header of a complete image file; null when the header is missing, truncated or
 * nonsensical (the caller answers 422).
 */
export function readDimensions(mime: MediaMime, b: Uint8Array): Dimensions | null {
  const ok = (width: number, height: number) => (width > 0 && height > 0 ? { width, height } : null);
  switch (mime) {
    case "image/png":
      if (b.length < 24 || ascii(b, 12, 4) !== "IHDR") return null;
      return ok(u32be(b, 16), u32be(b, 20));
    case "image/gif":
      if (b.length < 10) return null;
      return ok(u16le(b, 6), u16le(b, 8));
    case "image/webp":
      return webpDimensions(b);
    case "image/jpeg":
      return jpegDimensions(b);
    default:
      return null;
  }
}

function webpDimensions(b: Uint8Array): Dimensions | null {
  if (b.length < 30) return null;
  const chunk = ascii(b, 12, 4);
  if (chunk === "VP8X") {
    const canvas = { width: u24le(b, 24) + 1, height: u24le(b, 27) + 1 };
    // A still image's bitstream must match the canvas; the decoder allocates for the bitstream's own header, so
    // a small canvas over a 16383 × 16383 frame must not pass. Animations (no VP8/VP8L chunk at the top level)
    // are left to the decoder, which refuses them.
    const frame = webpFrameDimensions(b);
    if (frame && (frame.width !== canvas.width || frame.height !== canvas.height)) return null;
    return canvas;
  }
  return webpBitstreamDimensions(b, 12);
}

/** Dimensions of the first top-level VP8/VP8L chunk after a VP8X header, or null if there is none. */
function webpFrameDimensions(b: Uint8Array): Dimensions | null {
  let at = 12;
  while (at + 8 <= b.length) {
    const type = ascii(b, at, 4);
    const size = u16le(b, at + 4) + u16le(b, at + 6) * 65536;
    if (type === "VP8 " || type === "VP8L") return webpBitstreamDimensions(b, at) ?? { width: 0, height: 0 };
    at += 8 + size + (size & 1);
  }
  return null;
}

/** Width and height from the VP8 or VP8L chunk at `at`. */
function webpBitstreamDimensions(whole: Uint8Array, at: number): Dimensions | null {
  const b = whole.subarray(at - 12);
  if (b.length < 30) return null;
  const chunk = ascii(b, 12, 4);
  if (chunk === "VP8 ") {
    // Key frame start code, then 14-bit width and height.
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return null;
    const w = u16le(b, 26) & 0x3fff;
    const h = u16le(b, 28) & 0x3fff;
    return w > 0 && h > 0 ? { width: w, height: h } : null;
  }
  if (chunk === "VP8L") {
    if (b[20] !== 0x2f) return null;
    const bits = (b[21] as number) | ((b[22] as number) << 8) | ((b[23] as number) << 16) | ((b[24] as number) << 24);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  return null;
}

function jpegDimensions(b: Uint8Array): Dimensions | null {
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1] as number;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end of image / start of scan before any frame header
    const len = u16be(b, i + 2);
    if (len < 2) return null;
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof) {
      if (i + 9 > b.length) return null;
      const height = u16be(b, i + 5);
      const width = u16be(b, i + 7);
      return width > 0 && height > 0 ? { width, height } : null;
    }
    i += 2 + len;
  }
  return null;
}
