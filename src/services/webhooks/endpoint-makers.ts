import { and, eq, type SQL, sql } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { webhookEndpoints } from "../../db/schema";

/**
 * A webhook endpoint receives every post's full body: it ends with its maker's access, as keys, connect links and
 * invitations do (issue 35, docs/security.md "What a person issues"). Made by a person: disabled when they leave the
 * workspace or become editor or viewer (webhooks are an owner's and admin's area); made by an API key: disabled
 * when the key is revoked. Disabled, not deleted: an owner or admin sees why (`disabled_reason`, `created_by`) and
 * may turn it on again (`PUT enabled: true`), which is then their own decision. Each runs in the batch of the change
 * that ended the access.
 */
export const MAKER_LEFT =
  "Disabled: the person who made this endpoint is no longer an owner or admin of the workspace.";
export const MAKER_KEY_REVOKED = "Disabled: the API key that made this endpoint was revoked.";

function disableWhere(ctx: ServiceContext, workspaceId: string, reason: string, which: SQL) {
  return ctx.db
    .update(webhookEndpoints)
    .set({ enabled: false, disabledReason: reason, failingSince: null, updatedAt: ctx.now() })
    .where(and(eq(webhookEndpoints.workspaceId, workspaceId), eq(webhookEndpoints.enabled, true), which));
}

/** The endpoints `userId` made in the workspace, when `guard` holds (the removal or demotion happened). */
export function disableEndpointsOf(ctx: ServiceContext, workspaceId: string, userId: string, guard: SQL) {
  return disableWhere(ctx, workspaceId, MAKER_LEFT, and(eq(webhookEndpoints.createdByUserId, userId), guard) as SQL);
}

/** The endpoints made by API keys of the workspace that are now revoked. */
export function disableEndpointsOfRevokedKeys(ctx: ServiceContext, workspaceId: string) {
  return disableWhere(
    ctx,
    workspaceId,
    MAKER_KEY_REVOKED,
    sql`${webhookEndpoints.createdByApiKeyId} IN (SELECT id FROM api_keys
          WHERE workspace_id = ${workspaceId} AND revoked_at IS NOT NULL)`,
  );
}
