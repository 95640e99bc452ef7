/**
 * JPEG metadata without decoding: the frame (size, progressive or not), the EXIF Orientation tag, and a segment
 * rewriter that drops metadata before a JPEG is stored.
 *
 * Stored JPEGs keep: JFIF (APP0), ICC profiles (APP2 `ICC_PROFILE`, colours would change without them), Adobe
 * (APP14, it says how the colour channels are encoded), and every segment the decoder needs. They lose: EXIF and XMP
 * (APP1: GPS position, device, serial numbers, thumbnails), every other APPn (maker notes, IPTC/Photoshop) and COM.
 * The EXIF Orientation is kept as a minimal EXIF block holding that one tag, so the file still displays upright
 * without re-encoding it (lossless, and no decode of a 10 MB photo at upload time); `width`/`height` reported
 * for it are what a viewer shows (swapped for orientations 5–8). Images that are re-encoded (fit-image.ts) are
 * rotated for real and carry no EXIF.
 */

export interface JpegInfo {
  width: number;
  height: number;
  progressive: boolean;
  /** EXIF Orientation 1–8 (1 when absent or invalid). */
  orientation: number;
  /** Each colour component's sampling factors, as the frame header gives them (4:2:0 colour: [2,2], [1,1], [1,1]). */
  sampling: Array<[h: number, v: number]>;
}

const u16 = (b: Uint8Array, i: number) => ((b[i] as number) << 8) | (b[i + 1] as number);

interface Segment {
  marker: number;
  /** Offset of the 0xFF of the marker. */
  start: number;
  /** Offset just past the segment (for SOS: the start of the entropy-coded data). */
  end: number;
}

/**
 * The marker segments from SOI up to the first SOS (inclusive). `complete` is false when the structure breaks (or
 * the file ends) before an SOS; `segments` then holds what was readable. Null when there is no SOI.
 */
function segments(b: Uint8Array): { segments: Segment[]; complete: boolean } | null {
  if (b[0] !== 0xff || b[1] !== 0xd8) return null;
  const out: Segment[] = [];
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) break;
    const marker = b[i + 1] as number;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    if (marker === 0xd9) break;
    const len = u16(b, i + 2);
    if (len < 2 || i + 2 + len > b.length) break;
    out.push({ marker, start: i, end: i + 2 + len });
    if (marker === 0xda) return { segments: out, complete: true };
    i += 2 + len;
  }
  return { segments: out, complete: false };
}

/** Offset just past the primary image's EOI (FFD9 after the first scan), or the file's end when there is none. */
function primaryImageEnd(b: Uint8Array, from: number): number {
  // In entropy-coded data 0xFF is always followed by 0x00 or a marker, so the first FF D9 is the EOI. What follows
  // it (MPF secondary images, gain maps, vendor trailers) carries metadata of its own and is dropped.
  let i = from;
  for (;;) {
    i = b.indexOf(0xd9, i + 1);
    if (i < 0) return b.length;
    if (b[i - 1] === 0xff) return i + 1;
  }
}

const isSof = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;
const isExif = (b: Uint8Array, s: Segment) =>
  s.marker === 0xe1 &&
  s.end - s.start >= 10 &&
  String.fromCharCode(...b.subarray(s.start + 4, s.start + 10)) === "Exif\0\0";

/** Orientation from an EXIF APP1 segment (TIFF header, IFD0, tag 0x0112); 1 when absent or malformed. */
function exifOrientation(b: Uint8Array, s: Segment): number {
  return tiffOrientation(b, s.start + 10, s.end);
}

/**
 * The Orientation tag (IFD0, 0x0112) of the TIFF structure at `b[tiff..end)` — an EXIF block's payload, as in a
 * JPEG APP1 after "Exif\0\0", a PNG eXIf chunk or a WebP EXIF chunk; 1 when absent or malformed.
 */
export function tiffOrientation(b: Uint8Array, tiff: number, end: number): number {
  if (tiff + 8 > end) return 1;
  const little = b[tiff] === 0x49 && b[tiff + 1] === 0x49;
  if (!little && !(b[tiff] === 0x4d && b[tiff + 1] === 0x4d)) return 1;
  const r16 = (i: number) => (little ? (b[i] as number) | ((b[i + 1] as number) << 8) : u16(b, i));
  const r32 = (i: number) => (little ? r16(i) + r16(i + 2) * 65536 : r16(i) * 65536 + r16(i + 2));
  const ifd = tiff + r32(tiff + 4);
  if (ifd + 2 > end) return 1;
  const count = r16(ifd);
  for (let k = 0; k < count; k++) {
    const e = ifd + 2 + k * 12;
    if (e + 12 > end) return 1;
    if (r16(e) === 0x0112) {
      const v = r16(e + 8);
      return v >= 1 && v <= 8 ? v : 1;
    }
  }
  return 1;
}

/** Frame size, progressive flag and orientation; null when the JPEG's structure is broken. */
export function jpegInfo(b: Uint8Array): JpegInfo | null {
  const segs = segments(b)?.segments;
  if (!segs) return null;
  const sof = segs.find((s) => isSof(s.marker));
  if (!sof || sof.end - sof.start < 9) return null;
  const height = u16(b, sof.start + 5);
  const width = u16(b, sof.start + 7);
  if (!width || !height) return null;
  // Components as far as the segment holds them (a decoder refuses a short or invalid frame; this only reads).
  const sampling: Array<[number, number]> = [];
  for (let at = sof.start + 10; at + 3 <= sof.end && sampling.length < (b[sof.start + 9] as number); at += 3)
    sampling.push([(b[at + 1] as number) >> 4, (b[at + 1] as number) & 15]);
  const exif = segs.find((s) => isExif(b, s));
  return {
    width,
    height,
    progressive: sof.marker === 0xc2 || sof.marker === 0xc6 || sof.marker === 0xca || sof.marker === 0xce,
    orientation: exif ? exifOrientation(b, exif) : 1,
    sampling,
  };
}

/** Orientations 5–8 turn the image a quarter: a viewer shows it with width and height swapped. */
export const swapsAxes = (orientation: number) => orientation >= 5 && orientation <= 8;

/** APP1 EXIF holding only IFD0 with one Orientation tag (big-endian TIFF). */
function orientationExif(orientation: number): Uint8Array {
  // FFE1, length 34: "Exif\0\0", "MM\0*", IFD0 at 8; 1 entry: 0x0112 SHORT ×1 = orientation; next IFD 0.
  return Uint8Array.from([
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
    0x4d,
    0x4d,
    0x00,
    0x2a,
    0x00,
    0x00,
    0x00,
    0x08,
    0x00,
    0x01,
    0x01,
    0x12,
    0x00,
    0x03,
    0x00,
    0x00,
    0x00,
    0x01,
    0x00,
    orientation,
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,
  ]);
}

const KEPT_APPS = new Set([0xe0, 0xe2, 0xee]); // JFIF, ICC profile, Adobe

/**
 * The JPEG without metadata (see the file comment), or the same bytes when there is nothing to drop. Segments
 * after the point where the header structure breaks (if it does) are copied unchanged, like the scan data. Null
 * when there is no SOI.
 */
export function stripJpegMetadata(b: Uint8Array): Uint8Array | null {
  const parsed = segments(b);
  if (!parsed) return null;
  const segs = parsed.segments;
  const exif = segs.find((s) => isExif(b, s));
  const orientation = exif ? exifOrientation(b, exif) : 1;
  const dropped = (s: Segment) =>
    s.marker === 0xfe ||
    (s.marker >= 0xe0 && s.marker <= 0xef && !KEPT_APPS.has(s.marker)) ||
    (s.marker === 0xe2 && String.fromCharCode(...b.subarray(s.start + 4, s.start + 16)) !== "ICC_PROFILE\0");
  const headerEnd = segs.length ? (segs[segs.length - 1] as Segment).end : 2;
  const end = parsed.complete ? primaryImageEnd(b, headerEnd) : b.length;
  if (!segs.some(dropped) && end === b.length) return b;
  const parts: Uint8Array[] = [b.subarray(0, 2)];
  let exifPlaced = orientation === 1;
  for (const s of segs) {
    // The minimal EXIF goes right after JFIF (or first), where readers look for it.
    if (!exifPlaced && s.marker !== 0xe0) {
      parts.push(orientationExif(orientation));
      exifPlaced = true;
    }
    if (!dropped(s)) parts.push(b.subarray(s.start, s.end));
  }
  if (!exifPlaced) parts.push(orientationExif(orientation));
  parts.push(b.subarray(headerEnd, end));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * `jpeg` (as our encoder writes it: no EXIF) with a one-tag EXIF block saying `orientation`, after JFIF: how a PNG
 * or WebP that says it must be turned keeps that when it is stored as JPEG, the same way a JPEG upload does.
 */
export function withOrientationExif(jpeg: Uint8Array, orientation: number): Uint8Array {
  if (orientation <= 1 || orientation > 8) return jpeg;
  const segs = segments(jpeg)?.segments ?? [];
  const at = segs[0]?.marker === 0xe0 ? (segs[0] as Segment).end : 2;
  const exif = orientationExif(orientation);
  const out = new Uint8Array(jpeg.length + exif.length);
  out.set(jpeg.subarray(0, at), 0);
  out.set(exif, at);
  out.set(jpeg.subarray(at), at + exif.length);
  return out;
}

/**
 * Why a JPEG cannot be trusted from its header (issue 25 finding 9), or null when its structure holds: every marker
 * from SOI to EOI is walked, each segment within the file, one frame header (8-bit, 1–4 components, sampling 1–4,
 * its quantization tables defined before the first scan), every scan naming the frame's components, and the
 * entropy-coded data of each scan skipped up to the next marker. Refused: a file that ends before its EOI (cut
 * off); a header that claims more pixels than its data can hold — a Huffman-coded JPEG spends at least one bit on
 * every 8×8 block's DC coefficient, so its scans hold at least blocks ÷ 8 bytes (a 20000×20000 header over 2 KB of
 * data is a lie); no frame, no scan, a second frame, a scan before the frame, a DNL height. The text completes "The
 * media field must be a valid image: …".
 */
export function jpegStructureProblem(b: Uint8Array): string | null {
  if (b[0] !== 0xff || b[1] !== 0xd8) return "it does not start with a JPEG start-of-image marker.";
  const cutOff = "the file ends before its end-of-image marker (it is cut off).";
  let frame: {
    marker: number;
    width: number;
    height: number;
    components: Map<number, [number, number, number]>;
  } | null = null;
  const quantTables = new Set<number>();
  let scans = 0;
  let entropyBytes = 0;
  let i = 2;
  for (;;) {
    if (i + 2 > b.length) return cutOff;
    if (b[i] !== 0xff) return `a marker is missing at byte ${i}.`;
    const marker = b[i + 1] as number;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0xd9) break;
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    if (marker === 0xd8) return "it has a second start-of-image marker.";
    if (i + 4 > b.length) return cutOff;
    const len = u16(b, i + 2);
    if (len < 2) return `a marker segment at byte ${i} has an invalid length.`;
    const end = i + 2 + len;
    if (end > b.length) return cutOff;
    if (isSof(marker)) {
      if (frame) return "it has more than one frame header.";
      if (len < 8) return "its frame header is cut short.";
      const count = b[i + 9] as number;
      if (count < 1 || count > 4 || len !== 8 + 3 * count) return "its frame header has an invalid component list.";
      if (b[i + 4] !== 8) return `it is a ${b[i + 4]}-bit JPEG; only 8-bit JPEGs are supported.`;
      const height = u16(b, i + 5);
      const width = u16(b, i + 7);
      if (height === 0) return "its height is given after the image data (DNL), which is not supported.";
      if (width === 0) return "its frame header gives a width of 0.";
      const components = new Map<number, [number, number, number]>();
      for (let at = i + 10; at < end; at += 3) {
        const h = (b[at + 1] as number) >> 4;
        const v = (b[at + 1] as number) & 15;
        if (h < 1 || h > 4 || v < 1 || v > 4) return "its frame header has invalid sampling factors.";
        components.set(b[at] as number, [h, v, b[at + 2] as number]);
      }
      frame = { marker, width, height, components };
    } else if (marker === 0xdb) {
      for (let at = i + 4; at < end; ) {
        const precision = (b[at] as number) >> 4;
        quantTables.add((b[at] as number) & 15);
        at += 1 + (precision ? 128 : 64);
        if (at > end) return "a quantization table is cut short.";
      }
    } else if (marker === 0xda) {
      if (!frame) return "its image data comes before its frame header.";
      const count = b[i + 4] as number;
      if (count < 1 || count > 4 || len !== 6 + 2 * count) return "a scan header has an invalid component list.";
      for (let k = 0; k < count; k++)
        if (!frame.components.has(b[i + 5 + 2 * k] as number)) return "a scan names a component the frame lacks.";
      if (scans === 0)
        for (const [, , table] of frame.components.values())
          if (!quantTables.has(table)) return `its quantization table ${table} is not defined.`;
      scans++;
      // Entropy-coded data: 0xFF is followed by 0x00 (a stuffed byte) or RSTn inside it; any other marker ends it.
      let j = end;
      while (j < b.length) {
        if (b[j] === 0xff && j + 1 < b.length) {
          const next = b[j + 1] as number;
          if (next === 0x00 || (next >= 0xd0 && next <= 0xd7)) {
            j += 2;
            continue;
          }
          break;
        }
        j++;
      }
      if (j + 1 >= b.length) return cutOff;
      entropyBytes += j - end;
      i = j;
      continue;
    }
    i = end;
  }
  if (!frame) return "it has no frame header.";
  if (scans === 0) return "it has no image data.";
  // Huffman-coded frames (SOF0/1/2): at least one bit per block. Arithmetic coding (SOF9+) can spend less.
  if (frame.marker <= 0xc2 && entropyBytes < Math.ceil(frameBlocks(frame) / 8))
    return `its header says ${frame.width}×${frame.height}, but its image data is too short for that size.`;
  return null;
}

/** 8×8 blocks of a frame, each component at its own sampling (no MCU padding: a lower bound). */
function frameBlocks(frame: { width: number; height: number; components: Map<number, [number, number, number]> }) {
  const factors = [...frame.components.values()];
  const hMax = Math.max(...factors.map(([h]) => h));
  const vMax = Math.max(...factors.map(([, v]) => v));
  let blocks = 0;
  for (const [h, v] of factors)
    blocks += Math.ceil(Math.ceil((frame.width * h) / hMax) / 8) * Math.ceil(Math.ceil((frame.height * v) / vMax) / 8);
  return blocks;
}
