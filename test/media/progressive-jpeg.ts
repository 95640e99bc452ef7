import factory from "@cornerstonejs/codec-libjpeg-turbo-8bit/wasmjs";
import { TJSAMP_420 } from "../../src/media/jpeg-encoder";
import { withOrientationExif } from "../../src/media/jpeg-meta";
import turboWasm from "../../src/media/wasm/libjpeg-turbo-enc.wasm?module";
import { emscripten } from "../../src/media/wasm-codec";

/**
 * A progressive 4:2:0 JPEG as a phone writes it (the production encoder only writes baseline strips): libjpeg-turbo's
 * TurboJPEG with progressive on, in an instance of its own that is dropped afterwards (the whole-image encode needs
 * ≈ 135 MiB of heap at 12 MP, which the codec the pipeline reuses must never keep). Pixels are a photo-like pattern
 * with fine detail, so the file is phone-sized (several MB), and `orientation` is written as an EXIF tag.
 */
export async function progressivePhoto(width: number, height: number, quality = 95, orientation = 1) {
  const instantiate = Object.assign((m: WebAssembly.Module, i: WebAssembly.Imports) => new WebAssembly.Instance(m, i), {
    capture() {},
  });
  const lib = await emscripten(factory, turboWasm)(instantiate);
  const encoder = new lib.JPEGEncoder();
  try {
    const input = encoder.getDecodedBuffer({ width, height, bitsPerSample: 8, componentCount: 3, isSigned: false });
    for (let y = 0, i = 0; y < height; y++)
      for (let x = 0; x < width; x++, i += 3) {
        input[i] = (128 + 100 * Math.sin(x / 37) * Math.cos(y / 53)) | 0;
        input[i + 1] = (128 + 90 * Math.sin((x + y) / 71)) | 0;
        input[i + 2] = ((x * 13) ^ (y * 7)) & 255;
      }
    encoder.setQuality(quality);
    encoder.setProgressive(1);
    encoder.setSubSampling(TJSAMP_420);
    encoder.encode();
    const out = encoder.getEncodedBuffer();
    return withOrientationExif(new Uint8Array(out.buffer, out.byteOffset, out.byteLength).slice(), orientation);
  } finally {
    encoder.delete();
  }
}
