import { and, eq } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { media } from "../../db/schema";
import { AppError, validationError } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { NOT_ACCEPTED_MESSAGE } from "../../media/ingest";
import { unpublishableProblems } from "../media/file-rules";
import { mediaTarget } from "../media/media-target";
import { appendToPost } from "../media/record-media";
import { setMediaAlt } from "../media/update-media";
import { getPost } from "../posts/get-post";

export const POST_NOT_FOUND = "Post not found.";
export const UPLOAD_NOT_FOUND = "Upload not found.";

/**
 * Attaches the Media created by a signed upload to a post (MCP `attach-media-from-upload-tool`). Same acceptance
 * rule and per-file media rules as a direct upload; attaching the same upload to the same post again changes
 * nothing.
 */
export async function attachUploadToPost(
  ctx: WorkspaceContext,
  input: { post_id: string; upload_token: string; alt?: string | null },
) {
  if (!isUuid(input.post_id)) throw new AppError("not_found", POST_NOT_FOUND);
  const target = await mediaTarget(ctx, input.post_id, () => new AppError("not_found", POST_NOT_FOUND));
  const asset = isUuid(input.upload_token)
    ? await ctx.db
        .select()
        .from(media)
        .where(and(eq(media.uploadToken, input.upload_token), eq(media.workspaceId, ctx.workspaceId)))
        .get()
    : undefined;
  if (!asset) throw new AppError("not_found", UPLOAD_NOT_FOUND);
  if (!target.accept.has(asset.type))
    throw new AppError("validation", NOT_ACCEPTED_MESSAGE, { errors: { media: [NOT_ACCEPTED_MESSAGE] } });
  // The same per-file check as a direct upload (issue 16): a file an enabled network can never publish and that
  // cannot be fitted is refused with the same messages. The asset itself is kept: it is the agent's upload, and
  // another post may take it.
  const problems = unpublishableProblems(target, asset);
  if (problems.length > 0) throw validationError({ media: problems });
  // Issue 29: an alt text given with the attach replaces the asset's (set at upload, or none).
  if (input.alt !== undefined) await setMediaAlt(ctx, asset.id, input.alt);
  await appendToPost(ctx, input.post_id, [asset.id]);
  return { post: await getPost(ctx, input.post_id) };
}
