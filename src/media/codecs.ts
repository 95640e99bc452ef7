/**
 * The @jsquash WASM codecs, initialised once per isolate from modules bundled with the Worker (workerd cannot
 * fetch `.wasm` at run time). Each codec's WebAssembly memory is captured so benchmarks and tests can report the
 * heap each one reached (WASM memories only grow).
 */

import jpegEncWasm from "@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm?module";
import encodeJpeg, { init as initJpegEncode } from "@jsquash/jpeg/encode.js";
import pngWasm from "@jsquash/png/codec/pkg/squoosh_png_bg.wasm?module";
import { decode as decodePng, init as initPng } from "@jsquash/png/decode.js";
import webpDecWasm from "@jsquash/webp/codec/dec/webp_dec.wasm?module";
import decodeWebp, { init as initWebpDecode } from "@jsquash/webp/decode.js";

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

let ready: Promise<void> | null = null;

export function initCodecs(): Promise<void> {
  ready ??= (async () => {
    await initJpegEncode({ instantiateWasm: instantiateWith("mozjpeg_enc", jpegEncWasm) } as never);
    await initWebpDecode({ instantiateWasm: instantiateWith("webp_dec", webpDecWasm) } as never);
    const png = (await initPng(pngWasm)) as unknown as WebAssembly.Exports;
    captureMemory("png", png);
  })();
  return ready;
}

/** Current size of each codec's WebAssembly memory, in bytes (= the peak it reached). */
export function wasmHeapBytes(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, mem] of memories) out[name] = mem.buffer.byteLength;
  return out;
}

export { decodePng, decodeWebp, encodeJpeg };
