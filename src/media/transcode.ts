/**
 * PNG and WebP → JPEG at quality 100. Callers have already checked the header dimensions against
 * MEDIA_MAX_IMAGE_PIXELS, so a decode never allocates more than that budget.
 *
 * PNG: decoded row by row (png-stream.ts, native inflate) straight into the encoder. WebP, interlaced and tiny PNGs:
 * @jsquash/webp / @jsquash/png. Encoding: libjpeg-turbo (jpeg-encoder.ts) strip by strip, stitched into
 * one baseline JPEG with restart markers (jpeg-strips.ts), so the encoder's heap holds one strip, not the image;
 * 4:2:0 chroma, standard Huffman tables. Tiny images, and any image the turbo path fails on, go through
 * @jsquash/jpeg's mozjpeg (whole image) instead. Numbers behind these choices: bench/RESULTS.md.
 */
import { log } from "../lib/logger";
import { type DecodedImage, decodePng, decodeWebp, encodeWithMozjpeg } from "./codecs";
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

/** mozjpeg settings for the fallback path (and the benchmark's comparison): baseline, quality 100, 4:2:0. */
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

export type TranscodeOptions = Partial<Record<keyof typeof MOZJPEG_OPTIONS, number | boolean>> & {
  /** `turbo` (default) or `mozjpeg` (benchmarks). */
  encoder?: "turbo" | "mozjpeg";
  /** Ignored; kept so old benchmark option sets still parse. */
  strips?: boolean;
};

// One decode/encode at a time per isolate: two large images side by side would not fit the Worker's memory.
let queue: Promise<unknown> = Promise.resolve();
function serialize<T>(fn: () => Promise<T>): Promise<T> {
  const run = queue.then(fn, fn);
  queue = run.catch(() => {});
  return run;
}

export function transcodeToJpeg(
  mime: "image/png" | "image/webp",
  input: Uint8Array,
  options: TranscodeOptions = {},
): Promise<TranscodeResult> {
  return serialize(async () => {
    const turbo = (options.encoder ?? "turbo") === "turbo";
    if (mime === "image/png" && turbo) {
      const streamed = await streamPngToJpeg(input);
      if (streamed) return streamed;
    }
    let image: DecodedImage;
    try {
      const buffer = input.buffer.slice(input.byteOffset, input.byteOffset + input.byteLength) as ArrayBuffer;
      image = mime === "image/png" ? await decodePng(buffer) : await decodeWebp(buffer);
    } catch {
      throw new InvalidImageError();
    }
    if (!image?.width || !image.height) throw new InvalidImageError();
    const { width, height } = image;
    flattenOnWhite(image.data);
    if (turbo && width * height >= TURBO_MIN_PIXELS) {
      try {
        const bytes = await encodeInStrips(width, height, (y, rows) =>
          encodeTurbo(width, rows, (rgb) => rgbaRowsToRgb(image.data, width, y, rows, rgb)),
        );
        return { bytes, width, height };
      } catch (err) {
        log("warn", "jpeg_turbo_failed", { error: String(err), width, height });
      }
    }
    return { bytes: await encodeMozjpeg(image, options), width, height };
  });
}

/**
 * The PNG fast path: rows inflated and unfiltered on the fly (png-stream.ts) straight into libjpeg-turbo strips, so
 * neither the decoded image nor the encoder ever holds more than one strip. Null when the PNG needs the general
 * path (interlaced, tiny) or the turbo encoder failed; InvalidImageError for a corrupt or truncated file.
 */
async function streamPngToJpeg(input: Uint8Array): Promise<TranscodeResult | null> {
  let png: ReturnType<typeof openPng>;
  try {
    png = openPng(input);
  } catch {
    throw new InvalidImageError();
  }
  if (!png) return null;
  const { width, height } = png;
  if (width * height < TURBO_MIN_PIXELS) {
    await png.close();
    return null;
  }
  const strip = new Uint8Array(Math.min(height, stripRows(width)) * width * 3);
  try {
    const bytes = await encodeInStrips(width, height, async (_y, rows) => {
      const rgb = strip.subarray(0, rows * width * 3);
      await png.readRows(rows, rgb);
      return encodeTurbo(width, rows, (into) => into.set(rgb));
    });
    return { bytes, width, height };
  } catch (err) {
    if (err instanceof PngFormatError) throw new InvalidImageError();
    log("warn", "png_stream_transcode_failed", { error: String(err), width, height });
    return null;
  } finally {
    await png.close();
  }
}

/** Whole-image mozjpeg (its Huffman tables are always optimised, so its strips could not be stitched). */
async function encodeMozjpeg(image: DecodedImage, options: TranscodeOptions): Promise<Uint8Array> {
  const { encoder: _e, strips: _s, ...overrides } = options;
  return encodeWithMozjpeg(image, { ...MOZJPEG_OPTIONS, ...overrides });
}

/** Packs `rows` RGBA rows starting at `y` into `rgb` (3 bytes per pixel). */
function rgbaRowsToRgb(rgba: Uint8ClampedArray, width: number, y: number, rows: number, rgb: Uint8Array): void {
  const start = y * width * 4;
  const pixels = width * rows;
  for (let i = 0, s = start, d = 0; i < pixels; i++, s += 4, d += 3) {
    rgb[d] = rgba[s] as number;
    rgb[d + 1] = rgba[s + 1] as number;
    rgb[d + 2] = rgba[s + 2] as number;
  }
}

/** JPEG has no alpha: composite translucent pixels onto white instead of letting their hidden RGB show. */
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
