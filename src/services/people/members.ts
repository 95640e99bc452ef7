import { and, asc, eq, sql } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { authUsers, type MemberRole, workspaceMembers } from "../../db/schema";
import { AppError, conflict, notFound } from "../../lib/errors";
import { formatIso } from "../../lib/time";

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

export async function updateMemberRole(ctx: WorkspaceContext, id: string, role: MemberRole): Promise<MemberView> {
  const member = await findMember(ctx, id);
  if (member.role === role) return present(member);
  if (member.role === "owner" || role === "owner") assertMayGrant(ctx, "owner");
  const updated = await ctx.db
    .update(workspaceMembers)
    .set({ role })
    .where(and(eq(workspaceMembers.id, id), eq(workspaceMembers.workspaceId, ctx.workspaceId), keepsAnOwner(ctx)))
    .returning({ id: workspaceMembers.id });
  if (updated.length === 0) throw conflict(LAST_OWNER);
  return present({ ...member, role });
}

export async function removeMember(ctx: WorkspaceContext, id: string): Promise<void> {
  const member = await findMember(ctx, id);
  if (member.role === "owner") assertMayGrant(ctx, "owner");
  const deleted = await ctx.db
    .delete(workspaceMembers)
    .where(and(eq(workspaceMembers.id, id), eq(workspaceMembers.workspaceId, ctx.workspaceId), keepsAnOwner(ctx)))
    .returning({ id: workspaceMembers.id });
  if (deleted.length === 0) throw conflict(LAST_OWNER);
}
