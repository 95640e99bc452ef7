import { and, asc, eq, isNull, type SQL, sql } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { apiKeys, authUsers, type MemberRole, workspaceMembers } from "../../db/schema";
import { AppError, conflict, notFound } from "../../lib/errors";
import { revokeApiKeyEverywhere } from "../../lib/rate-limit";
import { formatIso } from "../../lib/time";
import { forgetApiKey } from "../api-keys/authenticate-api-key";
import { API_KEY_SCOPES, type ApiKeyScope, scopeAllows } from "../api-keys/scopes";
import { disableEndpointsOf, disableEndpointsOfRevokedKeys } from "../webhooks/endpoint-makers";
import { endInvitationsOf, endInvitationsOfRevokedKeys } from "./invitation-issuers";
import { ROLE_GRANTS, roleAllows } from "./roles";

/**
 * Members of a workspace (issue 27). Who may change whom (docs/security.md "Roles"):
 * - owners and admins manage members (the `members` area), as does a `full` API key;
 * - only an owner — a signed-in person whose role is owner — makes someone owner or changes or removes an owner;
 * - the last owner cannot be demoted or removed (checked inside the write itself, so two owners demoting each other
 *   at once cannot leave the workspace without one).
 */
export const OWNERS_ONLY = "Only an owner may make, change or remove owners.";
export const LAST_OWNER = "A workspace keeps at least one owner: make another member owner first.";

const callerIsOwner = (ctx: WorkspaceContext) => ctx.person?.role === "owner";

export function assertMayGrant(ctx: WorkspaceContext, role: MemberRole): void {
  if (role === "owner" && !callerIsOwner(ctx)) throw new AppError("forbidden", OWNERS_ONLY);
}

export interface MemberView {
  id: string;
  user_id: string;
  email: string;
  name: string;
  role: MemberRole;
  created_at: string;
}

const memberColumns = {
  id: workspaceMembers.id,
  userId: workspaceMembers.userId,
  email: authUsers.email,
  name: authUsers.name,
  role: workspaceMembers.role,
  createdAt: workspaceMembers.createdAt,
};

const present = (r: {
  id: string;
  userId: string;
  email: string;
  name: string;
  role: MemberRole;
  createdAt: number;
}): MemberView => ({
  id: r.id,
  user_id: r.userId,
  email: r.email,
  name: r.name,
  role: r.role,
  created_at: formatIso(r.createdAt),
});

export async function listMembers(ctx: WorkspaceContext): Promise<MemberView[]> {
  const rows = await ctx.db
    .select(memberColumns)
    .from(workspaceMembers)
    .innerJoin(authUsers, eq(authUsers.id, workspaceMembers.userId))
    .where(eq(workspaceMembers.workspaceId, ctx.workspaceId))
    .orderBy(asc(workspaceMembers.createdAt), asc(sql`${workspaceMembers}.rowid`));
  return rows.map(present);
}

async function findMember(ctx: WorkspaceContext, id: string) {
  const row = await ctx.db
    .select(memberColumns)
    .from(workspaceMembers)
    .innerJoin(authUsers, eq(authUsers.id, workspaceMembers.userId))
    .where(and(eq(workspaceMembers.id, id), eq(workspaceMembers.workspaceId, ctx.workspaceId)))
    .get();
  if (!row) throw notFound();
  return row;
}

/** The SQL condition that keeps the last owner: the row is not an owner, or another owner remains. */
const keepsAnOwner = (ctx: WorkspaceContext) => sql`(${workspaceMembers.role} != 'owner' OR (
  SELECT count(*) FROM workspace_members WHERE workspace_id = ${ctx.workspaceId} AND role = 'owner') > 1)`;

/** The key scopes a role could mint (the `keys` area, up to the role's own scope): none for editors and viewers. */
export function mintableScopes(role: MemberRole): ApiKeyScope[] {
  const grant = ROLE_GRANTS[role];
  if (!grant.areas.includes("keys")) return [];
  return API_KEY_SCOPES.filter((scope) => scopeAllows(grant.scope, scope));
}

/**
 * Revokes the live keys `userId` minted in this workspace with a session — all of them, or only those of a scope
 * not in `keep` — and every key those keys minted (the chain rule, as `deleteApiKey`), provided `guard` holds when
 * the statement runs: it runs in the same batch as the membership change and is conditioned on that change having
 * happened (the last-owner rule may refuse it).
 */
function revokeIssuedKeys(ctx: WorkspaceContext, userId: string, keep: ApiKeyScope[], guard: SQL) {
  const keptScopes = keep.length === 0 ? sql`` : sql` AND scope NOT IN (${sql.join(keep, sql`, `)})`;
  return ctx.db
    .update(apiKeys)
    .set({ revokedAt: ctx.now() })
    .where(
      and(
        isNull(apiKeys.revokedAt),
        guard,
        sql`${apiKeys.id} IN (WITH RECURSIVE tree(id) AS (
          SELECT id FROM api_keys
          WHERE workspace_id = ${ctx.workspaceId} AND created_by_user_id = ${userId} AND revoked_at IS NULL${keptScopes}
          UNION
          SELECT k.id FROM api_keys k JOIN tree t ON k.parent_key_id = t.id
        ) SELECT id FROM tree)`,
      ),
    )
    .returning({ id: apiKeys.id });
}

/** Tells each revoked key's Durable Object and drops this isolate's cached lookups (as `deleteApiKey` does). */
async function forgetRevoked(ctx: WorkspaceContext, revoked: { id: string }[]): Promise<void> {
  await Promise.all(revoked.map((r) => revokeApiKeyEverywhere(ctx.env, r.id)));
  for (const r of revoked) forgetApiKey(r.id);
}

/**
 * Changes a member's role. Lowering it revokes, in the same write batch, the keys the person minted that the new
 * role could not mint (docs/security.md "What a person issues"): an owner or admin made editor or viewer loses every
 * key they minted (and the keys those minted); owner ↔ admin keeps them.
 */
export async function updateMemberRole(ctx: WorkspaceContext, id: string, role: MemberRole): Promise<MemberView> {
  const member = await findMember(ctx, id);
  if (member.role === role) return present(member);
  if (member.role === "owner" || role === "owner") assertMayGrant(ctx, "owner");
  const keep = mintableScopes(role);
  const lost = mintableScopes(member.role).filter((scope) => !keep.includes(scope));
  // Invitations are made by owners (any role) and admins (any but owner): an owner made admin loses their owner
  // invitations, an owner or admin made editor or viewer all of them (issue 35).
  const losesInvitations = (member.role === "owner" || member.role === "admin") && role !== "owner";
  const update = ctx.db
    .update(workspaceMembers)
    .set({ role })
    .where(and(eq(workspaceMembers.id, id), eq(workspaceMembers.workspaceId, ctx.workspaceId), keepsAnOwner(ctx)))
    .returning({ id: workspaceMembers.id });
  const changed = sql`EXISTS (SELECT 1 FROM workspace_members WHERE id = ${id} AND role = ${role})`;
  const invitationsEnd = endInvitationsOf(ctx, ctx.workspaceId, member.userId, role, changed);
  // A role that no longer manages webhooks (the `webhooks` area) ends the endpoints the person made (issue 35).
  const managesWebhooks = (r: MemberRole) => roleAllows(r, "full", "webhooks");
  const endpointsEnd =
    managesWebhooks(member.role) && !managesWebhooks(role)
      ? [disableEndpointsOf(ctx, ctx.workspaceId, member.userId, changed)]
      : [];
  if (lost.length === 0) {
    const ends = [...(losesInvitations ? [invitationsEnd] : []), ...endpointsEnd];
    const [updated] = ends.length > 0 ? await ctx.db.batch([update, ...ends]) : [await update];
    if (updated.length === 0) throw conflict(LAST_OWNER);
  } else {
    const [updated, revoked] = await ctx.db.batch([
      update,
      revokeIssuedKeys(ctx, member.userId, keep, changed),
      invitationsEnd,
      endInvitationsOfRevokedKeys(ctx, ctx.workspaceId),
      ...endpointsEnd,
      disableEndpointsOfRevokedKeys(ctx, ctx.workspaceId),
    ]);
    await forgetRevoked(ctx, revoked);
    if (updated.length === 0) throw conflict(LAST_OWNER);
  }
  return present({ ...member, role });
}

/**
 * Removes a member (DELETE /api/members/{id}, also how a person leaves). In the same write batch every key the person
 * minted in this workspace is revoked (with the keys those minted); their connect links, the flows those links
 * started and their signed upload URLs end with the membership itself (src/services/people/issued-by.ts).
 */
export async function removeMember(ctx: WorkspaceContext, id: string): Promise<void> {
  const member = await findMember(ctx, id);
  if (member.role === "owner") assertMayGrant(ctx, "owner");
  const gone = sql`NOT EXISTS (SELECT 1 FROM workspace_members WHERE id = ${id})`;
  const [deleted, revoked] = await ctx.db.batch([
    ctx.db
      .delete(workspaceMembers)
      .where(and(eq(workspaceMembers.id, id), eq(workspaceMembers.workspaceId, ctx.workspaceId), keepsAnOwner(ctx)))
      .returning({ id: workspaceMembers.id }),
    revokeIssuedKeys(ctx, member.userId, [], gone),
    // Their invitations, and those of the keys just revoked, end with them (issue 35).
    endInvitationsOf(ctx, ctx.workspaceId, member.userId, null, gone),
    endInvitationsOfRevokedKeys(ctx, ctx.workspaceId),
    // ...and so do the webhook endpoints they and those keys made.
    disableEndpointsOf(ctx, ctx.workspaceId, member.userId, gone),
    disableEndpointsOfRevokedKeys(ctx, ctx.workspaceId),
  ]);
  await forgetRevoked(ctx, revoked);
  if (deleted.length === 0) throw conflict(LAST_OWNER);
}
