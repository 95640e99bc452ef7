import { z } from "@hono/zod-openapi";
import { timingSafeEqual } from "../../lib/crypto";
import { notFound, unauthenticated } from "../../lib/errors";
import { createWorkspaceWithKey } from "../../services/workspaces/workspaces";
import type { App } from "../../types";
import { ErrorSchema, jsonBody, nameField, ok, publicRoute } from "../openapi";
import { ApiKeySchema, WorkspaceSchema } from "../schemas";

const CreateWorkspaceRequest = z.object({ name: nameField }).openapi("CreateWorkspaceRequest");
const CreateWorkspaceResponse = z
  .object({ workspace: WorkspaceSchema, token: ApiKeySchema, plain_token: z.string() })
  .openapi("CreateWorkspaceResponse");

const route = publicRoute({
  method: "post",
  path: "/api/admin/workspaces",
  operationId: "createWorkspace",
  tags: ["Admin"],
  summary: "Bootstrap a workspace and its first API key (Bearer ADMIN_TOKEN)",
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
    return c.json(await createWorkspaceWithKey(service, { name: body.name }), 201);
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
