/**
 * Cuts a media stream into the byte ranges LinkedIn's `uploadInstructions` name (inclusive `firstByte..lastByte`,
 * in order), holding one part (4 MiB) in memory at a time — never the whole video.
 */
export async function* byteRanges(
  stream: ReadableStream<Uint8Array>,
  ranges: ReadonlyArray<{ firstByte: number; lastByte: number }>,
): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  let chunk: Uint8Array = new Uint8Array(0);
  let chunkStart = 0; // stream offset of chunk[0]
  let done = false;
  try {
    for (const range of ranges) {
      const part = new Uint8Array(range.lastByte - range.firstByte + 1);
      let filled = 0;
      while (filled < part.length) {
        const offset = range.firstByte + filled;
        const end = chunkStart + chunk.length;
        if (offset < end && offset >= chunkStart) {
          const take = chunk.subarray(
            offset - chunkStart,
            Math.min(chunk.length, offset - chunkStart + part.length - filled),
          );
          part.set(take, filled);
          filled += take.length;
          continue;
        }
        if (done) throw new Error("The media ended before the upload instructions' last byte.");
        chunkStart = end;
        const next = await reader.read();
        if (next.done) done = true;
        else chunk = next.value;
        if (next.done) chunk = new Uint8Array(0);
      }
      yield part;
    }
  } finally {
    reader.releaseLock();
    await stream.cancel().catch(() => {});
  }
}
