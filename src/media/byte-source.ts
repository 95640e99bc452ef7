/**
 * A pull-based byte stream: the one shape the media pipeline reads from, whether the bytes come from a multipart
 * part, a fetched URL or a test fixture. Pulling (rather than piping) keeps backpressure simple: nothing is read
 * from the network until the consumer asks for it.
 */
export interface ByteSource {
  /** The next chunk, or null at the end. Chunks may be views into a larger buffer; treat them as read-only. */
  read(): Promise<Uint8Array | null>;
  /** Stops reading and releases the underlying stream. Safe to call more than once. */
  cancel(reason?: unknown): Promise<void>;
}

export function streamSource(stream: ReadableStream<Uint8Array>): ByteSource {
  const reader = stream.getReader();
  let done = false;
  return {
    async read() {
      if (done) return null;
      for (;;) {
        const r = await reader.read();
        if (r.done) {
          done = true;
          return null;
        }
        if (r.value.byteLength > 0) return r.value;
      }
    },
    async cancel(reason) {
      if (done) return;
      done = true;
      await reader.cancel(reason).catch(() => {});
    },
  };
}

export function bytesSource(bytes: Uint8Array, chunkSize = 64 * 1024): ByteSource {
  let offset = 0;
  return {
    async read() {
      if (offset >= bytes.length) return null;
      const chunk = bytes.subarray(offset, offset + chunkSize);
      offset += chunk.length;
      return chunk;
    },
    async cancel() {
      offset = bytes.length;
    },
  };
}

/** Reads until at least `n` bytes are buffered (or the source ends); returns them and the rest as a new source. */
export async function peek(source: ByteSource, n: number): Promise<{ head: Uint8Array; source: ByteSource }> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  while (total < n) {
    const chunk = await source.read();
    if (!chunk) break;
    chunks.push(chunk);
    total += chunk.length;
  }
  const head = concatBytes(chunks, total);
  let replayed = head.length === 0;
  return {
    head,
    source: {
      async read() {
        if (!replayed) {
          replayed = true;
          return head;
        }
        return source.read();
      },
      cancel: (reason) => source.cancel(reason),
    },
  };
}

export function concatBytes(chunks: Uint8Array[], total?: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(total ?? chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
