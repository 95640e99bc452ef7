/**
 * The @jsquash WASM codecs (WebP decoding; mozjpeg for tiny images; PNG decoding only as the tests' reference),
 * each initialised on first use from modules bundled with the Worker (workerd cannot fetch `.wasm` at run time).
 * Each codec's WebAssembly memory is captured so benchmarks can report the heap it reached.
 *
 * A WebAssembly memory never shrinks: after one large decode the module would keep that heap for the isolate's
 * life, and the heaps of several codecs would add up. `releaseLargeCodecHeaps()` (called after every transcode)
 * drops any instance whose heap grew past RELEASE_HEAP_BYTES so the garbage collector can take the memory back;
 * the next call instantiates the already compiled module again (≈1 ms).
 */

import jpegEncWasm from "@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm?module";
import encodeMozjpeg, { init as initJpegEncode } from "@jsquash/jpeg/encode.js";
import pngWasm from "@jsquash/png/codec/pkg/squoosh_png_bg.wasm?module";
import { decode as decodePngWasm, init as initPng } from "@jsquash/png/decode.js";
import webpDecWasm from "@jsquash/webp/codec/dec/webp_dec.wasm?module";
import decodeWebpWasm, { init as initWebpDecode } from "@jsquash/webp/decode.js";
import { jpegDecoderHeapBytes } from "./jpeg-decoder";
import { releaseTurbo, turboHeapBytes } from "./jpeg-encoder";

export interface DecodedImage {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}

const memories = new Map<string, WebAssembly.Memory>();
/** Largest heap each codec reached before its instance was released (for the benchmarks). */
const peaks = new Map<string, number>();

function captureMemory(name: string, exports: WebAssembly.Exports): void {
  for (const value of Object.values(exports)) {
    if (value instanceof WebAssembly.Memory) memories.set(name, value);
  }
}

/** Emscripten hook: instantiate from our bundled module and remember its memory. */
const instantiateWith =
  (name: string, module: WebAssembly.Module) =>
  (imports: WebAssembly.Imports, callback: (instance: WebAssembly.Instance) => void) => {
    const instance = new WebAssembly.Instance(module, imports);
    captureMemory(name, instance.exports);
    callback(instance);
    return instance.exports;
  };

/** Memoised async initialiser with a `reset` that forgets the instance (and its memory). */
const resettable = <T>(name: string, fn: () => Promise<T>) => {
  let p: Promise<T> | null = null;
  const ready = () => (p ??= fn());
  ready.reset = () => {
    p = null;
    const size = memories.get(name)?.buffer.byteLength ?? 0;
    peaks.set(name, Math.max(peaks.get(name) ?? 0, size));
    memories.delete(name);
  };
  return ready;
};

/** Heaps above this are dropped after use (see the file comment). */
export const RELEASE_HEAP_BYTES = 24 * 1024 * 1024;

const pngReady = resettable("png", async () =>
  captureMemory("png", (await initPng(pngWasm)) as unknown as WebAssembly.Exports),
);
const webpReady = resettable("webp_dec", () =>
  initWebpDecode({ instantiateWasm: instantiateWith("webp_dec", webpDecWasm) } as never),
);
const mozjpegReady = resettable("mozjpeg_enc", () =>
  initJpegEncode({ instantiateWasm: instantiateWith("mozjpeg_enc", jpegEncWasm) } as never),
);
const resets: Record<string, () => void> = {
  png: pngReady.reset,
  webp_dec: webpReady.reset,
  mozjpeg_enc: mozjpegReady.reset,
};

/** Drops every codec instance whose heap grew past RELEASE_HEAP_BYTES. */
export function releaseLargeCodecHeaps(): void {
  for (const [name, mem] of memories) if (mem.buffer.byteLength > RELEASE_HEAP_BYTES) resets[name]?.();
  if (turboHeapBytes() > RELEASE_HEAP_BYTES) releaseTurbo();
}

/** @jsquash/png whole-image decode: the reference the tests compare png-stream.ts with (not used in production). */
export async function decodePng(bytes: ArrayBuffer): Promise<DecodedImage> {
  await pngReady();
  return decodePngWasm(bytes) as Promise<DecodedImage>;
}

export async function decodeWebp(bytes: ArrayBuffer): Promise<DecodedImage> {
  await webpReady();
  return decodeWebpWasm(bytes) as Promise<DecodedImage>;
}

export async function encodeWithMozjpeg(
  image: DecodedImage | { data: Uint8Array; width: number; height: number },
  options: object,
) {
  await mozjpegReady();
  return new Uint8Array(await encodeMozjpeg(image as never, options as never));
}

/** The largest WebAssembly memory each codec reached in this isolate, in bytes (memories only grow until released). */
export function wasmHeapBytes(): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries(peaks);
  for (const [name, mem] of memories) out[name] = Math.max(out[name] ?? 0, mem.buffer.byteLength);
  const turbo = turboHeapBytes();
  if (turbo) out.libjpeg_turbo = turbo;
  const decoder = jpegDecoderHeapBytes();
  if (decoder) out.libjpeg_turbo_decoder = decoder;
  return out;
}
