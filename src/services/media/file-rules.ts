import { checkFileRules } from "../../catalog/media-rules";
import type { WorkspaceContext } from "../../context";
import { validationError } from "../../lib/errors";
import type { MediaTarget } from "./media-target";
import type { MediaRow } from "./record-media";

/**
 * Issue 16 at the media endpoints: a stored file that one of the post's enabled networks could never publish and
 * that cannot be fitted (a video too long or of the wrong ratio or format, a GIF where none goes…) is deleted and
 * refused with 422 `errors.media`, one message per rule, naming the platform and the file. A Mastodon row's limits
 * are its instance's as stored on the account (a video over its `video_size_limit` or `video_matrix_limit`, a GIF
 * over its `image_size_limit`). Images over a size limit pass: they are fitted at publish time.
 */
export async function refuseUnpublishable(ctx: WorkspaceContext, target: MediaTarget, row: MediaRow): Promise<void> {
  const problems = unpublishableProblems(target, row);
  if (problems.length === 0) return;
  await ctx.env.MEDIA_BUCKET.delete(row.path);
  throw validationError({ media: problems });
}

/** Every per-file rule of the post's enabled rows that this stored file breaks (empty when it can be published). */
export function unpublishableProblems(target: MediaTarget, row: MediaRow): string[] {
  const item = {
    type: row.type,
    mimeType: row.mimeType,
    size: row.size,
    width: row.width,
    height: row.height,
    durationSeconds: row.durationSeconds,
    originalFilename: row.originalFilename,
  };
  return [...new Set(target.rows.flatMap((r) => checkFileRules(r.platform, r.contentType, item, r.limits)))];
}
