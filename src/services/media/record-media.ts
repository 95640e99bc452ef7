import { sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { ServiceContext } from "../../context";
import { insertJsonRows } from "../../db/json-params";
import { media, postMedia } from "../../db/schema";
import { log } from "../../lib/logger";
import type { StoredMedia } from "../../media/ingest";

export type MediaRow = typeof media.$inferInsert;

/** Any transport context that knows its workspace (API key, MCP, or a verified signed upload URL). */
export type MediaContext = ServiceContext & { workspaceId: string };

export function mediaRow(ctx: MediaContext, stored: StoredMedia, uploadToken: string | null = null): MediaRow {
  return {
    id: crypto.randomUUID(),
    workspaceId: ctx.workspaceId,
    path: stored.path,
    type: stored.type,
    mimeType: stored.mimeType,
    originalFilename: stored.originalFilename,
    size: stored.size,
    width: stored.width,
    height: stored.height,
    durationSeconds: stored.durationSeconds,
    uploadToken,
    createdAt: ctx.now(),
  };
}

/**
 * Appends media rows, in the order given, to the end of a post's media list: one statement however many (the ids
 * are one bound JSON array), positions computed inside it. An id already attached is left where it is.
 */
export function appendToPost(ctx: MediaContext, postId: string, mediaIds: readonly string[]) {
  return ctx.db
    .insert(postMedia)
    .select(
      sql`SELECT ${postId}, j.value, base.next + j.key
        FROM json_each(${JSON.stringify(mediaIds)}) j,
          (SELECT COALESCE(MAX(${postMedia.position}), -1) + 1 AS next FROM ${postMedia} WHERE ${postMedia.postId} = ${postId}) base
        WHERE true`,
    )
    .onConflictDoNothing();
}

/**
 * Creates the media rows (and attaches them to `postId` in the given order) in one batch of two statements (plus `alongside`)
 * however many rows (src/db/json-params.ts). Returns the batch's results (those of `alongside` last). If the batch fails, the stored objects are deleted so nothing is left behind,
 * and the error is rethrown.
 */
export async function recordMedia(
  ctx: MediaContext,
  rows: MediaRow[],
  postId: string | null,
  /** Statements that commit with the rows (the webhook outbox's `media.uploaded`). */
  alongside: BatchItem<"sqlite">[] = [],
): Promise<unknown[]> {
  if (rows.length === 0) return [];
  try {
    const statements: BatchItem<"sqlite">[] = [
      insertJsonRows(ctx.db, media, rows),
      ...(postId
        ? [
            appendToPost(
              ctx,
              postId,
              rows.map((r) => r.id as string),
            ),
          ]
        : []),
      ...alongside,
    ];
    return await ctx.db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  } catch (err) {
    await discardObjects(
      ctx,
      rows.map((r) => r.path),
    );
    throw err;
  }
}

export async function discardObjects(ctx: MediaContext, paths: string[]): Promise<void> {
  if (paths.length === 0) return;
  try {
    await ctx.env.MEDIA_BUCKET.delete(paths);
  } catch (err) {
    log("error", "media_cleanup_failed", { request_id: ctx.requestId, paths, error: String(err) });
  }
}
