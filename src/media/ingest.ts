/**
 * The one media pipeline shared by direct upload, import from URL and the signed upload:
 * sniff the type from the first bytes → check the kinds the caller accepts → apply the per-kind cap while
 * streaming → (images) read dimensions from the header, guard the pixel budget, transcode PNG/WebP to JPEG, strip
 * JPEG metadata →
 * store at `medias/<uuid>.<ext>` in R2. Throws MediaRejectedError (a 422 for the caller) for anything the client
 * sent wrong; leaves nothing in R2 when it throws.
 */
import type { MediaKind } from "../catalog/platforms";
import { DECODE_RESERVE_BYTES, type MemoryGate } from "../lib/memory-budget";
import { type ByteSource, peek } from "./byte-source";
import { MAX_DECODE_HEAP_BYTES } from "./fit-image";
import { jpegDecodeBytes } from "./jpeg-decode-heap";
import { jpegInfo, jpegStructureProblem, stripJpegMetadata, swapsAxes, withOrientationExif } from "./jpeg-meta";
import { InvalidVideoError, r2RangeReader, readMp4Info } from "./mp4-info";
import { imageOrientation } from "./orientation";
import { type DetectedType, detectType, readDimensions, SNIFF_BYTES, storedFormat } from "./sniff";
import { putStream, R2_PART_BYTES, readAll, TooLargeError } from "./storage";
import { checkEncodable, InvalidImageError, MAX_JPEG_DIMENSION, transcodeToJpeg } from "./transcode";

export interface IngestLimits {
  imageMaxBytes: number;
  videoMaxBytes: number;
  maxPixels: number;
  /**
   * Lower pixel limit for WebP, the one format decoded whole (its decoded pixels and the codec's working copy both
   * live in the isolate's 128 MB), and for interlaced PNG (inflated once per band). Measured: bench/RESULTS.md,
   * "Hostile images".
   */
  maxFullDecodePixels: number;
  /** Kinds the destination accepts (decisions §8); a detected type outside it is rejected before it is stored. */
  accept: ReadonlySet<MediaKind>;
}

/**
 * Inflated PNG data one image may push through the native inflater. Its output arrives as 4 KB buffers that the
 * garbage collector reclaims late (V8 starts collecting after ≈64 MB of new external memory), so the volume, not
 * only the live memory, drives the isolate's peak: 64 MiB inflated (a 16 MP RGBA PNG) peaked at 95–100 MB of RSS
 * growth, 48 MiB at 79–91 MB, 768 MB at ≈220 MB (bench/RESULTS.md, "Hostile images", "PNG inflate volume").
 * 48 MiB keeps 8-bit RGB at the full 16 MP and lowers 8-bit RGBA to 12.58 MP, with ≥ 37 MB of the isolate's
 * 128 MB to spare instead of 28.
 */
export const MAX_INFLATED_BYTES = 48 * 1024 * 1024;

/** Interlaced PNGs are inflated once per band; bands hold ≤ 8 MiB of RGB, so at most 3 for ≤ 8 MP. */
const INTERLACED_PASSES = 3;

/**
 * The pixel limit for this PNG: MEDIA_MAX_IMAGE_PIXELS, lowered so its rows (at their own bit depth and channel
 * count) inflate to at most MAX_INFLATED_BYTES; interlaced PNGs also take the whole-decode limit and count every
 * band's pass.
 */
/** Bytes per pixel of a PNG's inflated rows, from its IHDR (bit depth × channels; at least 1). */
function pngRawBytesPerPixel(bytes: Uint8Array): number {
  const depth = bytes[24] as number;
  const channels = ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as Record<number, number>)[bytes[25] as number] ?? 4;
  return Math.max(1, (depth * channels) / 8);
}

function pngPixelLimit(bytes: Uint8Array, limits: IngestLimits): number {
  const rawBytesPerPixel = pngRawBytesPerPixel(bytes);
  const interlaced = bytes[28] === 1;
  const passes = interlaced ? INTERLACED_PASSES : 1;
  const byVolume = Math.floor(MAX_INFLATED_BYTES / rawBytesPerPixel / passes);
  const limit = Math.min(limits.maxPixels, byVolume);
  return interlaced ? Math.min(limit, limits.maxFullDecodePixels) : limit;
}

export interface StoredMedia {
  path: string;
  type: MediaKind;
  mimeType: string;
  size: number;
  width: number | null;
  height: number | null;
  /** Videos: from the container (src/media/mp4-info.ts); null for images. */
  durationSeconds: number | null;
  originalFilename: string;
}

export type RejectReason =
  | "missing"
  | "unsupported_type"
  | "not_accepted"
  | "too_large"
  | "invalid_image"
  | "invalid_video"
  | "too_many_pixels"
  | "too_wide"
  | "too_large_to_decode";

export const NOT_ACCEPTED_MESSAGE = "No enabled platform on this post accepts this media type.";

export class MediaRejectedError extends Error {
  constructor(
    readonly reason: RejectReason,
    message: string,
  ) {
    super(message);
    this.name = "MediaRejectedError";
  }
}

const kilobytes = (bytes: number) => Math.floor(bytes / 1024);

export const rejectMessages = {
  missing: () => "The media field is required.",
  unsupported_type: () => "The media field must be a file of type: jpeg, png, gif, webp, mp4, mov.",
  not_accepted: () => NOT_ACCEPTED_MESSAGE,
  too_large: (maxBytes: number) => `The media field must not be greater than ${kilobytes(maxBytes)} kilobytes.`,
  invalid_image: () => "The media field must be a valid image.",
  /** A JPEG whose structure does not hold (jpegStructureProblem): the reason is named. */
  invalid_jpeg: (problem: string) => `The media field must be a valid image: ${problem}`,
  too_large_to_decode: (width: number, height: number, progressive: boolean, bytes: number) =>
    `The media field is a ${progressive ? "progressive " : ""}JPEG of ${width}×${height} pixels that needs ` +
    `${(bytes / 2 ** 20).toFixed(1)} MiB to decode; at most ${MAX_DECODE_HEAP_BYTES / 2 ** 20} MiB can be decoded ` +
    "here, so it could never be fitted to a network's limits. Save it as a baseline (non-progressive) JPEG or smaller.",
  invalid_video: () => "The media field must be a valid video.",
  too_many_pixels: (maxPixels: number) =>
    `The media field has invalid image dimensions: at most ${maxPixels} pixels are supported.`,
  too_wide: () =>
    `The media field has invalid image dimensions: at most ${MAX_JPEG_DIMENSION} pixels per side are supported.`,
};

/** Longest client file name kept (R2 custom metadata and D1 `original_filename`); longer ones are cut. */
export const MAX_FILENAME_CHARS = 255;

/** `name` cut to MAX_FILENAME_CHARS characters (code points, so a surrogate pair is never split). */
export function boundedFilename(name: string): string {
  if (name.length <= MAX_FILENAME_CHARS) return name;
  return Array.from(name).slice(0, MAX_FILENAME_CHARS).join("");
}

const reject = (reason: RejectReason, message: string) => new MediaRejectedError(reason, message);

/** Detects the type from the first bytes of `source`; the returned source still yields every byte. */
export async function sniff(source: ByteSource): Promise<{ detected: DetectedType; source: ByteSource }> {
  const peeked = await peek(source, SNIFF_BYTES);
  const detected = detectType(peeked.head);
  if (!detected) {
    await source.cancel();
    throw reject("unsupported_type", rejectMessages.unsupported_type());
  }
  return { detected, source: peeked.source };
}

/** Bytes read ahead of the budget to size a PNG's or WebP's decode from its header (IHDR, VP8X/VP8/VP8L). */
const HEADER_BYTES = 64;
/** The codecs' own heaps beside the pixels (libjpeg-turbo's strips: ≤ 11.9 MB measured). */
const CODEC_HEAP_BYTES = 12 * 1024 * 1024;
/** A WebP decode per pixel: ≈4 bytes in libwebp + 4 handed to JavaScript + the codec's working copies (measured). */
const WEBP_DECODE_BYTES_PER_PIXEL = 20;

/**
 * A decode's working memory, sized from the header: a PNG's inflated rows twice (the inflater's buffers are reclaimed
 * late), a WebP's pixels at WEBP_DECODE_BYTES_PER_PIXEL, plus the codecs' heaps; at most DECODE_RESERVE_BYTES, and
 * that when the header says nothing.
 */
function decodeReserve(mime: string, head: Uint8Array): number {
  if (mime !== "image/png" && mime !== "image/webp") return 0;
  const dims = readDimensions(mime, head);
  if (!dims) return DECODE_RESERVE_BYTES;
  const perPixel = mime === "image/png" ? 2 * pngRawBytesPerPixel(head) : WEBP_DECODE_BYTES_PER_PIXEL;
  return Math.min(DECODE_RESERVE_BYTES, CODEC_HEAP_BYTES + dims.width * dims.height * perPixel);
}

/**
 * Bytes of the isolate's memory budget (src/lib/memory-budget.ts) one file takes while it is ingested: a video its
 * two R2 part buffers (putStream); an image its bytes twice (read whole, then one copy: the concatenation, the
 * stripped JPEG), cut to the declared size when known, plus a PNG's or WebP's decode (`head`: its first bytes).
 */
export function ingestMemoryCost(
  detected: DetectedType,
  limits: IngestLimits,
  declaredBytes?: number,
  head: Uint8Array = new Uint8Array(0),
): number {
  if (!limits.accept.has(detected.kind)) return 0;
  if (detected.kind === "video") return 2 * R2_PART_BYTES;
  const bytes = Math.min(limits.imageMaxBytes, declaredBytes ?? Number.POSITIVE_INFINITY);
  return 2 * bytes + decodeReserve(detected.mime, head);
}

/**
 * The pipeline under the isolate's memory budget: the type is sniffed (a few bytes), then the file's share is taken
 * before anything is buffered and given back once it is stored or refused. MemoryBusyError when the share is not
 * free in time (the source is cancelled).
 */
export async function ingestMedia(
  bucket: R2Bucket,
  input: ByteSource,
  opts: {
    filename: string;
    limits: IngestLimits;
    detected?: DetectedType;
    /** The budget's gate, and the most bytes the file can have (a Content-Length) when known. */
    memory?: { gate: MemoryGate; declaredBytes?: number };
  },
): Promise<StoredMedia> {
  if (!opts.memory) return ingestSniffed(bucket, input, opts);
  let source = input;
  let detected = opts.detected;
  if (!detected) ({ detected, source } = await sniff(input));
  let head: Uint8Array | undefined;
  if (detected.mime === "image/png" || detected.mime === "image/webp")
    ({ head, source } = await peek(source, HEADER_BYTES));
  const cost = ingestMemoryCost(detected, opts.limits, opts.memory.declaredBytes, head);
  const release = await opts.memory.gate(cost).catch(async (err: unknown) => {
    await source.cancel();
    throw err;
  });
  try {
    return await ingestSniffed(bucket, source, { ...opts, detected });
  } finally {
    release();
  }
}

async function ingestSniffed(
  bucket: R2Bucket,
  input: ByteSource,
  opts: { filename: string; limits: IngestLimits; detected?: DetectedType },
): Promise<StoredMedia> {
  const { limits } = opts;
  const filename = boundedFilename(opts.filename);
  let source = input;
  let detected = opts.detected;
  if (!detected) ({ detected, source } = await sniff(input));
  if (!limits.accept.has(detected.kind)) {
    await source.cancel();
    throw reject("not_accepted", rejectMessages.not_accepted());
  }
  const stored = storedFormat(detected.mime);
  const path = `medias/${crypto.randomUUID()}.${stored.ext}`;
  const customMetadata = { original_filename: filename };
  const base = { path, type: detected.kind, mimeType: stored.mime, originalFilename: filename };

  if (detected.kind === "video") {
    try {
      const { size } = await putStream(bucket, path, source, {
        maxBytes: limits.videoMaxBytes,
        contentType: stored.mime,
        customMetadata,
      });
      return { ...base, size, ...(await videoInfo(bucket, path, size)) };
    } catch (err) {
      if (err instanceof TooLargeError) throw reject("too_large", rejectMessages.too_large(limits.videoMaxBytes));
      throw err;
    }
  }

  let bytes: Uint8Array;
  try {
    bytes = await readAll(source, limits.imageMaxBytes);
  } catch (err) {
    if (err instanceof TooLargeError) throw reject("too_large", rejectMessages.too_large(limits.imageMaxBytes));
    throw err;
  }
  const dims = readDimensions(detected.mime, bytes);
  if (!dims) throw reject("invalid_image", rejectMessages.invalid_image());
  let width = dims.width;
  let height = dims.height;
  if (detected.mime === "image/jpeg") {
    // Not trusted from its header (issue 25 #9): every marker walked, a cut-off file or a size its data cannot
    // hold refused with the reason.
    const problem = jpegStructureProblem(bytes);
    if (problem) throw reject("invalid_image", rejectMessages.invalid_jpeg(problem));
    // Stored without EXIF/XMP/comments (GPS, device); the orientation survives as a one-tag EXIF, and the size
    // reported is what a viewer shows (jpeg-meta.ts).
    bytes = stripJpegMetadata(bytes) ?? bytes;
    const info = jpegInfo(bytes);
    // What fitting at publish would refuse is refused now (issue 29): past libjpeg's side limit, or a decode heap
    // (a progressive JPEG's whole coefficient buffer) past MAX_DECODE_HEAP_BYTES — the same checks as fit-image.ts.
    if (checkEncodable(width, height)) throw reject("too_wide", rejectMessages.too_wide());
    const heap = info ? jpegDecodeBytes(bytes.length, info) : 0;
    if (info && heap > MAX_DECODE_HEAP_BYTES)
      throw reject("too_large_to_decode", rejectMessages.too_large_to_decode(width, height, info.progressive, heap));
    if (swapsAxes(info?.orientation ?? 1)) [width, height] = [height, width];
  }
  if (detected.mime === "image/png" || detected.mime === "image/webp") {
    // Refuse from the header, before touching a decoder: what a JPEG cannot hold (libjpeg's 65,500 per side), and
    // more pixels than the isolate's memory allows (WebP is decoded whole, so its limit is lower).
    if (checkEncodable(width, height)) throw reject("too_wide", rejectMessages.too_wide());
    const limit =
      detected.mime === "image/webp"
        ? Math.min(limits.maxPixels, limits.maxFullDecodePixels)
        : pngPixelLimit(bytes, limits);
    if (width * height > limit) throw reject("too_many_pixels", rejectMessages.too_many_pixels(limit));
    try {
      // An eXIf/EXIF orientation is kept as a one-tag EXIF in the JPEG, as for JPEG uploads (orientation.ts).
      const orientation = imageOrientation(detected.mime, bytes);
      const out = await transcodeToJpeg(detected.mime, bytes);
      bytes = withOrientationExif(out.bytes, orientation);
      [width, height] = swapsAxes(orientation) ? [out.height, out.width] : [out.width, out.height];
    } catch (err) {
      if (err instanceof InvalidImageError) throw reject("invalid_image", rejectMessages.invalid_image());
      throw err;
    }
  }
  await bucket.put(path, bytes, { httpMetadata: { contentType: stored.mime }, customMetadata });
  return { ...base, size: bytes.length, width, height, durationSeconds: null };
}

/**
 * Duration and displayed size from the stored video's container, read by ranges (the `moov` may follow the whole
 * `mdat`). A file that only starts like an MP4/MOV is deleted and refused (422).
 */
async function videoInfo(bucket: R2Bucket, path: string, size: number) {
  try {
    const info = await readMp4Info(r2RangeReader(bucket, path), size);
    return { width: info.width, height: info.height, durationSeconds: info.durationSeconds };
  } catch (err) {
    if (!(err instanceof InvalidVideoError)) throw err;
    await bucket.delete(path);
    throw reject("invalid_video", rejectMessages.invalid_video());
  }
}
