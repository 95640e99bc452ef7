import { eq, lt, sql } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { lifecycleCursors, signedUploadIssuers } from "../../db/schema";
import { log } from "../../lib/logger";

/**
 * Storage lifecycle, run by the every-minute cron with bounded work per tick (docs/security.md "Lifecycle"):
 * - a signed-upload asset (media with an `upload_token`) that no post uses is removed, row and object, once it is
 *   `UPLOAD_ASSET_TTL_MS` old — the agent flow attaches it within minutes;
 * - R2 objects under `medias/` that no media row references and that are older than `ORPHAN_GRACE_MS` are deleted:
 *   the grace covers uploads in flight (an object is stored before its row is written) and rows being replaced;
 *   the listing resumes from a cursor kept in `lifecycle_cursors`, `ORPHAN_LIST_BATCH` keys per tick;
 * - issuer records of signed URLs are dropped once their URL has expired.
 */
export const UPLOAD_ASSET_TTL_MS = 7 * 24 * 60 * 60 * 1000;
export const ORPHAN_GRACE_MS = 24 * 60 * 60 * 1000;
export const UPLOAD_ASSET_SWEEP_BATCH = 100;
export const ORPHAN_LIST_BATCH = 500;
export const MEDIA_PREFIX = "medias/";
const ORPHAN_CURSOR = "r2-orphans";
/**
 * Only keys of the form the media pipeline writes for a media row (`medias/<uuid>.<ext>`) are judged against
 * `media.path`; anything else under the prefix (derived files another table references) is never touched here.
 */
const MEDIA_OBJECT_KEY = /^medias\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.[a-z0-9]{2,4}$/;

/** Paths among `paths` that a media row still references. One statement over a bound JSON array. */
async function referencedPaths(ctx: ServiceContext, paths: string[]): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  const rows = await ctx.db.all<{ path: string }>(
    sql`SELECT DISTINCT path FROM media WHERE path IN (SELECT value FROM json_each(${JSON.stringify(paths)}))`,
  );
  return new Set(rows.map((r) => r.path));
}

/** Removes unattached signed-upload assets older than the TTL; returns how many rows went. */
export async function sweepUnattachedUploads(ctx: ServiceContext): Promise<number> {
  const cutoff = ctx.now() - UPLOAD_ASSET_TTL_MS;
  const gone = await ctx.db.all<{ path: string }>(sql`
    DELETE FROM media WHERE id IN (
      SELECT m.id FROM media m
      WHERE m.upload_token IS NOT NULL AND m.created_at < ${cutoff}
        AND NOT EXISTS (SELECT 1 FROM post_media pm WHERE pm.media_id = m.id)
      LIMIT ${UPLOAD_ASSET_SWEEP_BATCH}
    )
    RETURNING path`);
  if (gone.length === 0) return 0;
  const paths = [...new Set(gone.map((r) => r.path))];
  const stillUsed = await referencedPaths(ctx, paths);
  const unused = paths.filter((p) => !stillUsed.has(p));
  if (unused.length > 0) await ctx.env.MEDIA_BUCKET.delete(unused);
  log("info", "upload_assets_swept", { rows: gone.length, objects: unused.length });
  return gone.length;
}

/** One page of the orphan sweep: lists from the saved cursor, deletes unreferenced old objects, saves the cursor. */
export async function sweepOrphanObjects(ctx: ServiceContext): Promise<{ listed: number; deleted: number }> {
  const saved = await ctx.db
    .select({ cursor: lifecycleCursors.cursor })
    .from(lifecycleCursors)
    .where(eq(lifecycleCursors.name, ORPHAN_CURSOR))
    .get();
  const page = await ctx.env.MEDIA_BUCKET.list({
    prefix: MEDIA_PREFIX,
    limit: ORPHAN_LIST_BATCH,
    ...(saved?.cursor ? { cursor: saved.cursor } : {}),
  });
  const cutoff = ctx.now() - ORPHAN_GRACE_MS;
  const old = page.objects
    .filter((o) => o.uploaded.getTime() < cutoff && MEDIA_OBJECT_KEY.test(o.key))
    .map((o) => o.key);
  const used = await referencedPaths(ctx, old);
  const orphans = old.filter((key) => !used.has(key));
  if (orphans.length > 0) await ctx.env.MEDIA_BUCKET.delete(orphans);
  const next = page.truncated ? page.cursor : null; // a finished pass starts over next tick
  await ctx.db
    .insert(lifecycleCursors)
    .values({ name: ORPHAN_CURSOR, cursor: next, updatedAt: ctx.now() })
    .onConflictDoUpdate({ target: lifecycleCursors.name, set: { cursor: next, updatedAt: ctx.now() } });
  if (orphans.length > 0) log("info", "orphan_objects_swept", { deleted: orphans.length });
  return { listed: page.objects.length, deleted: orphans.length };
}

/** Drops issuer records of signed URLs that have expired (they can no longer be used anyway). */
export async function sweepExpiredIssuers(ctx: ServiceContext): Promise<void> {
  await ctx.db.delete(signedUploadIssuers).where(lt(signedUploadIssuers.expiresAt, ctx.now() - 60_000));
}

/** The lifecycle step of the cron. */
export async function runLifecycle(ctx: ServiceContext): Promise<void> {
  await sweepUnattachedUploads(ctx);
  await sweepOrphanObjects(ctx);
  await sweepExpiredIssuers(ctx);
}
