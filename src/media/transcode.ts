/**
 * PNG and WebP → JPEG at quality 100 with the @jsquash codecs. Callers have already checked the header
 * dimensions against MEDIA_MAX_IMAGE_PIXELS, so a decode never allocates more than that budget.
 */
import { decodePng, decodeWebp, encodeJpeg, initCodecs } from "./codecs";
import { encodeInStrips } from "./jpeg-strips";

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
 * mozjpeg at quality 100. Baseline Huffman coding with the standard tables and no trellis passes: the defaults
 * (progressive + optimize_coding) keep every DCT coefficient of the image in the WASM heap and scan it several
 * times, which costs 2–5× the time and ~3 bytes per pixel more memory for a 1–3 % smaller file (bench/RESULTS.md).
 */
export const JPEG_OPTIONS = {
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
  auto_subsample: true,
  chroma_subsample: 2,
  separate_chroma_quality: false,
  chroma_quality: 100,
} as const;

// One decode/encode at a time per isolate: the codecs' heaps are shared, and two 12 MP images side by side would
// not fit the Worker's memory.
let queue: Promise<unknown> = Promise.resolve();
function serialize<T>(fn: () => Promise<T>): Promise<T> {
  const run = queue.then(fn, fn);
  queue = run.catch(() => {});
  return run;
}

export type TranscodeOptions = Partial<typeof JPEG_OPTIONS> & {
  /** Encode in strips stitched with restart markers (default) or the whole image in one call (benchmarks). */
  strips?: boolean;
};

export function transcodeToJpeg(
  mime: "image/png" | "image/webp",
  input: Uint8Array,
  options: TranscodeOptions = {},
): Promise<TranscodeResult> {
  const { strips = true, ...jpeg } = options;
  const encoderOptions = { ...JPEG_OPTIONS, ...jpeg };
  // Strips need identical fixed tables in every strip: baseline without optimised Huffman tables.
  const useStrips = strips && !encoderOptions.progressive && !encoderOptions.optimize_coding;
  return serialize(async () => {
    await initCodecs();
    let image: { data: Uint8ClampedArray; width: number; height: number };
    try {
      const buffer = input.buffer.slice(input.byteOffset, input.byteOffset + input.byteLength) as ArrayBuffer;
      image = mime === "image/png" ? await decodePng(buffer) : await decodeWebp(buffer);
    } catch {
      throw new InvalidImageError();
    }
    if (!image?.width || !image.height) throw new InvalidImageError();
    const { width, height } = image;
    flattenOnWhite(image.data);
    const encode = async (img: { data: Uint8Array | Uint8ClampedArray; width: number; height: number }) =>
      new Uint8Array(await encodeJpeg(img as never, encoderOptions as never));
    const bytes = useStrips
      ? await encodeInStrips(width, height, async (y, count) => image.data.subarray(y * width * 4, (y + count) * width * 4), encode)
      : await encode(image);
    return { bytes, width, height };
  });
}

/** JPEG has no alpha: composite translucent pixels onto white instead of letting their hidden RGB show. */
export function flattenOnWhite(rgba: Uint8ClampedArray | Uint8Array): void {
  for (let i = 3; i < rgba.length; i += 4) {
    const a = rgba[i] as number;
    if (a === 255) continue;
    const inv = 255 - a;
    rgba[i - 3] = ((rgba[i - 3] as number) * a + 255 * inv + 127) / 255;
    rgba[i - 2] = ((rgba[i - 2] as number) * a + 255 * inv + 127) / 255;
    rgba[i - 1] = ((rgba[i - 1] as number) * a + 255 * inv + 127) / 255;
    rgba[i] = 255;
  }
}
