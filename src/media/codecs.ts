/**
 * The @jsquash WASM codecs (PNG and WebP decoding, mozjpeg as the fallback encoder), each initialised on first use
 * from modules bundled with the Worker (workerd cannot fetch `.wasm` at run time). Each codec's WebAssembly memory
 * is captured so benchmarks can report the heap it reached (WASM memories only grow).
 */

import jpegEncWasm from "@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm?module";
import encodeMozjpeg, { init as initJpegEncode } from "@jsquash/jpeg/encode.js";
import pngWasm from "@jsquash/png/codec/pkg/squoosh_png_bg.wasm?module";
import { decode as decodePngWasm, init as initPng } from "@jsquash/png/decode.js";
import webpDecWasm from "@jsquash/webp/codec/dec/webp_dec.wasm?module";
import decodeWebpWasm, { init as initWebpDecode } from "@jsquash/webp/decode.js";
import { turboHeapBytes } from "./jpeg-encoder";

export interface DecodedImage {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}

const memories = new Map<string, WebAssembly.Memory>();

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

const once = <T>(fn: () => Promise<T>) => {
  let p: Promise<T> | null = null;
  return () => (p ??= fn());
};

const pngReady = once(async () => captureMemory("png", (await initPng(pngWasm)) as unknown as WebAssembly.Exports));
const webpReady = once(() => initWebpDecode({ instantiateWasm: instantiateWith("webp_dec", webpDecWasm) } as never));
const mozjpegReady = once(() =>
  initJpegEncode({ instantiateWasm: instantiateWith("mozjpeg_enc", jpegEncWasm) } as never),
);

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

/** Current size of each codec's WebAssembly memory, in bytes (= the peak it reached). */
export function wasmHeapBytes(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, mem] of memories) out[name] = mem.buffer.byteLength;
  const turbo = turboHeapBytes();
  if (turbo) out.libjpeg_turbo = turbo;
  return out;
}
