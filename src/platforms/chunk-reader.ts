import { PlatformError } from "./types";

/**
 * Reads a byte stream (an R2 object body) in pieces of a requested size, so chunked uploads hold at most one
 * chunk in memory, never the whole video. Sequential use only: one `read(n)` at a time.
 */
export class ChunkReader {
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #pending: Uint8Array | null = null;
  #done = false;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }

  /** Exactly `size` bytes; throws when the stream ends early (the stored object is shorter than announced). */
  async read(size: number): Promise<Uint8Array> {
    const out = new Uint8Array(size);
    let filled = 0;
    while (filled < size) {
      let piece = this.#pending;
      this.#pending = null;
      if (!piece) {
        if (this.#done) break;
        const next = await this.#reader.read();
        if (next.done) {
          this.#done = true;
          break;
        }
        piece = next.value;
      }
      const take = Math.min(piece.byteLength, size - filled);
      out.set(piece.subarray(0, take), filled);
      filled += take;
      if (take < piece.byteLength) this.#pending = piece.subarray(take);
    }
    if (filled < size) {
      throw new PlatformError("permanent", `The stored media file ended after ${filled} of ${size} expected bytes.`);
    }
    return out;
  }

  /** Releases the underlying stream (call when stopping early). */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}
