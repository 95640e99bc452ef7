import { requireSecret } from "../../config";
import type { WorkspaceContext } from "../../context";
import { formatIso } from "../../lib/time";
import { signUploadUrl } from "./signing";

export const UPLOAD_FIELD_NAME = "media";

export interface IssuedUpload {
  upload_token: string;
  upload_url: string;
  /** ISO 8601 with offset. */
  expires_at: string;
  max_bytes: number;
  field_name: typeof UPLOAD_FIELD_NAME;
}

/**
 * A one-shot signed upload URL for this workspace (`POST /api/uploads`, MCP `request-media-upload-tool`).
 * Nothing is stored: the URL carries its own proof, and the UploadGuard records the token only when it is used.
 */
export async function issueUpload(ctx: WorkspaceContext): Promise<IssuedUpload> {
  const token = crypto.randomUUID();
  const expiresUnix = Math.floor(ctx.now() / 1000) + ctx.config.UPLOAD_URL_TTL_SECONDS;
  const url = await signUploadUrl(
    requireSecret(ctx.config, "UPLOAD_SIGNING_KEY"),
    ctx.origin,
    token,
    expiresUnix,
    ctx.workspaceId,
  );
  return {
    upload_token: token,
    upload_url: url,
    expires_at: formatIso(expiresUnix * 1000),
    max_bytes: ctx.config.UPLOAD_MAX_BYTES,
    field_name: UPLOAD_FIELD_NAME,
  };
}
