/**
 * R2 writes for media. Small bodies are one `put`; anything larger than one part goes through an R2 multipart
 * upload fed part by part, so at most two parts (one filling, one uploading) are in memory whatever the file size.
 * Any failure aborts the multipart upload, so nothing partial stays in the bucket.
 */
import { type ByteSource, concatBytes } from "./byte-source";

/** R2 needs equal-sized parts of at least 5 MiB (except the last). */
export const R2_PART_BYTES = 8 * 1024 * 1024;

export class TooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`Larger than ${maxBytes} bytes.`);
    this.name = "TooLargeError";
  }
}

export interface PutOptions {
  maxBytes: number;
  contentType: string;
  customMetadata?: Record<string, string>;
  partBytes?: number;
}

/** Streams `source` to `key`. Throws TooLargeError as soon as more than `maxBytes` arrive (the source is cancelled). */
export async function putStream(
  bucket: R2Bucket,
  key: string,
  source: ByteSource,
  opts: PutOptions,
): Promise<{ size: number }> {
  const partBytes = opts.partBytes ?? R2_PART_BYTES;
  const meta = { httpMetadata: { contentType: opts.contentType }, customMetadata: opts.customMetadata ?? {} };
  let upload: R2MultipartUpload | null = null;
  const parts: R2UploadedPart[] = [];
  let inFlight: Promise<void> | null = null;
  let buf = new Uint8Array(Math.min(partBytes, opts.maxBytes + 1));
  let fill = 0;
  let total = 0;

  const sendPart = async (bytes: Uint8Array) => {
    upload ??= await bucket.createMultipartUpload(key, meta);
    const u = upload;
    const number = parts.length + 1;
    // Reserve the slot so part numbers stay in order even while the previous upload is still running.
    parts.push(undefined as unknown as R2UploadedPart);
    if (inFlight) await inFlight;
    inFlight = u.uploadPart(number, bytes).then((p) => {
      parts[number - 1] = p;
    });
  };

  try {
    for (;;) {
      const chunk = await source.read();
      if (!chunk) break;
      total += chunk.length;
      if (total > opts.maxBytes) throw new TooLargeError(opts.maxBytes);
      let at = 0;
      while (at < chunk.length) {
        if (fill === buf.length) {
          await sendPart(buf);
          buf = new Uint8Array(partBytes);
          fill = 0;
        }
        const n = Math.min(chunk.length - at, buf.length - fill);
        buf.set(chunk.subarray(at, at + n), fill);
        fill += n;
        at += n;
      }
    }
    if (!upload && parts.length === 0) {
      await bucket.put(key, buf.subarray(0, fill), meta);
      return { size: total };
    }
    if (fill > 0) await sendPart(buf.subarray(0, fill));
    if (inFlight) await inFlight;
    await (upload as R2MultipartUpload | null)?.complete(parts);
    return { size: total };
  } catch (err) {
    await source.cancel(err);
    if (inFlight) await (inFlight as Promise<void>).catch(() => {});
    if (upload) await (upload as R2MultipartUpload).abort().catch(() => {});
    throw err;
  }
}

/** Collects a whole (small) body, refusing more than `maxBytes`. */
export async function readAll(source: ByteSource, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const chunk = await source.read();
    if (!chunk) break;
    total += chunk.length;
    if (total > maxBytes) {
      await source.cancel();
      throw new TooLargeError(maxBytes);
    }
    chunks.push(chunk);
  }
  return concatBytes(chunks, total);
}
