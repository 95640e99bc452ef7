/**
 * PNG and WebP → JPEG at quality 100. Callers have already checked the header dimensions (`checkEncodable` and the
 * pixel limits), so nothing here is asked to decode or encode what the isolate cannot hold.
 *
 * Every image goes through one shape, a `RowSource` (rows of packed RGB on white, read in order), into one encoder:
 * libjpeg-turbo strip by strip, stitched into one baseline JPEG with restart markers (jpeg-strips.ts), so the
 * encoder's heap holds one strip, not the image. PNG rows come from png-stream.ts (native inflate, interlaced PNGs
 * in bands), so a PNG never exists decoded in full. WebP is decoded whole by @jsquash/webp (its only decoder), which
 * is why WebP has a lower pixel limit of its own. Images too small for the turbo build's fixed output buffer go
 * through @jsquash/jpeg's mozjpeg. There is no second path: a file this pipeline cannot take is refused, never
 * retried with a whole-image decoder. Measured peaks behind the limits: bench/RESULTS.md ("Hostile images").
 */
import { log } from "../lib/logger";
import { decodeWebp, encodeWithMozjpeg, releaseLargeCodecHeaps } from "./codecs";
import { encodeTurbo } from "./jpeg-encoder";
import { encodeInStrips, stripRows } from "./jpeg-strips";
import { blend, openPng, PngFormatError } from "./png-stream";

export class InvalidImageError extends Error {
  constructor(message = "Image could not be decoded.") {
    super(message);
    this.name = "InvalidImageError";
  }
}

export interface TranscodeResult {
  bytes: Uint8Array;
  width: number;
  height: number;
}

/**
 * The largest width or height libjpeg (and so libjpeg-turbo) encodes: JPEG_MAX_DIMENSION in jmorecfg.h. The JPEG
 * frame header itself has 16-bit fields (65,535); libjpeg refuses anything above 65,500.
 */
export const MAX_JPEG_DIMENSION = 65_500;

/** Null when a JPEG can hold a width × height image, else why not. */
export function checkEncodable(width: number, height: number): string | null {
  if (width > MAX_JPEG_DIMENSION || height > MAX_JPEG_DIMENSION)
    return `at most ${MAX_JPEG_DIMENSION} pixels per side are supported`;
  return null;
}

/** mozjpeg settings for tiny images: baseline, quality 100, 4:2:0 (the same output shape as the turbo path). */
export const MOZJPEG_OPTIONS = {
  quality: 100,
  baseline: true,
  arithmetic: false,
  progressive: false,
  optimize_coding: false,
  smoothing: 0,
  color_space: 3,
  quant_table: 3,
  trellis_multipass: false,
  trellis_opt_zero: false,
  trellis_opt_table: false,
  trellis_loops: 1,
  auto_subsample: false,
  chroma_subsample: 2,
  separate_chroma_quality: false,
  chroma_quality: 100,
} as const;

/** Below this many pixels the turbo build's fixed output buffer could be smaller than the JPEG headers. */
export const TURBO_MIN_PIXELS = 65_536;

/** Rows of packed RGB (alpha already composited on white), read top to bottom. */
export interface RowSource {
  width: number;
  height: number;
  /** Fills `out` with the next `rows` rows (3 × width bytes each). */
  readRows(rows: number, out: Uint8Array): Promise<void>;
}

// One decode/encode at a time per isolate: two large images side by side would not fit the Worker's memory.
let queue: Promise<unknown> = Promise.resolve();
export function serialize<T>(fn: () => Promise<T>): Promise<T> {
  const run = queue.then(fn, fn);
  queue = run.catch(() => {});
  return run;
}

export function transcodeToJpeg(mime: "image/png" | "image/webp", input: Uint8Array): Promise<TranscodeResult> {
  return serialize(async () => {
    releaseLargeCodecHeaps(); // a JPEG decoder kept by the last fit (wasm-codec.ts)
    try {
      return await withDecodedRows(mime, input, async (rows) => ({
        bytes: await encodeRows(rows, 100),
        width: rows.width,
        height: rows.height,
      }));
    } finally {
      releaseLargeCodecHeaps();
    }
  });
}

/**
 * Opens `input` as a RowSource for `use`. InvalidImageError for anything undecodable or truncated, and for any
 * failure inside the codecs (logged): the file is refused, not retried another way.
 */
export async function withDecodedRows<T>(
  mime: "image/png" | "image/webp",
  input: Uint8Array,
  use: (rows: RowSource) => Promise<T>,
): Promise<T> {
  if (mime === "image/png") {
    let png: ReturnType<typeof openPng>;
    try {
      png = openPng(input);
    } catch {
      throw new InvalidImageError();
    }
    if (checkEncodable(png.width, png.height)) {
      await png.close();
      throw new InvalidImageError();
    }
    try {
      return await use(png);
    } catch (err) {
      if (err instanceof InvalidImageError) throw err;
      if (!(err instanceof PngFormatError)) log("warn", "png_transcode_failed", { error: String(err) });
      throw new InvalidImageError();
    } finally {
      await png.close();
    }
  }
  let image: { data: Uint8ClampedArray; width: number; height: number };
  try {
    const buffer = input.buffer.slice(input.byteOffset, input.byteOffset + input.byteLength) as ArrayBuffer;
    image = await decodeWebp(buffer);
  } catch {
    throw new InvalidImageError();
  }
  if (!image?.width || !image.height || checkEncodable(image.width, image.height)) throw new InvalidImageError();
  try {
    return await use(rgbaRows(image.data, image.width, image.height));
  } catch (err) {
    if (err instanceof InvalidImageError) throw err;
    log("warn", "webp_transcode_failed", { error: String(err) });
    throw new InvalidImageError();
  }
}

/** A RowSource over decoded RGBA pixels (alpha composited on white as rows are read). */
export function rgbaRows(rgba: Uint8ClampedArray | Uint8Array, width: number, height: number): RowSource {
  let y = 0;
  return {
    width,
    height,
    async readRows(rows, out) {
      const start = y * width * 4;
      const pixels = width * rows;
      for (let i = 0, s = start, d = 0; i < pixels; i++, s += 4, d += 3) {
        const a = rgba[s + 3] as number;
        if (a === 255) {
          out[d] = rgba[s] as number;
          out[d + 1] = rgba[s + 1] as number;
          out[d + 2] = rgba[s + 2] as number;
        } else {
          out[d] = blend(rgba[s] as number, a);
          out[d + 1] = blend(rgba[s + 1] as number, a);
          out[d + 2] = blend(rgba[s + 2] as number, a);
        }
      }
      y += rows;
    },
  };
}

/**
 * Encodes every row of `source` as one baseline 4:2:0 JPEG at `quality`: libjpeg-turbo in stitched strips, or
 * mozjpeg (whole, tiny) below TURBO_MIN_PIXELS.
 */
export async function encodeRows(source: RowSource, quality: number): Promise<Uint8Array> {
  const { width, height } = source;
  const problem = checkEncodable(width, height);
  if (problem) throw new InvalidImageError(problem);
  if (width * height < TURBO_MIN_PIXELS) {
    const rgb = new Uint8Array(width * height * 3);
    await source.readRows(height, rgb);
    const rgba = new Uint8Array(width * height * 4);
    for (let i = 0, s = 0, d = 0; i < width * height; i++, s += 3, d += 4) {
      rgba[d] = rgb[s] as number;
      rgba[d + 1] = rgb[s + 1] as number;
      rgba[d + 2] = rgb[s + 2] as number;
      rgba[d + 3] = 255;
    }
    return encodeWithMozjpeg({ data: rgba, width, height }, { ...MOZJPEG_OPTIONS, quality, chroma_quality: quality });
  }
  const strip = new Uint8Array(Math.min(height, stripRows(width)) * width * 3);
  return encodeInStrips(width, height, async (_y, rows) => {
    const rgb = strip.subarray(0, rows * width * 3);
    await source.readRows(rows, rgb);
    return encodeTurbo(width, rows, (into) => into.set(rgb), quality);
  });
}

/** Composites RGBA pixels onto white in place (JPEG has no alpha). Kept for tests that compare with jsquash. */
export function flattenOnWhite(rgba: Uint8ClampedArray | Uint8Array): void {
  for (let i = 3; i < rgba.length; i += 4) {
    const a = rgba[i] as number;
    if (a === 255) continue;
    rgba[i - 3] = blend(rgba[i - 3] as number, a);
    rgba[i - 2] = blend(rgba[i - 2] as number, a);
    rgba[i - 1] = blend(rgba[i - 1] as number, a);
    rgba[i] = 255;
  }
}
