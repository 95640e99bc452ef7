import { getWorkspace } from "../../services/workspaces/workspaces";
import type { App } from "../../types";
import { authedRoute, ok } from "../openapi";
import { WorkspaceSchema } from "../schemas";

const route = authedRoute({
  method: "get",
  path: "/api/workspace",
  operationId: "getWorkspace",
  tags: ["Workspace"],
  summary: "The workspace bound to the API key",
  responses: { 200: ok(WorkspaceSchema, "The workspace.") },
});

export const registerGetWorkspace = (app: App) =>
  app.openapi(route, async (c) => c.json(await getWorkspace(c.get("workspace")), 200));
