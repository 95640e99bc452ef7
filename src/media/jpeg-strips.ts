/**
 * Encodes a large image as a sequence of horizontal strips and stitches them into ONE baseline JPEG with restart
 * markers, so the encoder's WASM heap holds one strip (≈2 MB of pixels plus its output) instead of the whole image,
 * its DCT coefficients and its output.
 *
 * Why the result is a valid JPEG: every strip is a whole number of MCU rows, encoded with the same settings, so all
 * strips share the same frame layout and quantisation tables. mozjpeg optimises Huffman tables per strip, so each
 * strip's scan is re-coded to the standard Annex K tables (jpeg-recode.ts) — coefficients untouched. A restart
 * marker resets the DC predictors exactly like the start of a new image and each strip's data ends byte-aligned,
 * so the file is: headers (frame height patched, standard DHT, DRI = one strip) + strip 0's scan + RST0 + strip 1's
 * scan + RST1 + … + EOI. Only the last restart interval may be shorter, as the standard allows.
 */
import { parseScanLayout, recodeScan, standardDhtSegment } from "./jpeg-recode";

export interface RgbaImage {
  data: Uint8Array | Uint8ClampedArray;
  width: number;
  height: number;
}

export type EncodeFn = (image: RgbaImage) => Promise<Uint8Array>;

/** Pixels per strip, roughly: big enough to amortise a codec call, small enough to keep the WASM heap small. */
export const STRIP_TARGET_BYTES = 2 * 1024 * 1024;

/**
 * Encodes `width`×`height` strip by strip with `encode` (baseline, single interleaved scan) and returns one JPEG.
 * `rows(y, count)` supplies RGBA rows on demand, so callers may produce them lazily.
 */
export async function encodeInStrips(
  width: number,
  height: number,
  rows: (y: number, count: number) => Promise<Uint8Array | Uint8ClampedArray>,
  encode: EncodeFn,
  targetBytes = STRIP_TARGET_BYTES,
): Promise<Uint8Array> {
  // MCU height is 16 at most (2×2 chroma subsampling); strips are multiples of 16 rows.
  const rowsPerStrip = Math.max(16, Math.floor(targetBytes / (width * 4) / 16) * 16);
  if (height <= rowsPerStrip) return encode({ data: await rows(0, height), width, height });

  const parts: Uint8Array[] = [];
  for (let y = 0, n = 0; y < height; y += rowsPerStrip, n++) {
    const count = Math.min(rowsPerStrip, height - y);
    const jpeg = await encode({ data: await rows(y, count), width, height: count });
    const layout = parseScanLayout(jpeg);
    if (n === 0) {
      const vMax = Math.max(...layout.components.map((c) => c.v));
      const hMax = Math.max(...layout.components.map((c) => c.h));
      const interval = Math.ceil(width / (8 * hMax)) * (rowsPerStrip / (8 * vMax));
      if (interval > 0xffff) throw new Error("JPEG strips: restart interval does not fit 16 bits");
      parts.push(stitchedHeader(jpeg, layout.sosOffset, height, interval));
    } else {
      parts.push(new Uint8Array([0xff, 0xd0 + ((n - 1) % 8)]));
    }
    parts.push(recodeScan(jpeg, layout));
  }
  parts.push(new Uint8Array([0xff, 0xd9]));
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * The first strip's headers with the frame height set to the whole image, its own Huffman tables replaced by the
 * standard ones (component 0 → tables 0, the others → tables 1) and a DRI segment before the SOS segment.
 */
function stitchedHeader(jpeg: Uint8Array, sosOffset: number, height: number, interval: number): Uint8Array {
  const segments: Uint8Array[] = [jpeg.subarray(0, 2)];
  let i = 2;
  while (i < sosOffset) {
    const marker = jpeg[i + 1] as number;
    const len = ((jpeg[i + 2] as number) << 8) | (jpeg[i + 3] as number);
    const seg = jpeg.slice(i, i + 2 + len);
    if (marker === 0xc0 || marker === 0xc1) {
      seg[5] = height >> 8;
      seg[6] = height & 255;
    }
    if (marker !== 0xc4 && marker !== 0xdd) segments.push(seg);
    i += 2 + len;
  }
  segments.push(standardDhtSegment());
  segments.push(new Uint8Array([0xff, 0xdd, 0x00, 0x04, interval >> 8, interval & 255]));
  const sosLen = ((jpeg[sosOffset + 2] as number) << 8) | (jpeg[sosOffset + 3] as number);
  const sos = jpeg.slice(sosOffset, sosOffset + 2 + sosLen);
  const n = sos[4] as number;
  for (let c = 0; c < n; c++) sos[6 + c * 2] = c === 0 ? 0x00 : 0x11;
  segments.push(sos);
  const out = new Uint8Array(segments.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const s of segments) {
    out.set(s, at);
    at += s.length;
  }
  return out;
}
