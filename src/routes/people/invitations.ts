import { z } from "@hono/zod-openapi";
import { assertSameOrigin, hasSessionCookie, withCookies } from "../../middleware/auth";
import { acceptInvitation } from "../../services/people/accept-invitation";
import {
  createInvitation,
  listInvitations,
  lookupInvitation,
  revokeInvitation,
} from "../../services/people/invitations";
import type { App } from "../../types";
import { authedRoute, ErrorSchema, IdParam, jsonBody, noContent, ok, publicRoute } from "../openapi";
import {
  AcceptInvitationRequest,
  CreatedInvitationSchema,
  CreateInvitationRequest,
  InvitationLookupSchema,
  InvitationSchema,
  SignedInSchema,
} from "./schemas";
import { clientIp } from "./session";

const gone = ok(ErrorSchema, "Unknown, used, withdrawn or expired (one message for all).");

const createRoute = authedRoute({
  area: "members",
  scope: "full",
  method: "post",
  path: "/api/invitations",
  operationId: "createInvitation",
  tags: ["People"],
  summary: "Invite someone by link (owners and admins, or a full API key)",
  description:
    "The answer's `url` (`<PUBLIC_URL>/app/invite#<token>`) is the invitation; hand it to the person. The token is shown this once. Only an owner invites owners.",
  request: jsonBody(CreateInvitationRequest),
  responses: { 201: ok(CreatedInvitationSchema, "The invitation and its link.") },
});

const listRoute = authedRoute({
  area: "members",
  scope: "full",
  method: "get",
  path: "/api/invitations",
  operationId: "listInvitations",
  tags: ["People"],
  summary: "Pending invitations (not used, withdrawn or expired), newest first",
  responses: { 200: ok(z.array(InvitationSchema), "Pending invitations.") },
});

const deleteRoute = authedRoute({
  area: "members",
  scope: "full",
  method: "delete",
  path: "/api/invitations/{id}",
  operationId: "revokeInvitation",
  tags: ["People"],
  summary: "Withdraw a pending invitation; its link stops working at once",
  request: { params: IdParam },
  responses: { 204: noContent },
});

const LookupInvitationRequest = z
  .object({
    token: z.string().min(1).max(128).openapi({ description: "The invitation token (the link's fragment)." }),
  })
  .openapi("LookupInvitationRequest");

/**
 * A POST with the token in the body (issue 35): a token in a URL path lands in request logs (ours and Cloudflare's),
 * browser history and proxies; a body does not. The path form `GET /api/invitations/lookup/{token}` is gone (it was
 * never part of the contract); it answers 404 like any unknown path, and the request log never records its path.
 */
const lookupRoute = publicRoute({
  method: "post",
  path: "/api/invitations/lookup",
  operationId: "lookupInvitation",
  tags: ["People"],
  summary: "What an invitation is for (public: the token, sent in the body, is the credential)",
  description:
    "`email`: the address the invitation is bound to (only that address accepts it); null for an invitation that names none, which only lets an existing account join.",
  request: jsonBody(LookupInvitationRequest),
  responses: { 200: ok(InvitationLookupSchema, "The workspace and role it grants."), 404: gone },
});

const acceptRoute = publicRoute({
  method: "post",
  path: "/api/invitations/accept",
  operationId: "acceptInvitation",
  tags: ["People"],
  summary: "Accept an invitation: create your account (or sign in) and join, or join as the signed-in person",
  description:
    "Bound to the invited address (issue 35): an invitation naming an email is accepted only by that address (another `email` answers 422, another signed-in person 403); with a password it creates that person (the link reaching the address verifies it) or signs in the existing one. An invitation naming no email only lets an existing account join (signed in, or its email and password: 401 with one message for an unknown email and a wrong password). With `password`: throttled like `POST /api/session`; sets the session cookie. Without: needs the session cookie and a same-origin `Origin`. A new person's password must not be a common one (422). The invitation is single use.",
  request: jsonBody(AcceptInvitationRequest),
  responses: {
    200: ok(SignedInSchema, "Joined: the person and all their workspaces."),
    401: ok(
      ErrorSchema,
      "Without a password and not signed in; an existing person's wrong password; for an invitation naming no email, an unknown email too.",
    ),
    403: ok(
      ErrorSchema,
      "A foreign or missing `Origin` with the session cookie; or signed in as another address than the invited one.",
    ),
    404: gone,
    409: ok(ErrorSchema, "Another request made this person at the same moment."),
    429: ok(ErrorSchema, "Too many sign-in attempts; see `Retry-After`."),
  },
});

export function registerInvitations(app: App) {
  app.openapi(lookupRoute, async (c) => {
    const found = await lookupInvitation(c.get("service"), c.req.valid("json").token);
    const res = c.json(
      { workspace_name: found.workspace_name, role: found.role, email: found.email, expires_at: found.expires_at },
      200,
    );
    res.headers.set("Cache-Control", "no-store");
    return res;
  });
  app.openapi(acceptRoute, async (c) => {
    if (hasSessionCookie(c) || c.req.header("Origin") !== undefined) assertSameOrigin(c);
    const body = c.req.valid("json");
    const { cookies, user, memberships } = await acceptInvitation(
      c.get("service"),
      c.req.raw.headers,
      clientIp(c),
      body,
    );
    return withCookies(c.json({ user, memberships }, 200), cookies);
  });
  app.openapi(createRoute, async (c) => {
    const body = c.req.valid("json");
    const created = await createInvitation(c.get("workspace"), {
      role: body.role,
      email: body.email ?? null,
      expiresInHours: body.expires_in_hours,
    });
    return c.json(created, 201);
  });
  app.openapi(listRoute, async (c) => c.json(await listInvitations(c.get("workspace")), 200));
  app.openapi(deleteRoute, async (c) => {
    await revokeInvitation(c.get("workspace"), c.req.valid("param").id);
    return c.body(null, 204);
  });
}
