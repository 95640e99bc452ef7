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
 * bytes are copied out of the heap before the next call can reuse it.
 */
import factory, { type LibJpegTurbo } from "@cornerstonejs/codec-libjpeg-turbo-8bit/wasmjs";
// The package's module with a 2 MiB initial memory (scripts/small-heap-wasm.mjs).
import turboWasm from "./wasm/libjpeg-turbo-enc.wasm?module";

export const TJSAMP_420 = 2;

let instance: Promise<LibJpegTurbo> | null = null;
let memory: WebAssembly.Memory | null = null;
let peak = 0;

function load(): Promise<LibJpegTurbo> {
  if (instance) return instance;
  // The Emscripten glue takes workerd (which has `process.versions.node` under nodejs_compat) for Node and reads
  // `__dirname` while it sets up; it never loads anything from disk because we hand it the compiled module.
  const g = globalThis as { __dirname?: string };
  const defined = "__dirname" in g;
  if (!defined) g.__dirname = "/";
  try {
    instance = factory({
      instantiateWasm: (imports: WebAssembly.Imports, callback: (i: WebAssembly.Instance) => void) => {
        const inst = new WebAssembly.Instance(turboWasm, imports);
        for (const v of Object.values(inst.exports)) if (v instanceof WebAssembly.Memory) memory = v;
        callback(inst);
        return inst.exports;
      },
    });
  } finally {
    if (!defined) delete g.__dirname;
  }
  return instance;
}

/** The largest heap the encoder reached in this isolate. */
export function turboHeapBytes(): number {
  return Math.max(peak, memory?.buffer.byteLength ?? 0);
}

/** Forgets the instance so its memory can be collected (codecs.ts releaseLargeCodecHeaps). */
export function releaseTurbo(): void {
  peak = turboHeapBytes();
  instance = null;
  memory = null;
}

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
  const lib = await load();
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
    releaseTurbo(); // never reuse a heap that saw a failure
    throw err;
  } finally {
    try {
      encoder.delete();
    } catch {}
  }
}
