/**
 * The WASM heap a JPEG decode (jpeg-decoder.ts) will need, computed from the frame header before decoding, so that
 * fit-image.ts refuses what would not fit instead of finding out with the isolate's memory. No imports: the
 * benchmark (bench/fit/decoder-heap.mjs) runs this very function in Node against measured heaps.
 */

export interface JpegFrame {
  width: number;
  height: number;
  progressive: boolean;
  /** Sampling factors [h, v] per component, from the frame header (jpeg-meta.ts). */
  sampling: ReadonlyArray<readonly [number, number]>;
}

/** Heap a decode needs beyond the file and the coefficients, per column of the image (see `jpegDecodeBytes`). */
const WORKING_BYTES_PER_COLUMN = 96;
const WORKING_BYTES_FIXED = 1024 * 1024;
/** The module's initial memory (scripts/jpeg-decoder/build.sh): no decode takes less. */
const INITIAL_MEMORY_BYTES = 2 * 1024 * 1024;

/**
 * WASM heap a decode of this file needs, from its frame header (measured: bench/RESULTS.md, "Decoder heap"):
 * - the compressed file (copied into the heap);
 * - for a progressive JPEG, libjpeg's whole-image coefficient buffer: per component, its 8×8 blocks (rounded up to
 *   whole MCUs, as jdcoefct.c allocates them) × 64 coefficients × 2 bytes — 3 bytes per pixel for 4:2:0, 4 for
 *   4:2:2, 6 for 4:4:4, 2 for grey. DCT scaling does not shrink it;
 * - working rows: measured 73–84 bytes per output column at widths of 2,000–65,500 (the 16 RGB rows handed out
 *   per call and libjpeg's own row buffers) plus ≤ 0.3 MiB, so 96 bytes per column of the full-size image plus
 *   1 MiB: a bound for any scale.
 * Measured heaps are 0.8–5 MiB under this estimate for every size and subsampling tried (the margin); never less
 * than the module's initial 2 MiB.
 */
export function jpegDecodeBytes(fileBytes: number, frame: JpegFrame): number {
  const working = WORKING_BYTES_FIXED + WORKING_BYTES_PER_COLUMN * frame.width;
  return Math.max(INITIAL_MEMORY_BYTES, fileBytes + working + (frame.progressive ? coefficientBytes(frame) : 0));
}

/**
 * libjpeg's coefficient buffer for a whole frame: 2 bytes × 64 per block; a component sampled h × v of the largest
 * factors has ⌈width·h / (8·hmax)⌉ × ⌈height·v / (8·vmax)⌉ blocks, padded to a multiple of h and v. Factors
 * outside 1–4 (which libjpeg refuses) count as 1; a frame without components counts as 4:4:4 colour.
 */
export function coefficientBytes(frame: Omit<JpegFrame, "progressive">): number {
  const clamp = (n: number) => Math.min(4, Math.max(1, n));
  const factors = frame.sampling.length
    ? frame.sampling.map(([h, v]) => [clamp(h), clamp(v)] as const)
    : ([
        [1, 1],
        [1, 1],
        [1, 1],
      ] as const);
  const hMax = Math.max(...factors.map(([h]) => h));
  const vMax = Math.max(...factors.map(([, v]) => v));
  const roundUp = (n: number, m: number) => Math.ceil(n / m) * m;
  let blocks = 0;
  for (const [h, v] of factors)
    blocks +=
      roundUp(Math.ceil((frame.width * h) / (8 * hMax)), h) * roundUp(Math.ceil((frame.height * v) / (8 * vMax)), v);
  return blocks * 64 * 2;
}
