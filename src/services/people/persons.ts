import { and, asc, eq, sql } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { createDb } from "../../db/client";
import { authUsers, type MemberRole, workspaceMembers, workspaces } from "../../db/schema";
import { AppError, conflict } from "../../lib/errors";
import { isAuthApiError, peopleAuth, setCookies } from "./auth";

export interface Person {
  id: string;
  email: string;
  name: string;
}

export interface Membership {
  workspace_id: string;
  workspace_name: string;
  role: MemberRole;
}

/** One message for an unknown email and a wrong password (better-auth answers both alike, timing included). */
export const WRONG_CREDENTIALS = "The email or password is not correct.";

const present = (u: { id: string; email: string; name: string }): Person => ({
  id: u.id,
  email: u.email,
  name: u.name,
});

/** The person's workspaces, oldest membership first (the default workspace of a signed-in request). */
export async function membershipsOf(ctx: ServiceContext, userId: string): Promise<Membership[]> {
  const rows = await ctx.db
    .select({ workspaceId: workspaceMembers.workspaceId, name: workspaces.name, role: workspaceMembers.role })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .where(eq(workspaceMembers.userId, userId))
    .orderBy(asc(workspaceMembers.createdAt), asc(sql`${workspaceMembers}.rowid`));
  return rows.map((r) => ({ workspace_id: r.workspaceId, workspace_name: r.name, role: r.role }));
}

/** Runs a better-auth call, turning its 401 into ours (one message for every wrong credential). */
async function credentialCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (isAuthApiError(err) && (err.statusCode === 401 || err.statusCode === 400))
      throw new AppError("unauthenticated", WRONG_CREDENTIALS);
    throw err;
  }
}

/** Signs a person in: their session's Set-Cookie lines, the person and their memberships. */
export async function signIn(ctx: ServiceContext, headers: Headers, input: { email: string; password: string }) {
  const auth = await peopleAuth(ctx);
  const { headers: answer, response } = await credentialCall(() =>
    auth.api.signInEmail({ body: { email: input.email, password: input.password }, headers, returnHeaders: true }),
  );
  const user = present(response.user);
  return { cookies: setCookies(answer), user, memberships: await membershipsOf(ctx, user.id) };
}

/** Ends the session the cookie names (its row is deleted) and clears the cookie. */
export async function signOut(ctx: ServiceContext, headers: Headers): Promise<string[]> {
  const auth = await peopleAuth(ctx);
  try {
    const { headers: answer } = await auth.api.signOut({ headers, returnHeaders: true });
    return setCookies(answer);
  } catch (err) {
    if (isAuthApiError(err)) return [];
    throw err;
  }
}

export interface SignedIn {
  user: Person;
  sessionId: string;
}

/**
 * The person the session cookie names, or null (no cookie, bad signature, expired or signed-out session), and the
 * Set-Cookie lines to pass on: the cookie re-set when the session slid forward, or cleared when it ended.
 */
export async function currentPerson(
  ctx: ServiceContext,
  headers: Headers,
): Promise<{ signedIn: SignedIn | null; cookies: string[] }> {
  const read = async (on: ServiceContext) => {
    const auth = await peopleAuth(on);
    const { headers: answer, response } = await auth.api.getSession({ headers, returnHeaders: true });
    return { response, cookies: setCookies(answer) };
  };
  let { response, cookies } = await read(ctx);
  // A session made moments ago may not have reached the replica a GET's D1 session started on
  // (docs/consistency.md): a miss asks the primary before answering 401, as API keys do.
  if (!response) ({ response, cookies } = await read(onPrimary(ctx)));
  if (!response) return { signedIn: null, cookies };
  return { signedIn: { user: present(response.user), sessionId: response.session.id }, cookies };
}

/** The same context reading the primary database (no D1 session): for a miss that may be replica lag. */
export const onPrimary = (ctx: ServiceContext): ServiceContext => ({ ...ctx, db: createDb(ctx.env.DB) });

/** A person by (lowercased) email, or null. */
export async function findPersonByEmail(ctx: ServiceContext, email: string): Promise<Person | null> {
  const row = await ctx.db
    .select({ id: authUsers.id, email: authUsers.email, name: authUsers.name })
    .from(authUsers)
    .where(eq(authUsers.email, email.trim().toLowerCase()))
    .get();
  return row ?? null;
}

/**
 * Creates a person with an email + password credential, through better-auth's own internals (its hash, its rows),
 * since its sign-up endpoint is disabled (people come only from the bootstrap and invitations naming their address,
 * src/services/people/accept-invitation.ts). 409 when the email
 * is taken. Not atomic (D1 has no interactive transactions): a failed second write removes the person again.
 */
export async function createPerson(
  ctx: ServiceContext,
  input: { email: string; name: string; password: string; emailVerified?: boolean },
): Promise<Person> {
  const email = input.email.trim().toLowerCase();
  if (await findPersonByEmail(ctx, email)) throw conflict("A person with this email already exists.");
  const context = await (await peopleAuth(ctx)).$context;
  const hash = await context.password.hash(input.password);
  let user: { id: string; email: string; name: string };
  try {
    user = await context.internalAdapter.createUser(
      // Verified: by the admin token (the bootstrap), or by the invitation link that reached this address (issue 35).
      { email, name: input.name, emailVerified: input.emailVerified ?? false },
      { method: "email-password" },
    );
  } catch (err) {
    // Another request created the same email between the check above and this insert (auth_users_email_unique).
    if (/UNIQUE/i.test(String((err as Error)?.message ?? "") + String((err as Error)?.cause ?? "")))
      throw conflict("A person with this email already exists.");
    throw err;
  }
  try {
    await context.internalAdapter.linkAccount({
      userId: user.id,
      providerId: "credential",
      accountId: user.id,
      password: hash,
    });
  } catch (err) {
    await ctx.db.delete(authUsers).where(eq(authUsers.id, user.id)).run();
    throw err;
  }
  return present(user);
}

/** Adds a person to a workspace with a role; an existing member keeps the role they have. */
export async function addMember(ctx: ServiceContext, workspaceId: string, userId: string, role: MemberRole) {
  await ctx.db
    .insert(workspaceMembers)
    .values({ id: crypto.randomUUID(), workspaceId, userId, role, createdAt: ctx.now() })
    .onConflictDoNothing({ target: [workspaceMembers.workspaceId, workspaceMembers.userId] })
    .run();
}

/** The person's role in a workspace, or null when they are not a member (or the workspace does not exist). */
export async function roleIn(ctx: ServiceContext, userId: string, workspaceId: string) {
  const row = await ctx.db
    .select({ role: workspaceMembers.role })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.userId, userId), eq(workspaceMembers.workspaceId, workspaceId)))
    .get();
  return row?.role ?? null;
}
