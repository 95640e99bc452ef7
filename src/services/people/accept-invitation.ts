import type { ServiceContext } from "../../context";
import { AppError, validationError } from "../../lib/errors";
import { consumeInvitation, INVITATION_GONE, lookupInvitation } from "./invitations";
import { createPerson, currentPerson, findPersonByEmail, membershipsOf, type Person, signIn } from "./persons";
import { throttleSignIn } from "./throttle";

export interface AcceptInput {
  token: string;
  name?: string;
  email?: string;
  password?: string;
}

/**
 * Accepting an invitation (`POST /api/invitations/accept`, public):
 * - with `email` + `password`: a new person is created (`name` required) or an existing one signs in with their
 *   password (throttled like `POST /api/session`, 401 when wrong), and is signed in;
 * - without a password: the signed-in person (session cookie) joins.
 * The invitation is spent only after the person is known, in the same D1 batch that adds the membership.
 */
export async function acceptInvitation(ctx: ServiceContext, headers: Headers, ip: string, input: AcceptInput) {
  await lookupInvitation(ctx, input.token);
  let person: Person;
  let cookies: string[] = [];
  if (input.password === undefined) {
    const { signedIn, cookies: refreshed } = await currentPerson(ctx, headers);
    if (!signedIn)
      throw new AppError(
        "unauthenticated",
        "Sign in first, or send name, email and password to create your account with this invitation.",
      );
    person = signedIn.user;
    cookies = refreshed;
  } else {
    if (!input.email) throw validationError({ email: ["The email field is required with a password."] });
    await throttleSignIn(ctx.env, ctx.config.SIGN_IN_TRIES_PER_MINUTE, { ip, email: input.email });
    if (!(await findPersonByEmail(ctx, input.email))) {
      if (!input.name) throw validationError({ name: ["The name field is required to create your account."] });
      await createPerson(ctx, { email: input.email, name: input.name, password: input.password });
    }
    const signedIn = await signIn(ctx, headers, { email: input.email, password: input.password });
    person = signedIn.user;
    cookies = signedIn.cookies;
  }
  if (!(await consumeInvitation(ctx, input.token, person.id))) throw new AppError("not_found", INVITATION_GONE);
  return { cookies, user: person, memberships: await membershipsOf(ctx, person.id) };
}
