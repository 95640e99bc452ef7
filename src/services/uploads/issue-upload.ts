import { eq } from "drizzle-orm";
import { requireSecret } from "../../config";
import type { ServiceContext, WorkspaceContext } from "../../context";
import { apiKeys, signedUploadIssuers } from "../../db/schema";
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
 * The URL carries its own proof; the UploadGuard records the token only when it is used. The issuing API key is
 * recorded (`signed_upload_issuers`) so the URL stops working when that key is revoked (docs/security.md).
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
  // A URL issued to a signed-in person is judged by its signature and expiry alone (UPLOAD_URL_TTL_SECONDS).
  if (ctx.apiKeyId !== null)
    await ctx.db.insert(signedUploadIssuers).values({ token, apiKeyId: ctx.apiKeyId, expiresAt: expiresUnix * 1000 });
  return {
    upload_token: token,
    upload_url: url,
    expires_at: formatIso(expiresUnix * 1000),
    max_bytes: ctx.config.UPLOAD_MAX_BYTES,
    field_name: UPLOAD_FIELD_NAME,
  };
}

/**
 * Whether the API key that issued a signed URL has been revoked (or has expired) since. A URL without an issuer
 * record (issued before the record existed) is judged by its signature and expiry alone.
 */
export async function uploadIssuerRevoked(ctx: ServiceContext, token: string): Promise<boolean> {
  const row = await ctx.db
    .select({ revokedAt: apiKeys.revokedAt, expiresAt: apiKeys.expiresAt })
    .from(signedUploadIssuers)
    .innerJoin(apiKeys, eq(apiKeys.id, signedUploadIssuers.apiKeyId))
    .where(eq(signedUploadIssuers.token, token))
    .get();
  if (!row) return false;
  return row.revokedAt !== null || (row.expiresAt !== null && row.expiresAt <= ctx.now());
}
