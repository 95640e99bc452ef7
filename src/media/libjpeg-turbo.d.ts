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
