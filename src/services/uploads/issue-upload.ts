import { eq, sql } from "drizzle-orm";
import { requireSecret } from "../../config";
import type { ServiceContext, WorkspaceContext } from "../../context";
import { apiKeys, signedUploadIssuers } from "../../db/schema";
import { formatIso } from "../../lib/time";
import { issuerStillMember } from "../people/issued-by";
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
  // Issued by a key, or by a signed-in person (issue 27): the URL ends with the key, or with the person's membership.
  await ctx.db.insert(signedUploadIssuers).values({
    token,
    apiKeyId: ctx.apiKeyId,
    expiresAt: expiresUnix * 1000,
    workspaceId: ctx.workspaceId,
    createdByUserId: ctx.person?.userId ?? null,
  });
  return {
    upload_token: token,
    upload_url: url,
    expires_at: formatIso(expiresUnix * 1000),
    max_bytes: ctx.config.UPLOAD_MAX_BYTES,
    field_name: UPLOAD_FIELD_NAME,
  };
}

/**
 * Whether the issuer of a signed URL has ended since: the API key revoked (or expired), or the signed-in person no
 * longer a member of the workspace. A URL without an issuer record (issued before the record existed) is judged by
 * its signature and expiry alone.
 */
export async function uploadIssuerRevoked(ctx: ServiceContext, token: string): Promise<"key" | "person" | null> {
  const row = await ctx.db
    .select({
      keyId: apiKeys.id,
      revokedAt: apiKeys.revokedAt,
      expiresAt: apiKeys.expiresAt,
      createdByUserId: signedUploadIssuers.createdByUserId,
      personLive: issuerStillMember(
        sql`coalesce(${signedUploadIssuers.workspaceId}, '')`,
        signedUploadIssuers.createdByUserId,
      ),
    })
    .from(signedUploadIssuers)
    .leftJoin(apiKeys, eq(apiKeys.id, signedUploadIssuers.apiKeyId))
    .where(eq(signedUploadIssuers.token, token))
    .get();
  if (!row) return null;
  // A key row that is gone went with its workspace: the workspace check after this one answers that (404).
  if (row.keyId !== null && (row.revokedAt !== null || (row.expiresAt !== null && row.expiresAt <= ctx.now())))
    return "key";
  if (row.createdByUserId !== null && !row.personLive) return "person";
  return null;
}
