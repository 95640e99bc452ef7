/**
 * JPEG decoding for image fitting (fit-image.ts): libjpeg-turbo's decoder from @cornerstonejs/codec-libjpeg-turbo-8bit
 * (the same library as the encoder), in a copy whose memory starts at 2 MiB (scripts/small-heap-wasm.mjs). The build
 * decodes the whole image into its heap as packed RGB (or grey): it exposes neither DCT scaling nor row-by-row
 * output, so the heap needs the compressed file + 3 bytes per pixel (+ the whole coefficient buffer for progressive
 * JPEGs). `jpegDecodeBytes` estimates that before decoding so callers can refuse instead of growing past the
 * isolate's memory; measured peaks in bench/RESULTS.md ("Fitting images").
 *
 * The heap is dropped after every decode that made it grow past RELEASE_HEAP_BYTES (WebAssembly memories never
 * shrink), like the other codecs.
 */
import factory, { type LibJpegTurboDecode } from "@cornerstonejs/codec-libjpeg-turbo-8bit/decodewasmjs";
import decoderWasm from "./wasm/libjpeg-turbo-dec.wasm?module";

/** Heaps above this are dropped after use (as codecs.ts does for the other codecs). */
const RELEASE_HEAP_BYTES = 24 * 1024 * 1024;

let instance: Promise<LibJpegTurboDecode> | null = null;
let memory: WebAssembly.Memory | null = null;
let peak = 0;

function load(): Promise<LibJpegTurboDecode> {
  if (instance) return instance;
  const g = globalThis as { __dirname?: string };
  const defined = "__dirname" in g;
  if (!defined) g.__dirname = "/"; // the Emscripten glue reads it under nodejs_compat (see jpeg-encoder.ts)
  try {
    instance = factory({
      instantiateWasm: (imports: WebAssembly.Imports, callback: (i: WebAssembly.Instance) => void) => {
        const inst = new WebAssembly.Instance(decoderWasm, imports);
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

export function jpegDecoderHeapBytes(): number {
  return Math.max(peak, memory?.buffer.byteLength ?? 0);
}

export function releaseJpegDecoder(): void {
  peak = jpegDecoderHeapBytes();
  instance = null;
  memory = null;
}

/**
 * Heap a decode of this file needs, estimated from its frame header: file + pixels (3 bytes each) + for
 * progressive JPEGs every DCT coefficient (2 bytes per sample, 4:4:4 assumed as the worst case) + 2 MiB of
 * libjpeg working space.
 */
export function jpegDecodeBytes(fileBytes: number, width: number, height: number, progressive: boolean): number {
  const pixels = width * height;
  return fileBytes + pixels * 3 + (progressive ? pixels * 6 : 0) + 2 * 1024 * 1024;
}

export interface DecodedJpeg {
  width: number;
  height: number;
  /** 1 (grey) or 3 (RGB) bytes per pixel. */
  channels: number;
  /** A view into the decoder's heap: valid until `release()`. */
  pixels: Uint8Array;
  release(): void;
}

/** Decodes a whole JPEG. Throws on corrupt data (the decoder's instance is then discarded). */
export async function decodeJpeg(bytes: Uint8Array): Promise<DecodedJpeg> {
  const lib = await load();
  const decoder = new lib.JPEGDecoder();
  try {
    decoder.getEncodedBuffer(bytes.length).set(bytes);
    decoder.readHeader();
    decoder.decode();
    const frame = decoder.getFrameInfo();
    const pixels = decoder.getDecodedBuffer();
    if (frame.componentCount !== 1 && frame.componentCount !== 3) throw new Error("Unsupported JPEG components.");
    if (pixels.length < frame.width * frame.height * frame.componentCount) throw new Error("Short JPEG decode.");
    return {
      width: frame.width,
      height: frame.height,
      channels: frame.componentCount,
      pixels,
      release() {
        try {
          decoder.delete();
        } catch {}
        if ((memory?.buffer.byteLength ?? 0) > RELEASE_HEAP_BYTES) releaseJpegDecoder();
      },
    };
  } catch (err) {
    try {
      decoder.delete();
    } catch {}
    releaseJpegDecoder(); // never reuse a heap that saw a failure
    throw err;
  }
}
