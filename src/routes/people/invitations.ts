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

const TokenParam = z.object({
  token: z
    .string()
    .min(1)
    .max(128)
    .openapi({ param: { name: "token", in: "path" }, description: "The invitation token (the link's fragment)." }),
});

const lookupRoute = publicRoute({
  method: "get",
  path: "/api/invitations/lookup/{token}",
  operationId: "lookupInvitation",
  tags: ["People"],
  summary: "What an invitation is for (public: the token is the credential)",
  request: { params: TokenParam },
  responses: { 200: ok(InvitationLookupSchema, "The workspace and role it grants."), 404: gone },
});

const acceptRoute = publicRoute({
  method: "post",
  path: "/api/invitations/accept",
  operationId: "acceptInvitation",
  tags: ["People"],
  summary: "Accept an invitation: create your account (or sign in) and join, or join as the signed-in person",
  description:
    "With `password`: throttled like `POST /api/session`; sets the session cookie. Without: needs the session cookie and a same-origin `Origin`. The invitation is single use.",
  request: jsonBody(AcceptInvitationRequest),
  responses: {
    200: ok(SignedInSchema, "Joined: the person and all their workspaces."),
    401: ok(ErrorSchema, "Without a password and not signed in; or an existing person's wrong password."),
    403: ok(ErrorSchema, "A foreign or missing `Origin` with the session cookie."),
    404: gone,
    409: ok(ErrorSchema, "Another request made this person at the same moment."),
    429: ok(ErrorSchema, "Too many sign-in attempts; see `Retry-After`."),
  },
});

export function registerInvitations(app: App) {
  app.openapi(lookupRoute, async (c) => {
    const found = await lookupInvitation(c.get("service"), c.req.valid("param").token);
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
