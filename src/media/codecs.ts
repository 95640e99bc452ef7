/**
 * The @jsquash WASM codecs (WebP decoding; mozjpeg for tiny images; PNG decoding only as the tests' reference), each
 * a slot of the shared loader (wasm-codec.ts: instantiated on first use from modules bundled with the Worker,
 * reused, dropped after use when its heap grew past RELEASE_HEAP_BYTES).
 */

import jpegEncWasm from "@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm?module";
import encodeMozjpeg, { init as initJpegEncode } from "@jsquash/jpeg/encode.js";
import pngWasm from "@jsquash/png/codec/pkg/squoosh_png_bg.wasm?module";
import { decode as decodePngWasm, init as initPng } from "@jsquash/png/decode.js";
import webpDecWasm from "@jsquash/webp/codec/dec/webp_dec.wasm?module";
import decodeWebpWasm, { init as initWebpDecode } from "@jsquash/webp/decode.js";
import { codecSlot, emscripten } from "./wasm-codec";

export { releaseLargeCodecHeaps, wasmHeapBytes } from "./wasm-codec";

export interface DecodedImage {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}

// jsquash's init functions keep the module they made internally; the slot only has to run them again after a release.
const png = codecSlot("png", async (instantiate) =>
  instantiate.capture((await initPng(pngWasm)) as unknown as WebAssembly.Exports),
);
const webp = codecSlot("webp_dec", (instantiate) =>
  emscripten((options) => initWebpDecode(options as never), webpDecWasm)(instantiate),
);
const mozjpeg = codecSlot("mozjpeg_enc", (instantiate) =>
  emscripten((options) => initJpegEncode(options as never), jpegEncWasm)(instantiate),
);

/** @jsquash/png whole-image decode: the reference the tests compare png-stream.ts with (not used in production). */
export async function decodePng(bytes: ArrayBuffer): Promise<DecodedImage> {
  await png.get();
  return decodePngWasm(bytes) as Promise<DecodedImage>;
}

export async function decodeWebp(bytes: ArrayBuffer): Promise<DecodedImage> {
  await webp.get();
  try {
    return (await decodeWebpWasm(bytes)) as DecodedImage;
  } catch (err) {
    webp.release(); // never reuse a heap that saw a failure
    throw err;
  }
}

export async function encodeWithMozjpeg(
  image: DecodedImage | { data: Uint8Array; width: number; height: number },
  options: object,
) {
  await mozjpeg.get();
  return new Uint8Array(await encodeMozjpeg(image as never, options as never));
}
