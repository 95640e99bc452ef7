/**
 * JPEG decoding for image fitting (fit-image.ts): libjpeg-turbo 3.2 built for WebAssembly by this project
 * (scripts/jpeg-decoder: the libjpeg API behind a few exports), because no packaged build exposes what a downscale
 * needs:
 * - **DCT scaling** (scale_num/8): a 12 MP photo fitted to 3 MP is decoded at 1/2, as libvips' shrink-on-load does
 *   (3–4× less work than a full decode followed by a 4:1 average, and the output matches a full decode pixel for
 *   pixel at 8/8);
 * - **rows out a few at a time**: the heap holds the compressed file and libjpeg's working rows, never the decoded
 *   image — ≈ file + 0.3 MiB for a 12 MP baseline JPEG (more for very wide ones). A progressive JPEG also needs
 *   libjpeg's whole coefficient buffer (2 bytes per sample: 36 MiB for a 12 MP 4:2:0 phone photo), so
 *   `jpegDecodeBytes` (jpeg-decode-heap.ts) computes the heap from the frame header and callers refuse before
 *   decoding what would not fit.
 * The instance is kept and reused across decodes (wasm-codec.ts); one decode at a time (its state is static, and
 * fits are serialized per isolate). Any libjpeg error or warning (corrupt or truncated data) refuses the image
 * (InvalidImageError) and drops the instance.
 */
import { InvalidImageError, type RowSource } from "./transcode";
import decoderWasm from "./wasm/jpeg-decoder.wasm?module";
import { codecSlot } from "./wasm-codec";

interface DecoderExports {
  memory: WebAssembly.Memory;
  dec_reset(): void;
  dec_input(length: number): number;
  dec_header(length: number): number;
  dec_image_width(): number;
  dec_image_height(): number;
  dec_begin(scaleNum: number): number;
  dec_width(): number;
  dec_height(): number;
  dec_components(): number;
  dec_warnings(): number;
  dec_read(rows: number): number;
  dec_got(): number;
}

class JpegDecodeError extends Error {}

/** WASI calls libc may link (getenv, stderr): answered as "nothing here"; libjpeg's messages are not printed. */
const EBADF = 8;
/** The decoder's codec slot name (fit-image.ts keeps this heap between JPEG fits). */
export const JPEG_DECODER = "libjpeg_turbo_decoder";
const decoder = codecSlot<DecoderExports>(JPEG_DECODER, (instantiate) => {
  let memory: WebAssembly.Memory | null = null;
  const zeroCounts = (a: number, b: number) => {
    const view = new DataView((memory as WebAssembly.Memory).buffer);
    view.setUint32(a, 0, true);
    view.setUint32(b, 0, true);
    return 0;
  };
  const instance = instantiate(decoderWasm, {
    env: {
      jpeg_error: (code: number) => {
        throw new JpegDecodeError(`libjpeg error ${code}`);
      },
    },
    wasi_snapshot_preview1: {
      environ_get: () => 0,
      environ_sizes_get: zeroCounts,
      fd_close: () => EBADF,
      fd_seek: () => EBADF,
      fd_write: () => EBADF,
      proc_exit: () => {
        throw new JpegDecodeError("libjpeg exited");
      },
    },
  });
  const exports = instance.exports as unknown as DecoderExports;
  memory = exports.memory;
  return exports;
});

/** Rows copied out of the heap per call. */
const CHUNK_ROWS = 16;

/** The smallest M (1–8) such that M/8 of `width` × `height` is still at least `minWidth` × `minHeight`. */
export function scaleNumFor(width: number, height: number, minWidth: number, minHeight: number): number {
  for (let m = 1; m < 8; m++)
    if (Math.ceil((width * m) / 8) >= minWidth && Math.ceil((height * m) / 8) >= minHeight) return m;
  return 8;
}

export interface JpegRows extends RowSource {
  /** Frees the decode's heap blocks for the next one (the instance stays). */
  close(): void;
}

let current = 0; // which open decode owns the instance's state

/**
 * Starts decoding `bytes` (stored orientation) at the smallest M/8 scale that is at least `minWidth` × `minHeight`
 * (the full size when those are the image's own), as packed RGB rows (grey expanded). InvalidImageError for
 * anything libjpeg cannot decode cleanly.
 */
export async function openJpeg(bytes: Uint8Array, minWidth = Infinity, minHeight = Infinity): Promise<JpegRows> {
  const lib = await decoder.get();
  const id = ++current;
  const fail = (err: unknown): never => {
    decoder.release(); // never reuse a heap that saw a failure
    if (err instanceof JpegDecodeError || err instanceof InvalidImageError) throw new InvalidImageError();
    throw err;
  };
  let width: number;
  let height: number;
  try {
    const at = lib.dec_input(bytes.length);
    if (!at) throw new JpegDecodeError("out of memory");
    new Uint8Array(lib.memory.buffer, at, bytes.length).set(bytes);
    lib.dec_header(bytes.length);
    lib.dec_begin(scaleNumFor(lib.dec_image_width(), lib.dec_image_height(), minWidth, minHeight));
    width = lib.dec_width();
    height = lib.dec_height();
    const components = lib.dec_components();
    if (components !== 1 && components !== 3) throw new JpegDecodeError("components");
  } catch (err) {
    return fail(err);
  }
  return {
    width,
    height,
    async readRows(rows, out) {
      if (id !== current) throw new Error("Another JPEG decode took the decoder.");
      try {
        const stride = width * 3;
        for (let done = 0; done < rows; ) {
          const ptr = lib.dec_read(Math.min(CHUNK_ROWS, rows - done));
          const got = lib.dec_got();
          if (!ptr || got === 0) throw new JpegDecodeError("short decode");
          out.set(new Uint8Array(lib.memory.buffer, ptr, got * stride), done * stride);
          done += got;
        }
        if (lib.dec_warnings() > 0) throw new JpegDecodeError("corrupt data");
      } catch (err) {
        fail(err);
      }
    },
    close() {
      if (id === current) lib.dec_reset();
    },
  };
}

export interface DecodedJpeg {
  width: number;
  height: number;
  channels: 3;
  pixels: Uint8Array;
  release(): void;
}

/** The whole image at full size, as packed RGB in JavaScript memory (tests and small images only). */
export async function decodeJpeg(bytes: Uint8Array): Promise<DecodedJpeg> {
  const rows = await openJpeg(bytes);
  try {
    const pixels = new Uint8Array(rows.width * rows.height * 3);
    await rows.readRows(rows.height, pixels);
    return { width: rows.width, height: rows.height, channels: 3, pixels, release() {} };
  } finally {
    rows.close();
  }
}
