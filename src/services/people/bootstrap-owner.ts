import type { ServiceContext } from "../../context";
import { insertInvitation } from "./invitations";
import { addMember, createPerson, findPersonByEmail } from "./persons";

export interface OwnerInput {
  email: string;
  name?: string;
  password?: string;
}

/**
 * The admin bootstrap's first owner (`POST /api/admin/workspaces` with `owner`): with a password the person is
 * created — or, when the email is already a person's, that person is added (their password unchanged: the admin
 * token is the authority here) — as owner; without one an owner invitation is made for them.
 */
export async function bootstrapOwner(ctx: ServiceContext, workspaceId: string, owner: OwnerInput) {
  if (owner.password === undefined) {
    const invitation = await insertInvitation(
      ctx,
      workspaceId,
      { role: "owner", email: owner.email },
      { userId: null, apiKeyId: null },
    );
    return { owner_invitation: { url: invitation.url, expires_at: invitation.expires_at } };
  }
  const person =
    (await findPersonByEmail(ctx, owner.email)) ??
    (await createPerson(ctx, {
      email: owner.email,
      name: owner.name ?? owner.email.split("@")[0] ?? owner.email,
      password: owner.password,
    }));
  await addMember(ctx, workspaceId, person.id, "owner");
  return { owner: person };
}
