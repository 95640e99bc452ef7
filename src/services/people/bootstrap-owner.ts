import type { ServiceContext } from "../../context";
import { AppError } from "../../lib/errors";
import { insertInvitation } from "./invitations";
import { assertStrongPassword } from "./passwords";
import { addMember, createPerson, findPersonByEmail } from "./persons";

export interface OwnerInput {
  email: string;
  name?: string;
  password?: string;
}

/** Checked before the workspace is made, so a refused password leaves nothing behind. */
export function checkOwnerInput(owner: OwnerInput): void {
  if (owner.password !== undefined) assertStrongPassword(owner.password, owner.email, "owner.password");
}

/**
 * The admin bootstrap's first owner (`POST /api/admin/workspaces` with `owner`), issue 35: an existing person is
 * never attached silently: whoever registered the address first (an account's password is theirs, not the address
 * owner's) must not receive the workspace. So:
 * - a new address with a password: the person is created (verified: the admin token is the authority) and is owner;
 * - an address that is already a person's (password or not), or no password: an owner invitation bound to the
 *   address, which only that address accepts (src/services/people/accept-invitation.ts) — an existing person by
 *   signing in with their own password;
 * and `owner_existed` says which it was.
 */
export async function bootstrapOwner(ctx: ServiceContext, workspaceId: string, owner: OwnerInput) {
  const email = owner.email.trim().toLowerCase();
  const existed = (await findPersonByEmail(ctx, email)) !== null;
  if (owner.password !== undefined && !existed) {
    try {
      const person = await createPerson(ctx, {
        email,
        name: owner.name ?? email.split("@")[0] ?? email,
        password: owner.password,
        emailVerified: true,
      });
      await addMember(ctx, workspaceId, person.id, "owner");
      return { owner: person, owner_existed: false };
    } catch (err) {
      // Made by another request meanwhile: the person exists now, so they get the invitation below.
      if (!(err instanceof AppError && err.status === 409)) throw err;
      return ownerInvitation(ctx, workspaceId, email, true);
    }
  }
  return ownerInvitation(ctx, workspaceId, email, existed);
}

async function ownerInvitation(ctx: ServiceContext, workspaceId: string, email: string, existed: boolean) {
  const invitation = await insertInvitation(
    ctx,
    workspaceId,
    { role: "owner", email },
    { userId: null, apiKeyId: null },
  );
  return { owner_invitation: { url: invitation.url, expires_at: invitation.expires_at }, owner_existed: existed };
}
