import { eq } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { workspaces } from "../../db/schema";
import { conflict } from "../../lib/errors";
import { memoryGate } from "../../lib/memory-budget";
import { ingestMedia } from "../../media/ingest";
import type { MultipartReader } from "../../media/multipart";
import { ingestLimits } from "../media/media-target";
import { discardObjects, mediaRow, recordMedia } from "../media/record-media";
import { asHttpError, readFilePart, readTrailingAlt } from "../media/upload-post-media";
import { dataEvent } from "../webhooks/outbox";
import { tokenGuard } from "./upload-guard";

export const TOKEN_USED_MESSAGE = "This upload URL has already been used.";

export interface VerifiedUpload {
  token: string;
  workspaceId: string;
  expiresAtMs: number;
}

export interface StoredUpload {
  upload_token: string;
  media_id: string;
  type: "image" | "video";
  mime_type: string;
  original_filename: string;
}

export async function workspaceExists(ctx: ServiceContext, workspaceId: string): Promise<boolean> {
  const row = await ctx.db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, workspaceId)).get();
  return !!row;
}

/**
 * POST /api/uploads/{token} after the URL was verified: the file goes through the same pipeline as a direct
 * upload (cap UPLOAD_MAX_BYTES on top of the per-kind caps) and is stored first; only then is the token claimed in
 * the UploadGuard, so a rejected file (422) never spends it. Losing the claim (409) or failing to record deletes
 * the stored object and gives the token back, so exactly one Media row and one object exist per token.
 */
export async function storeSignedUpload(
  service: ServiceContext,
  upload: VerifiedUpload,
  form: MultipartReader | null,
  /** The request's Content-Length: bounds the file's share of the isolate's memory budget. */
  declaredBytes?: number,
): Promise<StoredUpload> {
  const ctx = { ...service, workspaceId: upload.workspaceId };
  const file = await readFilePart(form);
  let row: ReturnType<typeof mediaRow>;
  try {
    const stored = await ingestMedia(ctx.env.MEDIA_BUCKET, file.source, {
      filename: file.filename,
      limits: ingestLimits(ctx.config, new Set(["image", "video"]), ctx.config.UPLOAD_MAX_BYTES),
      memory: { gate: memoryGate(ctx.config), declaredBytes },
    });
    row = mediaRow(ctx, stored, upload.token);
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

  const guard = tokenGuard(ctx.env, upload.token);
  let claimed = false;
  try {
    claimed = await guard.claimToken(upload.token, upload.expiresAtMs);
  } catch (err) {
    await discardObjects(ctx, [row.path]);
    throw err;
  }
  if (!claimed) {
    await discardObjects(ctx, [row.path]);
    throw conflict(TOKEN_USED_MESSAGE);
  }
  const stored: StoredUpload = {
    upload_token: upload.token,
    media_id: row.id as string,
    type: row.type,
    mime_type: row.mimeType,
    original_filename: row.originalFilename ?? "",
  };
  try {
    // deletes the object itself on failure
    await recordMedia(ctx, [row], null, [dataEvent(ctx, ctx.workspaceId, "media.uploaded", stored)]);
  } catch (err) {
    await guard.releaseToken(upload.token).catch(() => {});
    // The unique index on upload_token is the last line of defence: a row exists, so the token is used.
    if (/UNIQUE/i.test(String(err))) throw conflict(TOKEN_USED_MESSAGE);
    throw err;
  }
  await guard.spendToken(upload.token);
  return stored;
}
