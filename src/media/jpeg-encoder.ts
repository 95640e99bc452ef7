/**
 * The JPEG encoder used for PNG/WebP → JPEG: libjpeg-turbo (TurboJPEG API, WebAssembly build from
 * @cornerstonejs/codec-libjpeg-turbo-8bit). Chosen over @jsquash/jpeg's mozjpeg because mozjpeg always runs trellis
 * quantisation (not switchable through jsquash's options), which made a quality-100 encode 10–16× slower, and always
 * optimises Huffman tables, which needs the whole image's coefficients in memory (bench/RESULTS.md).
 * libjpeg-turbo writes baseline JPEGs with the standard Huffman tables, so separately encoded strips share their
 * tables and stitch into one scan (jpeg-strips.ts).
 *
 * Guard rails: the build writes into an output buffer the size of its input (TJFLAG_NOREALLOC). Strips are
 * announced as 4 bytes per pixel (RGB rows fill the first 3/4) so the output may reach 4 bytes per pixel — uniform
 * noise at quality 100 with 4:2:0 needs ≈ 2 — and any failure discards the instance (its heap is not trusted again)
 * and the file is refused (never retried with a whole-image encoder).
 *
 * Heap: the module is a copy whose memory starts at 2 MiB instead of the build's fixed 50 MiB
 * (scripts/small-heap-wasm.mjs); it grows to ≈ one strip's input + output + libjpeg's working rows. The encoded
 * bytes are copied out of the heap before the next call can reuse it. The instance is kept between encodes
 * (wasm-codec.ts, the loader shared with the decoder).
 */
import factory, { type LibJpegTurbo } from "@cornerstonejs/codec-libjpeg-turbo-8bit/wasmjs";
// The package's module with a 2 MiB initial memory (scripts/small-heap-wasm.mjs).
import turboWasm from "./wasm/libjpeg-turbo-enc.wasm?module";
import { codecSlot, emscripten } from "./wasm-codec";

export const TJSAMP_420 = 2;

/** The encoder's instance, kept and reused across encodes (wasm-codec.ts). */
const turbo = codecSlot<LibJpegTurbo>("libjpeg_turbo", emscripten(factory, turboWasm));

/**
 * Encodes `height` rows of RGB pixels (alpha already flattened) as a baseline JPEG, 4:2:0, standard tables.
 * `fill(rgb)` writes the rows as packed RGB into the encoder's own input buffer (no intermediate copy).
 */
export async function encodeTurbo(
  width: number,
  height: number,
  fill: (rgb: Uint8Array) => void,
  quality = 100,
): Promise<Uint8Array> {
  const lib = await turbo.get();
  const encoder = new lib.JPEGEncoder();
  try {
    // componentCount 4 sizes both buffers at 4 bytes/pixel; the encoder reads packed RGB (3 bytes) from the start.
    const input = encoder.getDecodedBuffer({ width, height, bitsPerSample: 8, componentCount: 4, isSigned: false });
    fill(input.subarray(0, width * height * 3));
    encoder.setQuality(quality);
    encoder.setProgressive(0);
    encoder.setSubSampling(TJSAMP_420);
    encoder.encode();
    const out = encoder.getEncodedBuffer();
    // A copy: the view points into the heap, which the next encode reuses.
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength).slice();
  } catch (err) {
    turbo.release(); // never reuse a heap that saw a failure
    throw err;
  } finally {
    try {
      encoder.delete();
    } catch {}
  }
}
