// Types for the parts of @cornerstonejs/codec-libjpeg-turbo-8bit (an Emscripten build of libjpeg-turbo's
// TurboJPEG API, no types shipped) that src/media/jpeg-encoder.ts uses.
declare module "@cornerstonejs/codec-libjpeg-turbo-8bit/wasmjs" {
  export interface FrameInfo {
    width: number;
    height: number;
    bitsPerSample: number;
    componentCount: number;
    isSigned: boolean;
  }
  export interface JPEGEncoder {
    getDecodedBuffer(frame: FrameInfo): Uint8Array;
    getEncodedBuffer(): Uint8ClampedArray;
    setQuality(quality: number): void;
    setProgressive(progressive: number): void;
    setSubSampling(subsampling: number): void;
    encode(): void;
    delete(): void;
  }
  export interface LibJpegTurbo {
    JPEGEncoder: new () => JPEGEncoder;
  }
  const factory: (options?: Record<string, unknown>) => Promise<LibJpegTurbo>;
  export default factory;
}

declare module "@cornerstonejs/codec-libjpeg-turbo-8bit/decodewasmjs" {
  import type { FrameInfo } from "@cornerstonejs/codec-libjpeg-turbo-8bit/wasmjs";
  export interface JPEGDecoder {
    /** Allocates `length` bytes in the heap for the compressed file and returns a view to fill. */
    getEncodedBuffer(length: number): Uint8Array;
    readHeader(): void;
    decode(): void;
    getFrameInfo(): FrameInfo;
    /** The decoded pixels (packed, `componentCount` bytes each), a view into the heap. */
    getDecodedBuffer(): Uint8Array;
    delete(): void;
  }
  export interface LibJpegTurboDecode {
    JPEGDecoder: new () => JPEGDecoder;
  }
  const factory: (options?: Record<string, unknown>) => Promise<LibJpegTurboDecode>;
  export default factory;
}
