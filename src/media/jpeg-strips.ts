/**
 * Encodes a large image as a sequence of horizontal strips and stitches them into ONE baseline JPEG with restart
 * markers, so the encoder's WASM heap holds one strip (≈2 MB of pixels plus its output) instead of the whole image
 * and its output.
 *
 * Why the result is a valid JPEG: every strip but the last is a whole number of MCU rows and all are encoded with
 * the same settings and the same (standard, non-optimised) quantisation and Huffman tables — checked, not assumed.
 * A restart marker resets the DC predictors exactly like the start of a new image, and each strip's entropy-coded
 * data already ends byte-aligned. So the file is: strip 0's headers (frame height patched, a DRI segment of one
 * strip added) + strip 0's scan + RST0 + strip 1's scan + RST1 + … + EOI. Only the last restart interval is
 * shorter, as the standard allows.
 */

import { concatBytes } from "./byte-source";

/** Pixels per strip, roughly: big enough to amortise a codec call, small enough to keep the WASM heap small. */
export const STRIP_TARGET_BYTES = 2 * 1024 * 1024;

interface Parsed {
  /** DQT + DHT segments, byte for byte: must be identical in every strip. */
  tables: string;
  sofOffset: number;
  sosOffset: number;
  scanStart: number;
  scanEnd: number;
  mcuWidth: number;
  mcuHeight: number;
}

function parse(jpeg: Uint8Array): Parsed {
  let tables = "";
  let sofOffset = -1;
  let hMax = 1;
  let vMax = 1;
  let i = 2;
  while (i + 4 <= jpeg.length) {
    if (jpeg[i] !== 0xff) throw new Error("JPEG strips: marker expected");
    const marker = jpeg[i + 1] as number;
    const len = ((jpeg[i + 2] as number) << 8) | (jpeg[i + 3] as number);
    if (marker === 0xc0) {
      sofOffset = i;
      const components = jpeg[i + 9] as number;
      for (let c = 0; c < components; c++) {
        const sampling = jpeg[i + 11 + c * 3] as number;
        hMax = Math.max(hMax, sampling >> 4);
        vMax = Math.max(vMax, sampling & 15);
      }
    } else if (
      (marker >= 0xc1 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) ||
      marker === 0xdd
    ) {
      throw new Error("JPEG strips: only baseline JPEGs without restart markers can be stitched");
    } else if (marker === 0xdb || marker === 0xc4) {
      tables += String.fromCharCode(...jpeg.subarray(i, i + 2 + len));
    } else if (marker === 0xda) {
      if (sofOffset < 0) throw new Error("JPEG strips: no frame header");
      if (jpeg[jpeg.length - 2] !== 0xff || jpeg[jpeg.length - 1] !== 0xd9) throw new Error("JPEG strips: no EOI");
      return {
        tables,
        sofOffset,
        sosOffset: i,
        scanStart: i + 2 + len,
        scanEnd: jpeg.length - 2,
        mcuWidth: 8 * hMax,
        mcuHeight: 8 * vMax,
      };
    }
    i += 2 + len;
  }
  throw new Error("JPEG strips: no scan");
}

/** Rows per strip: a multiple of 16 (the tallest MCU, 2×2 chroma subsampling) near the byte target. */
export function stripRows(width: number, targetBytes = STRIP_TARGET_BYTES): number {
  return Math.max(16, Math.floor(targetBytes / (width * 4) / 16) * 16);
}

/**
 * Encodes `width`×`height` strip by strip and returns one JPEG. `encodeStrip(y, rows)` returns a baseline,
 * single-scan JPEG of those rows, with fixed tables.
 */
export async function encodeInStrips(
  width: number,
  height: number,
  encodeStrip: (y: number, rows: number) => Promise<Uint8Array>,
  targetBytes = STRIP_TARGET_BYTES,
): Promise<Uint8Array> {
  const rowsPerStrip = stripRows(width, targetBytes);
  if (height <= rowsPerStrip) return encodeStrip(0, height);

  const parts: Uint8Array[] = [];
  let first: Parsed | null = null;
  for (let y = 0, n = 0; y < height; y += rowsPerStrip, n++) {
    const count = Math.min(rowsPerStrip, height - y);
    const jpeg = await encodeStrip(y, count);
    const p = parse(jpeg);
    if (!first) {
      first = p;
      if (rowsPerStrip % p.mcuHeight !== 0) throw new Error("JPEG strips: strip is not whole MCU rows");
      const interval = Math.ceil(width / p.mcuWidth) * (rowsPerStrip / p.mcuHeight);
      if (interval > 0xffff) throw new Error("JPEG strips: restart interval does not fit 16 bits");
      parts.push(stitchedHeader(jpeg, p, height, interval));
    } else {
      if (p.tables !== first.tables) throw new Error("JPEG strips: strips were encoded with different tables");
      parts.push(new Uint8Array([0xff, 0xd0 + ((n - 1) % 8)]));
    }
    parts.push(jpeg.slice(p.scanStart, p.scanEnd));
  }
  parts.push(new Uint8Array([0xff, 0xd9]));
  return concatBytes(parts);
}

/** Strip 0's headers up to and including SOS, with the whole image's height and a DRI segment before SOS. */
function stitchedHeader(jpeg: Uint8Array, p: Parsed, height: number, interval: number): Uint8Array {
  const dri = new Uint8Array([0xff, 0xdd, 0x00, 0x04, interval >> 8, interval & 255]);
  const out = new Uint8Array(p.scanStart + dri.length);
  out.set(jpeg.subarray(0, p.sosOffset), 0);
  out[p.sofOffset + 5] = height >> 8;
  out[p.sofOffset + 6] = height & 255;
  out.set(dri, p.sosOffset);
  out.set(jpeg.subarray(p.sosOffset, p.scanStart), p.sosOffset + dri.length);
  return out;
}
