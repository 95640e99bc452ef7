import type { WorkspaceContext } from "../../context";
import { AppError, notFound, validationError } from "../../lib/errors";
import { MemoryBusyError, memoryBusy, memoryGate } from "../../lib/memory-budget";
import type { ByteSource } from "../../media/byte-source";
import { ingestMedia, MediaRejectedError, rejectMessages } from "../../media/ingest";
import { MultipartError, type MultipartReader } from "../../media/multipart";
import { getPost } from "../posts/get-post";
import { refuseUnpublishable } from "./file-rules";
import { ingestLimits, mediaTarget } from "./media-target";
import { mediaRow, recordMedia } from "./record-media";

export const MEDIA_FIELD = "media";

export interface FilePart {
  source: ByteSource;
  filename: string;
}

/**
 * The `media` file part of a multipart body, positioned so its body can be streamed. Other parts are skipped
 * without being buffered. 422 when there is no such file part.
 */
export async function readFilePart(form: MultipartReader | null): Promise<FilePart> {
  if (!form) throw validationError({ media: [rejectMessages.missing()] });
  try {
    for (let part = await form.nextPart(); part; part = await form.nextPart()) {
      if (part.name !== MEDIA_FIELD) continue;
      if (part.filename === null) {
        await form.cancel();
        throw validationError({ media: ["The media field must be a file."] });
      }
      return { source: form.partBody(), filename: part.filename };
    }
  } catch (err) {
    throw asHttpError(err);
  }
  throw validationError({ media: [rejectMessages.missing()] });
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
  } catch (err) {
    throw asHttpError(err);
  } finally {
    await form?.cancel();
  }
  await refuseUnpublishable(ctx, target, row);
  try {
    await recordMedia(ctx, [row], postId);
  } catch (err) {
    // The post was deleted while the file streamed in (foreign key): same answer as a missing post.
    if (/FOREIGN KEY/i.test(String(err))) throw notFound();
    throw err;
  }
  return getPost(ctx, postId);
}
