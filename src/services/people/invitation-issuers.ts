import { and, eq, isNull, type SQL, sql } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { invitations, type MemberRole } from "../../db/schema";

/**
 * The invitation's issuer could still make it (issue 35), judged wherever an invitation is listed, looked up or
 * accepted — as connect links and OAuth flows judge theirs (src/services/people/issued-by.ts):
 * - made by a person: still a member of the workspace, since before the invitation was made (removed and invited
 *   again does not bring it back), with a role that makes it (owner: any; admin: any but owner);
 * - made by an API key: the key is not revoked (revoking a key revokes the keys it minted, and removing or demoting
 *   a person revokes the keys they minted) and not expired;
 * - made by the admin bootstrap (both null): lives out its own expiry.
 */
export const issuerCanStillInvite = (now: number) => sql`(
  (${invitations.createdByUserId} IS NULL OR EXISTS (SELECT 1 FROM workspace_members m
    WHERE m.workspace_id = ${invitations.workspaceId} AND m.user_id = ${invitations.createdByUserId}
      AND m.created_at <= ${invitations.createdAt}
      AND (m.role = 'owner' OR (m.role = 'admin' AND ${invitations.role} != 'owner'))))
  AND (${invitations.createdByApiKeyId} IS NULL OR EXISTS (SELECT 1 FROM api_keys k
    WHERE k.id = ${invitations.createdByApiKeyId} AND k.revoked_at IS NULL
      AND (k.expires_at IS NULL OR k.expires_at > ${now}))))`;

/**
 * Ends (marks revoked) the pending invitations a person made in a workspace that `role` could no longer make:
 * all of them when the person leaves or becomes editor or viewer, the owner invitations when an owner becomes admin.
 * Runs in the batch of the membership change, conditioned by `guard` (the change happened). The check at use
 * (`issuerCanStillInvite`) refuses them anyway; marking them keeps a later promotion from bringing them back.
 */
export function endInvitationsOf(
  ctx: ServiceContext,
  workspaceId: string,
  userId: string,
  role: MemberRole | null,
  guard: SQL,
) {
  const lost = role === "owner" ? sql`0` : role === "admin" ? sql`${invitations.role} = 'owner'` : sql`1`;
  return endPendingInvitations(ctx, workspaceId, and(eq(invitations.createdByUserId, userId), lost, guard) as SQL);
}

/** Marks revoked the workspace's pending (neither accepted nor revoked) invitations that also match `which`. */
function endPendingInvitations(ctx: ServiceContext, workspaceId: string, which: SQL) {
  return ctx.db
    .update(invitations)
    .set({ revokedAt: ctx.now() })
    .where(
      and(
        eq(invitations.workspaceId, workspaceId),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
        which,
      ),
    );
}

/** Ends (marks revoked) the pending invitations of the workspace made by API keys that are now revoked. */
export function endInvitationsOfRevokedKeys(ctx: ServiceContext, workspaceId: string) {
  return endPendingInvitations(
    ctx,
    workspaceId,
    sql`${invitations.createdByApiKeyId} IN (SELECT id FROM api_keys
          WHERE workspace_id = ${workspaceId} AND revoked_at IS NOT NULL)`,
  );
}
