import type { ServiceContext } from "../../context";
import { AppError, validationError } from "../../lib/errors";
import { consumeInvitation, INVITATION_GONE, lookupInvitation } from "./invitations";
import { assertStrongPassword } from "./passwords";
import { createPerson, currentPerson, findPersonByEmail, membershipsOf, type Person, signIn } from "./persons";
import { throttleSignIn } from "./throttle";

export interface AcceptInput {
  token: string;
  name?: string;
  email?: string;
  password?: string;
}

/** The invitation names an address and another one was sent (or another person is signed in). */
export const notTheInvitedAddress = (invited: string) =>
  `This invitation is for ${invited}: only that address can accept it.`;

/**
 * An invitation without an address cannot create an account (it would let whoever holds it claim any address);
 * one message for an unknown email and a wrong password, so the answer tells nothing about which addresses exist.
 */
export const OPEN_INVITATION_SIGN_IN =
  "This invitation names no email address, so it only lets an existing account join: the email or password is not correct.";

/**
 * Accepting an invitation (`POST /api/invitations/accept`, public), bound to the invited address (issue 35):
 * - the invitation names an email: only that address accepts it — the signed-in person must be it, a sent `email`
 *   must equal it (422 otherwise). With a password, an existing person signs in with theirs (401 when wrong); else the
 *   person is created, their address verified by the fact that the link reached it (`email_verified`);
 * - the invitation names none: only an existing person joins — signed in, or with their email and password (401 with
 *   one message for an unknown email and a wrong password). It never creates an account.
 * Throttled like `POST /api/session` whenever a password is sent. The invitation is spent only after the person is
 * known, in the same D1 batch that adds the membership.
 */
export async function acceptInvitation(ctx: ServiceContext, headers: Headers, ip: string, input: AcceptInput) {
  const invitation = await lookupInvitation(ctx, input.token);
  const invited = invitation.email;
  let person: Person;
  let cookies: string[] = [];
  if (input.password === undefined) {
    const { signedIn, cookies: refreshed } = await currentPerson(ctx, headers);
    if (!signedIn)
      throw new AppError(
        "unauthenticated",
        invited
          ? "Sign in first, or send name, email and password to create your account with this invitation."
          : "Sign in first, or send the email and password of your account: this invitation names no address, so it cannot create one.",
      );
    if (invited && signedIn.user.email !== invited)
      throw new AppError("forbidden", `${notTheInvitedAddress(invited)} You are signed in as another person.`);
    person = signedIn.user;
    cookies = refreshed;
  } else {
    if (!input.email) throw validationError({ email: ["The email field is required with a password."] });
    const email = input.email.trim().toLowerCase();
    if (invited && email !== invited) throw validationError({ email: [notTheInvitedAddress(invited)] });
    await throttleSignIn(ctx.env, ctx.config.SIGN_IN_TRIES_PER_MINUTE, { ip, email });
    if (invited && !(await findPersonByEmail(ctx, email))) {
      if (!input.name) throw validationError({ name: ["The name field is required to create your account."] });
      assertStrongPassword(input.password, email);
      await createPerson(ctx, { email, name: input.name, password: input.password, emailVerified: true });
    }
    let signedIn: Awaited<ReturnType<typeof signIn>>;
    try {
      signedIn = await signIn(ctx, headers, { email, password: input.password });
    } catch (err) {
      if (!invited && err instanceof AppError && err.status === 401)
        throw new AppError("unauthenticated", OPEN_INVITATION_SIGN_IN);
      throw err;
    }
    person = signedIn.user;
    cookies = signedIn.cookies;
  }
  if (!(await consumeInvitation(ctx, input.token, person.id))) throw new AppError("not_found", INVITATION_GONE);
  return { cookies, user: person, memberships: await membershipsOf(ctx, person.id) };
}
