import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { AppError } from "../../lib/errors";
import {
  assertSameOrigin,
  CLEAR_SESSION_COOKIE,
  hasSessionCookie,
  sessionEnded,
  WORKSPACE_HEADER,
  withCookies,
} from "../../middleware/auth";
import { currentPerson, membershipsOf, onPrimary, signIn, signOut } from "../../services/people/persons";
import { throttleSignIn } from "../../services/people/throttle";
import type { App, AppEnv } from "../../types";
import { ErrorSchema, jsonBody, noContent, ok, publicRoute } from "../openapi";
import { MeSchema, SignedInSchema } from "./schemas";

export const clientIp = (c: Context<AppEnv>) => c.req.header("CF-Connecting-IP") ?? "unknown";

/**
 * Sign-in CSRF: a browser always sends `Origin` on a POST; a foreign one is refused (a page elsewhere must not sign
 * a visitor in to someone else's account). Without one (curl, a script) there is no browser to protect.
 */
export function refuseForeignOrigin(c: Context<AppEnv>): void {
  if (c.req.header("Origin") !== undefined) assertSameOrigin(c);
}

const SignInRequest = z
  .object({
    email: z.string().trim().min(1).max(254).openapi({ example: "ana@example.com" }),
    password: z.string().min(1).max(1024).openapi({ example: "correct horse battery" }),
  })
  .openapi("SignInRequest");

const sessionCookieHeader = {
  "Set-Cookie": {
    description:
      "`__Host-esp-session=<token>.<signature>; Max-Age=604800; Path=/; HttpOnly; Secure; SameSite=Lax` — 7 days, extended on use after a day.",
    schema: { type: "string" as const },
  },
};

const signInRoute = publicRoute({
  method: "post",
  path: "/api/session",
  operationId: "signIn",
  tags: ["People"],
  summary: "Sign in with email and password (sets the session cookie)",
  description:
    "Throttled per client IP and email (`SIGN_IN_TRIES_PER_MINUTE`), per IP (4 ×) and per email (10 ×); every attempt counts. A foreign `Origin` answers 403.",
  request: jsonBody(SignInRequest),
  responses: {
    200: { ...ok(SignedInSchema, "Signed in: the person and their workspaces."), headers: sessionCookieHeader },
    401: ok(ErrorSchema, "Unknown email or wrong password (one message for both)."),
    403: ok(ErrorSchema, "A foreign `Origin`."),
    429: ok(ErrorSchema, "Too many attempts from this address or for this email; see `Retry-After`."),
    503: ok(ErrorSchema, "AUTH_SECRET is not set on this server."),
  },
});

const signOutRoute = publicRoute({
  method: "delete",
  path: "/api/session",
  operationId: "signOut",
  tags: ["People"],
  summary: "Sign out: ends the session and clears the cookie",
  description: "With a session cookie the request must carry a same-origin `Origin` (403 otherwise).",
  responses: {
    204: { ...noContent, headers: { "Set-Cookie": { description: "Clears the cookie.", schema: { type: "string" } } } },
    403: ok(ErrorSchema, "No same-origin `Origin`."),
  },
});

const meRoute = publicRoute({
  method: "get",
  path: "/api/me",
  operationId: "getMe",
  tags: ["People"],
  summary: "The signed-in person, their workspaces and the one this request acts in",
  security: [{ Session: [] }],
  request: {
    headers: z.object({
      [WORKSPACE_HEADER.toLowerCase()]: z.string().optional().openapi({
        description: "The workspace to act in (see `workspace_id`).",
      }),
    }),
  },
  responses: {
    200: ok(MeSchema, "The person."),
    401: ok(ErrorSchema, "Not signed in, or the session has ended (the cookie is cleared)."),
    403: ok(ErrorSchema, "`X-Workspace-Id` names a workspace the person is not a member of."),
  },
});

export function registerSession(app: App) {
  app.openapi(signInRoute, async (c) => {
    refuseForeignOrigin(c);
    const service = c.get("service");
    const body = c.req.valid("json");
    await throttleSignIn(service.env, service.config.SIGN_IN_TRIES_PER_MINUTE, { ip: clientIp(c), email: body.email });
    const { cookies, user, memberships } = await signIn(service, c.req.raw.headers, body);
    return withCookies(c.json({ user, memberships }, 200), cookies);
  });

  app.openapi(signOutRoute, async (c) => {
    let cookies: string[] = [];
    if (hasSessionCookie(c)) {
      assertSameOrigin(c);
      cookies = await signOut(c.get("service"), c.req.raw.headers);
    }
    return withCookies(c.body(null, 204), cookies.length ? cookies : [CLEAR_SESSION_COOKIE]);
  });

  app.openapi(meRoute, async (c) => {
    const service = c.get("service");
    const { signedIn, cookies } = await currentPerson(service, c.req.raw.headers);
    if (!signedIn) throw sessionEnded();
    const asked = c.req.header(WORKSPACE_HEADER);
    let memberships = await membershipsOf(service, signedIn.user.id);
    // Just joined (replica lag, docs/consistency.md): the primary has it.
    if (memberships.length === 0 || (asked !== undefined && !memberships.some((m) => m.workspace_id === asked)))
      memberships = await membershipsOf(onPrimary(service), signedIn.user.id);
    const acting = asked === undefined ? memberships[0] : memberships.find((m) => m.workspace_id === asked);
    if (asked !== undefined && !acting) throw new AppError("forbidden", "You are not a member of this workspace.");
    // Cache-Control: no-store comes with every answer to a request with credentials (src/middleware/private-answers.ts).
    return withCookies(
      c.json({ user: signedIn.user, memberships, workspace_id: acting?.workspace_id ?? null }, 200),
      cookies,
    );
  });
}
