import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { apiKeys } from "../../db/schema";
import { issuerStillMember } from "../people/issued-by";

/**
 * Connect links, OAuth states and selections record the API key that made them (issue 25): they end with that key.
 * A key that is revoked (revoking a key revokes the keys it minted), expired or gone ends them; rows from before the
 * key was recorded (null) live out their own expiry.
 */
export async function issuingKeyLive(ctx: ServiceContext, apiKeyId: string | null): Promise<boolean> {
  if (apiKeyId === null) return true;
  const row = await ctx.db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(
      and(
        eq(apiKeys.id, apiKeyId),
        isNull(apiKeys.revokedAt),
        or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, ctx.now())),
      ),
    )
    .get();
  return !!row;
}

/**
 * A flow started by a signed-in person (issue 27, `created_by_user_id`) ends with their membership: refused once they
 * are no longer a member of the workspace, or joined again only after the flow began. Null: started by a key.
 */
export async function issuingPersonLive(
  ctx: ServiceContext,
  workspaceId: string,
  userId: string | null,
  issuedAt: number,
): Promise<boolean> {
  if (userId === null) return true;
  const row = await ctx.db.get<{ live: number }>(
    sql`SELECT ${issuerStillMember(sql`${workspaceId}`, sql`${userId}`, sql`${issuedAt}`)} AS live`,
  );
  return !!row?.live;
}

export const KEY_ENDED =
  "The API key that made this connect link has been revoked or has expired, so it no longer connects accounts.";
