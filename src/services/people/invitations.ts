import { and, desc, eq, gt, isNull, sql } from "drizzle-orm";
import type { ServiceContext, WorkspaceContext } from "../../context";
import { invitations, type MemberRole, workspaceMembers, workspaces } from "../../db/schema";
import { randomToken, sha256Hex } from "../../lib/crypto";
import { AppError, notFound } from "../../lib/errors";
import { formatIso } from "../../lib/time";
import { issuerCanStillInvite } from "./invitation-issuers";
import { assertMayGrant } from "./members";

/**
 * Invitation links (issue 27): `<PUBLIC_URL>/app/invite#<token>` — the token in the fragment never reaches a server
 * log or a Referer, and the invite page sends it in a POST body (`POST /api/invitations/lookup`). Stored as SHA-256
 * only, shown once; single use (accepting marks it in the same statement that checks it), expiring (1 hour to 30
 * days, default 7 days, never later than the issuing key's own expiry), revocable. Made by owners and admins, a
 * `full` API key (so agents can invite), or the admin bootstrap (the first owner's invitation); owner invitations by
 * an owner only. An invitation lives only as long as its issuer could still make it (issue 35, `issuerCanStillInvite`).
 */
export const INVITATION_TTL_HOURS_DEFAULT = 7 * 24;
export const INVITATION_TTL_HOURS_MAX = 30 * 24;
export const INVITATION_GONE =
  "This invitation is not valid: it was used, withdrawn or has expired. Ask for a new one.";

export interface InvitationView {
  id: string;
  role: MemberRole;
  email: string | null;
  expires_at: string;
  created_at: string;
}

const present = (r: typeof invitations.$inferSelect): InvitationView => ({
  id: r.id,
  role: r.role,
  email: r.email,
  expires_at: formatIso(r.expiresAt),
  created_at: formatIso(r.createdAt),
});

/** Where invitation links point: the dashboard's invite page on PUBLIC_URL (the request's origin when unset). */
export const inviteUrl = (ctx: ServiceContext, token: string) =>
  `${ctx.config.PUBLIC_URL || ctx.origin}/app/invite#${token}`;

/** Writes an invitation; the caller has checked who may make it. */
export async function insertInvitation(
  ctx: ServiceContext,
  workspaceId: string,
  input: { role: MemberRole; email?: string | null; expiresInHours?: number },
  by: { userId: string | null; apiKeyId: string | null; keyExpiresAt?: number | null },
) {
  const token = randomToken(32);
  const now = ctx.now();
  const asked = now + (input.expiresInHours ?? INVITATION_TTL_HOURS_DEFAULT) * 3_600_000;
  const row: typeof invitations.$inferSelect = {
    id: crypto.randomUUID(),
    workspaceId,
    role: input.role,
    email: input.email ? input.email.trim().toLowerCase() : null,
    tokenHash: await sha256Hex(token),
    createdByUserId: by.userId,
    createdByApiKeyId: by.apiKeyId,
    createdAt: now,
    // Never outlives the key that makes it (issue 35): capped, as the answer's `expires_at` shows.
    expiresAt: by.keyExpiresAt != null ? Math.min(asked, by.keyExpiresAt) : asked,
    acceptedAt: null,
    acceptedByUserId: null,
    revokedAt: null,
  };
  await ctx.db.insert(invitations).values(row);
  return { ...present(row), token, url: inviteUrl(ctx, token) };
}

export async function createInvitation(
  ctx: WorkspaceContext,
  input: { role: MemberRole; email?: string | null; expiresInHours?: number },
) {
  assertMayGrant(ctx, input.role);
  return insertInvitation(ctx, ctx.workspaceId, input, {
    userId: ctx.person?.userId ?? null,
    apiKeyId: ctx.apiKeyId,
    keyExpiresAt: ctx.apiKeyExpiresAt,
  });
}

const pending = (now: number) =>
  and(
    isNull(invitations.acceptedAt),
    isNull(invitations.revokedAt),
    gt(invitations.expiresAt, now),
    issuerCanStillInvite(now),
  );

/** Invitations not yet used, withdrawn or expired, newest first. */
export async function listInvitations(ctx: WorkspaceContext): Promise<InvitationView[]> {
  const rows = await ctx.db
    .select()
    .from(invitations)
    .where(and(eq(invitations.workspaceId, ctx.workspaceId), pending(ctx.now())))
    .orderBy(desc(invitations.createdAt), desc(sql`${invitations}.rowid`));
  return rows.map(present);
}

export async function revokeInvitation(ctx: WorkspaceContext, id: string): Promise<void> {
  const row = await ctx.db
    .select({ role: invitations.role })
    .from(invitations)
    .where(and(eq(invitations.id, id), eq(invitations.workspaceId, ctx.workspaceId), pending(ctx.now())))
    .get();
  if (!row) throw notFound();
  assertMayGrant(ctx, row.role);
  await ctx.db
    .update(invitations)
    .set({ revokedAt: ctx.now() })
    .where(and(eq(invitations.id, id), eq(invitations.workspaceId, ctx.workspaceId)))
    .run();
}

/** A pending invitation by its token, with its workspace's name; 404 with one message for every other case. */
export async function lookupInvitation(ctx: ServiceContext, token: string) {
  if (token.length > 128) throw new AppError("not_found", INVITATION_GONE);
  const row = await ctx.db
    .select({ invitation: invitations, workspaceName: workspaces.name })
    .from(invitations)
    .innerJoin(workspaces, eq(workspaces.id, invitations.workspaceId))
    .where(and(eq(invitations.tokenHash, await sha256Hex(token)), pending(ctx.now())))
    .get();
  if (!row) throw new AppError("not_found", INVITATION_GONE);
  return {
    id: row.invitation.id,
    workspace_id: row.invitation.workspaceId,
    workspace_name: row.workspaceName,
    role: row.invitation.role,
    email: row.invitation.email,
    expires_at: formatIso(row.invitation.expiresAt),
  };
}

/**
 * Spends the invitation for a person and makes them a member, in one D1 batch (a transaction): the UPDATE claims it
 * only while it is still pending, and the INSERT reads the claimed row, so two people racing for one link get one
 * membership between them. A person already a member keeps their role. False when the invitation was not pending.
 */
export async function consumeInvitation(ctx: ServiceContext, token: string, userId: string): Promise<boolean> {
  const now = ctx.now();
  const hash = await sha256Hex(token);
  const [claimed] = await ctx.db.batch([
    ctx.db
      .update(invitations)
      .set({ acceptedAt: now, acceptedByUserId: userId })
      .where(and(eq(invitations.tokenHash, hash), pending(now)))
      .returning({ id: invitations.id }),
    ctx.db
      .insert(workspaceMembers)
      .select(
        ctx.db
          .select({
            id: sql<string>`${crypto.randomUUID()}`.as("id"),
            workspaceId: invitations.workspaceId,
            userId: sql<string>`${userId}`.as("user_id"),
            role: invitations.role,
            createdAt: sql<number>`${now}`.as("created_at"),
          })
          .from(invitations)
          .where(
            and(
              eq(invitations.tokenHash, hash),
              eq(invitations.acceptedByUserId, userId),
              eq(invitations.acceptedAt, now),
            ),
          ),
      )
      .onConflictDoNothing({ target: [workspaceMembers.workspaceId, workspaceMembers.userId] }),
  ]);
  return claimed.length > 0;
}
