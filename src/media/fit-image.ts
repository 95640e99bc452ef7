/**
 * Fitting an image to a destination's limits (issue 16): `fitImage` returns the input untouched when it already
 * meets the spec (format, bytes, width, height, pixels), and otherwise a JPEG made to meet it: decoded, turned
 * upright (EXIF orientation), downscaled by area averaging (resample.ts), and encoded by libjpeg-turbo in strips at
 * the highest quality of a short ladder that meets the byte budget, shrinking further when even the ladder's lowest
 * quality is too big.
 *
 * Memory: PNG streams row by row (interlaced in bands) and is never held decoded; JPEG is decoded row by row too,
 * at the smallest DCT scale (M/8) that is still at least the target size (jpeg-decoder.ts), so the decoder's heap
 * holds the file and a few rows — except for progressive JPEGs, whose coefficients libjpeg holds whole: that decode
 * is refused beyond MAX_DECODE_HEAP_BYTES (an estimate from the frame header, checked before decoding). WebP is
 * decoded whole and already bounded at ingest. The downscaled image is kept in JavaScript between the quality
 * ladder's encodes when it is at most KEEP_SCALED_BYTES (always when it must be turned upright: turning needs it
 * whole).
 * Numbers: bench/RESULTS.md ("Fitting images").
 */
import { decodeWebp, releaseLargeCodecHeaps } from "./codecs";
import { jpegDecodeBytes } from "./jpeg-decode-heap";
import { JPEG_DECODER, type JpegRows, openJpeg } from "./jpeg-decoder";
import { jpegInfo, swapsAxes } from "./jpeg-meta";
import { imageOrientation } from "./orientation";
import { openPng } from "./png-stream";
import { orientedRows, readAll, scaleRows } from "./resample";
import { readDimensions } from "./sniff";
import { checkEncodable, encodeRows, InvalidImageError, type RowSource, rgbaRows, serialize } from "./transcode";

export type FitMime = "image/jpeg" | "image/png" | "image/webp" | "image/gif";

export interface FitSpec {
  maxBytes: number;
  maxWidth?: number;
  maxHeight?: number;
  maxPixels?: number;
  /**
   * Formats the destination takes. A re-encoded image is always JPEG, so fitting needs "image/jpeg" here; a GIF
   * (possibly animated) is only ever passed through untouched.
   */
  formats: readonly FitMime[];
}

export interface FitResult {
  bytes: Uint8Array;
  mime: FitMime;
  /** As a viewer sees it (EXIF orientation applied). */
  width: number;
  height: number;
  /** False when `bytes` is the input itself. */
  changed: boolean;
}

/** Why an image cannot be fitted (the caller turns it into a message that names the platform). */
export class FitError extends Error {
  constructor(
    readonly reason: "unsupported" | "invalid" | "too_large_to_decode" | "cannot_reach_budget",
    message: string,
  ) {
    super(message);
    this.name = "FitError";
  }
}

/**
 * Largest WASM heap a JPEG decode may need (jpeg-decode-heap.ts, computed before decoding). 48 MiB admits every
 * 12 MP 4:2:0 progressive phone photo up to the 10 MB upload limit (35 MiB of coefficients + file + rows ≤ 46.3
 * MiB). Measured in workerd (bench/RESULTS.md, "Fitting a 12 MP photo"), two fits in a row of a 12 MP progressive
 * photo peaked at 93 MB of RSS growth (decoder 37.7 MiB), of a 16 MP one (decoder 49.1 MiB) at 114 MB — too
 * close to the isolate's 128 MB (RSS growth ≈ 51 MB for the rest of two fits + the decoder heap). So a 16 MP
 * progressive phone photo (45.6 MiB of coefficients + a file over 1 MB) and a 12 MP 4:4:4 one (70 MiB) are refused.
 * Baseline JPEGs need the file + ≤ 7 MiB at any size.
 */
export const MAX_DECODE_HEAP_BYTES = 48 * 1024 * 1024;

/** Qualities tried in order at one size; below the last, the image is made smaller instead. */
export const QUALITY_LADDER = [85, 75, 65] as const;

/** First guess of bytes per pixel at quality 85 (phone photos measure 0.25–0.45): picks the first size tried. */
const FIRST_GUESS_BYTES_PER_PIXEL = 0.35;
const MAX_ATTEMPTS = 8;

interface Decoded {
  width: number;
  height: number;
  orientation: number;
  /**
   * A fresh reader of the stored (not yet oriented) rows, from the top, at least `minWidth` × `minHeight` (a JPEG
   * is decoded at the smallest DCT scale that is; PNG and WebP at their own size).
   */
  open(minWidth: number, minHeight: number): Promise<RowSource>;
  release(): void;
}

/** Stored size → displayed size. */
const displayed = (w: number, h: number, orientation: number) => (swapsAxes(orientation) ? [h, w] : [w, h]);

/** Display dimensions from the header (no decode); null when unreadable. */
function headerInfo(input: Uint8Array, mime: string): { width: number; height: number; orientation: number } | null {
  if (mime === "image/jpeg") {
    const info = jpegInfo(input);
    if (!info) return null;
    const [width, height] = displayed(info.width, info.height, info.orientation) as [number, number];
    return { width, height, orientation: info.orientation };
  }
  if (mime !== "image/png" && mime !== "image/webp" && mime !== "image/gif") return null;
  const dims = readDimensions(mime, input);
  if (!dims) return null;
  const orientation = imageOrientation(mime, input); // PNG eXIf, WebP EXIF
  const [width, height] = displayed(dims.width, dims.height, orientation) as [number, number];
  return { width, height, orientation };
}

function fitsAsIs(input: Uint8Array, mime: string, w: number, h: number, spec: FitSpec): boolean {
  return (
    (spec.formats as readonly string[]).includes(mime) &&
    input.length <= spec.maxBytes &&
    w <= (spec.maxWidth ?? Infinity) &&
    h <= (spec.maxHeight ?? Infinity) &&
    w * h <= (spec.maxPixels ?? Infinity)
  );
}

/** The largest size (display orientation, same aspect) within the spec's width, height and pixel limits. */
export function targetSize(w: number, h: number, spec: FitSpec, extraPixelCap = Infinity): [number, number] {
  const maxPixels = Math.min(spec.maxPixels ?? Infinity, extraPixelCap);
  const scale = Math.min(
    1,
    (spec.maxWidth ?? Infinity) / w,
    (spec.maxHeight ?? Infinity) / h,
    Math.sqrt(maxPixels / (w * h)),
  );
  return [Math.max(1, Math.floor(w * scale)), Math.max(1, Math.floor(h * scale))];
}

async function decode(
  input: Uint8Array,
  mime: "image/jpeg" | "image/png" | "image/webp",
  orientation: number,
): Promise<Decoded> {
  if (mime === "image/png") {
    let probe: ReturnType<typeof openPng>;
    try {
      probe = openPng(input);
    } catch {
      throw new FitError("invalid", "The image could not be decoded.");
    }
    await probe.close();
    const open: ReturnType<typeof openPng>[] = [];
    return {
      width: probe.width,
      height: probe.height,
      orientation,
      async open() {
        const png = openPng(input);
        open.push(png);
        return png;
      },
      release() {
        for (const png of open) void png.close();
      },
    };
  }
  if (mime === "image/webp") {
    let image: { data: Uint8ClampedArray; width: number; height: number };
    try {
      image = await decodeWebp(input.slice().buffer as ArrayBuffer);
    } catch {
      throw new FitError("invalid", "The image could not be decoded.");
    }
    return {
      width: image.width,
      height: image.height,
      orientation,
      open: async () => rgbaRows(image.data, image.width, image.height),
      release: () => {},
    };
  }
  // Stored size from the frame header; a file libjpeg cannot decode fails at the first open (InvalidImageError).
  const frame = jpegInfo(input);
  if (!frame) throw new FitError("invalid", "The image could not be decoded.");
  let last: JpegRows | null = null;
  return {
    width: frame.width,
    height: frame.height,
    orientation,
    async open(minWidth, minHeight) {
      last?.close();
      last = await openJpeg(input, minWidth, minHeight);
      return last;
    },
    release: () => last?.close(),
  };
}

/** Downscaled images up to this size are kept between the quality ladder's encodes instead of decoded again. */
const KEEP_SCALED_BYTES = 16 * 1024 * 1024;

/**
 * The image at display size `w` × `h`, upright, for one encode each: `next()` hands out a fresh reader. Scaling
 * happens in stored orientation (cheap, streaming); the small result is kept and turned upright as it is read.
 * Only an upright image too large to keep is decoded and scaled again for every encode.
 */
async function sizedImage(image: Decoded, w: number, h: number): Promise<{ next(): Promise<RowSource> }> {
  const [sw, sh] = displayed(w, h, image.orientation) as [number, number];
  const scaled = async () => scaleRows(await image.open(sw, sh), sw, sh);
  if (image.orientation === 1 && sw * sh * 3 > KEEP_SCALED_BYTES) return { next: scaled };
  const pixels = await readAll(await scaled());
  return { next: async () => orientedRows(pixels, sw, sh, image.orientation) };
}

export function fitImage(input: Uint8Array, mime: string, spec: FitSpec): Promise<FitResult> {
  const info = headerInfo(input, mime);
  if (!info) return Promise.reject(new FitError("unsupported", "Only JPEG, PNG, WebP and GIF images can be fitted."));
  if (fitsAsIs(input, mime, info.width, info.height, spec))
    return Promise.resolve({
      bytes: input,
      mime: mime as FitMime,
      width: info.width,
      height: info.height,
      changed: false,
    });
  if (mime === "image/gif")
    return Promise.reject(new FitError("unsupported", "A GIF is never re-encoded (it may be animated)."));
  if (!spec.formats.includes("image/jpeg"))
    return Promise.reject(
      new FitError("unsupported", "The destination takes no JPEG, the format images are fitted to."),
    );
  if (checkEncodable(info.width, info.height))
    return Promise.reject(new FitError("too_large_to_decode", "The image is too large to be fitted."));
  if (mime === "image/jpeg") {
    const frame = jpegInfo(input);
    if (frame && jpegDecodeBytes(input.length, frame) > MAX_DECODE_HEAP_BYTES)
      return Promise.reject(new FitError("too_large_to_decode", "The image is too large to be fitted."));
  }
  // A JPEG fit keeps the decoder's heap for the next JPEG fit; anything else drops it first (wasm-codec.ts).
  const keep = mime === "image/jpeg" ? [JPEG_DECODER] : [];
  return serialize(async () => {
    releaseLargeCodecHeaps(keep);
    const image = await decode(input, mime as "image/jpeg" | "image/png" | "image/webp", info.orientation);
    try {
      let [w, h] = targetSize(info.width, info.height, spec, spec.maxBytes / FIRST_GUESS_BYTES_PER_PIXEL);
      let attempts = 0;
      for (;;) {
        const sized = await sizedImage(image, w, h);
        for (const quality of QUALITY_LADDER) {
          if (++attempts > MAX_ATTEMPTS)
            throw new FitError("cannot_reach_budget", "The image cannot be made small enough.");
          const bytes = await encodeRows(await sized.next(), quality);
          if (bytes.length <= spec.maxBytes)
            return { bytes, mime: "image/jpeg" as const, width: w, height: h, changed: true };
          // Far over budget: a lower quality will not do it, shrink now.
          if (bytes.length > spec.maxBytes * 1.6) {
            const shrink = Math.sqrt((spec.maxBytes / bytes.length) * 0.9);
            [w, h] = [Math.max(1, Math.floor(w * shrink)), Math.max(1, Math.floor(h * shrink))];
            break;
          }
          if (quality === QUALITY_LADDER[QUALITY_LADDER.length - 1]) {
            const shrink = Math.sqrt((spec.maxBytes / bytes.length) * 0.9);
            [w, h] = [Math.max(1, Math.floor(w * shrink)), Math.max(1, Math.floor(h * shrink))];
          }
        }
      }
    } catch (err) {
      if (err instanceof InvalidImageError) throw new FitError("invalid", "The image could not be decoded.");
      throw err;
    } finally {
      image.release();
      releaseLargeCodecHeaps(keep);
    }
  });
}
