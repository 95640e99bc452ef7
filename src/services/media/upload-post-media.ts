import { MEDIA_ALT_MAX } from "../../catalog/alt-text";
import type { WorkspaceContext } from "../../context";
import { AppError, notFound, validationError } from "../../lib/errors";
import { MemoryBusyError, memoryBusy, memoryGate } from "../../lib/memory-budget";
import { type ByteSource, concatBytes } from "../../media/byte-source";
import { ingestMedia, MediaRejectedError, rejectMessages } from "../../media/ingest";
import { MultipartError, type MultipartReader } from "../../media/multipart";
import { postResourceQuery, presentPostQueryResult } from "../posts/load-posts";
import { refuseUnpublishable } from "./file-rules";
import { ingestLimits, mediaTarget } from "./media-target";
import { discardObjects, mediaRow, recordMedia } from "./record-media";

export const MEDIA_FIELD = "media";
/** Issue 29: the optional text field with the file's alt text (before or after the file part). */
export const ALT_FIELD = "alt";
/** An `alt` part is read whole up to this many bytes (MEDIA_ALT_MAX characters of up to 4 bytes each). */
const ALT_PART_MAX_BYTES = MEDIA_ALT_MAX * 4;

export interface FilePart {
  source: ByteSource;
  filename: string;
  /** An `alt` text part that came before the file (undefined: none yet; see `readTrailingAlt`). */
  alt?: string;
}

/** Reads the current (text) part whole; 422 `errors.alt` past the bound. */
async function readAltPart(form: MultipartReader): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let chunk = await form.readBody(); chunk; chunk = await form.readBody()) {
    size += chunk.byteLength;
    if (size > ALT_PART_MAX_BYTES) {
      await form.cancel();
      throw validationError({ alt: [ALT_TOO_LONG] });
    }
    chunks.push(chunk.slice());
  }
  return new TextDecoder().decode(concatBytes(chunks, size));
}

export const ALT_TOO_LONG = `The alt field must not be greater than ${MEDIA_ALT_MAX} characters.`;

/** The alt text as stored: trimmed, empty means none; 422 `errors.alt` past MEDIA_ALT_MAX characters. */
export function normalizeAlt(alt: string | null | undefined): string | null {
  const text = (alt ?? "").trim();
  if (text === "") return null;
  if ([...text].length > MEDIA_ALT_MAX) throw validationError({ alt: [ALT_TOO_LONG] });
  return text;
}

/**
 * The `media` file part of a multipart body, positioned so its body can be streamed. Other parts are skipped
 * without being buffered, except a short `alt` text part. 422 when there is no such file part.
 */
export async function readFilePart(form: MultipartReader | null): Promise<FilePart> {
  if (!form) throw validationError({ media: [rejectMessages.missing()] });
  let alt: string | undefined;
  try {
    for (let part = await form.nextPart(); part; part = await form.nextPart()) {
      if (part.name === ALT_FIELD && part.filename === null) {
        alt = await readAltPart(form);
        continue;
      }
      if (part.name !== MEDIA_FIELD) continue;
      if (part.filename === null) {
        await form.cancel();
        throw validationError({ media: ["The media field must be a file."] });
      }
      return { source: form.partBody(), filename: part.filename, alt };
    }
  } catch (err) {
    throw asHttpError(err);
  }
  throw validationError({ media: [rejectMessages.missing()] });
}

async function skipPartBody(form: MultipartReader): Promise<void> {
  for (let chunk = await form.readBody(); chunk; chunk = await form.readBody()) {
    // skipped
  }
}

/**
 * After the file part was read to its end: an `alt` text part that follows it (a form may put it after the file),
 * else the one before. Other parts are skipped.
 */
export async function readTrailingAlt(form: MultipartReader, before: string | undefined): Promise<string | null> {
  let alt = before;
  try {
    // The file's own body may have unread bytes left when ingest stopped early: drain them first.
    await skipPartBody(form);
    for (let part = await form.nextPart(); part; part = await form.nextPart()) {
      if (part.name === ALT_FIELD && part.filename === null) alt = await readAltPart(form);
      else await skipPartBody(form);
    }
  } catch (err) {
    throw asHttpError(err);
  }
  return normalizeAlt(alt);
}

/** Maps pipeline failures to the API's errors: client mistakes are 422 `errors.media`, a broken body is 400. */
export function asHttpError(err: unknown): unknown {
  if (err instanceof MediaRejectedError) return validationError({ media: [err.message] });
  if (err instanceof MultipartError) return new AppError("bad_request", "Malformed multipart body.");
  if (err instanceof MemoryBusyError) return memoryBusy();
  return err;
}

/**
 * POST /posts/{post}/media: streams the file through the media pipeline, attaches it, returns the updated Post.
 * `declaredBytes` (the request's Content-Length) bounds the file's share of the isolate's memory budget.
 */
export async function uploadPostMedia(
  ctx: WorkspaceContext,
  postId: string,
  form: MultipartReader | null,
  declaredBytes?: number,
) {
  const target = await mediaTarget(ctx, postId);
  const file = await readFilePart(form);
  let row: ReturnType<typeof mediaRow>;
  try {
    const stored = await ingestMedia(ctx.env.MEDIA_BUCKET, file.source, {
      filename: file.filename,
      limits: ingestLimits(ctx.config, target.accept),
      memory: { gate: memoryGate(ctx.config), declaredBytes },
    });
    row = mediaRow(ctx, stored);
    row.alt = form
      ? await readTrailingAlt(form, file.alt).catch(async (err) => {
          await discardObjects(ctx, [stored.path]);
          throw err;
        })
      : null;
  } catch (err) {
    throw asHttpError(err);
  } finally {
    await form?.cancel();
  }
  await refuseUnpublishable(ctx, target, row);
  let results: unknown[];
  try {
    // The updated post comes back as the write batch's last statement: no read round trip after it (issue 28).
    results = await recordMedia(ctx, [row], postId, [postResourceQuery(ctx, postId)]);
  } catch (err) {
    // The post was deleted while the file streamed in (foreign key): same answer as a missing post.
    if (/FOREIGN KEY/i.test(String(err))) throw notFound();
    throw err;
  }
  return presentPostQueryResult(ctx, results.at(-1) as Parameters<typeof presentPostQueryResult>[1]);
}
