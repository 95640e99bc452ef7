import { z } from "@hono/zod-openapi";
import { timingSafeEqual } from "../../lib/crypto";
import { notFound, unauthenticated } from "../../lib/errors";
import { bootstrapOwner } from "../../services/people/bootstrap-owner";
import { createWorkspaceWithKey } from "../../services/workspaces/workspaces";
import type { App } from "../../types";
import { ErrorSchema, isoDate, jsonBody, nameField, ok, publicRoute } from "../openapi";
import { emailField, PersonSchema, passwordField, personNameField } from "../people/schemas";
import { ApiKeySchema, WorkspaceSchema } from "../schemas";

const OwnerRequest = z
  .object({
    email: emailField,
    name: personNameField.optional(),
    password: passwordField.optional(),
  })
  .openapi("BootstrapOwner", {
    description:
      "The workspace's first owner. With `password` the person is created (an existing person with this email is added, their password unchanged) and can sign in at once; without, the answer carries an owner invitation link for them.",
  });
const CreateWorkspaceRequest = z
  .object({ name: nameField, owner: OwnerRequest.optional() })
  .openapi("CreateWorkspaceRequest");
const CreateWorkspaceResponse = z
  .object({
    workspace: WorkspaceSchema,
    token: ApiKeySchema,
    plain_token: z.string(),
    owner: PersonSchema.optional().openapi({ description: "With `owner.password`: the owner, a member now." }),
    owner_invitation: z
      .object({ url: z.string(), expires_at: isoDate })
      .optional()
      .openapi({ description: "With `owner` but no password: the link the owner signs up with (7 days)." }),
  })
  .openapi("CreateWorkspaceResponse");

const route = publicRoute({
  method: "post",
  path: "/api/admin/workspaces",
  operationId: "createWorkspace",
  tags: ["Admin"],
  summary: "Bootstrap a workspace, its first API key and optionally its first owner (Bearer ADMIN_TOKEN)",
  description: "Answers 404 when the ADMIN_TOKEN secret is not set, 401 for a wrong token.",
  security: [{ AdminToken: [] }],
  request: jsonBody(CreateWorkspaceRequest),
  responses: {
    201: ok(CreateWorkspaceResponse, "The workspace, its key record and the plain key (shown once)."),
    401: ok(ErrorSchema, "Wrong admin token."),
  },
});

export const registerCreateWorkspace = (app: App) =>
  app.openapi(route, async (c) => {
    const service = c.get("service");
    const body = c.req.valid("json");
    const created = await createWorkspaceWithKey(service, { name: body.name });
    if (!body.owner) return c.json(created, 201);
    return c.json({ ...created, ...(await bootstrapOwner(service, created.workspace.id, body.owner)) }, 201);
  });

/** 404 when ADMIN_TOKEN is not set, 401 unless the Authorization header carries it. */
export function requireAdminToken(expected: string | undefined, authorization: string | undefined): void {
  if (!expected) throw notFound();
  const given = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1] ?? "";
  if (!timingSafeEqual(given, expected)) throw unauthenticated();
}

/** Runs before body validation so a caller without the admin token learns nothing about the body rules. */
export const adminGate = (app: App) =>
  app.use("/api/admin/*", async (c, next) => {
    requireAdminToken(c.get("service").config.ADMIN_TOKEN, c.req.header("Authorization"));
    await next();
  });
