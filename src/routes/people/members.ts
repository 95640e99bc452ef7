import { z } from "@hono/zod-openapi";
import { listMembers, removeMember, updateMemberRole } from "../../services/people/members";
import type { App } from "../../types";
import { authedRoute, ErrorSchema, IdParam, jsonBody, noContent, ok } from "../openapi";
import { MemberSchema, RoleSchema } from "./schemas";

const ownerRules = {
  403: ok(ErrorSchema, "Not allowed: only an owner makes, changes or removes owners (an API key never does)."),
  409: ok(ErrorSchema, "The last owner cannot be demoted or removed."),
};

const listRoute = authedRoute({
  area: "members",
  scope: "full",
  method: "get",
  path: "/api/members",
  operationId: "listMembers",
  tags: ["People"],
  summary: "The workspace's members (owners and admins, or a full API key)",
  responses: { 200: ok(z.array(MemberSchema), "Members, oldest first.") },
});

const UpdateMemberRequest = z.object({ role: RoleSchema }).openapi("UpdateMemberRequest");

const updateRoute = authedRoute({
  area: "members",
  scope: "full",
  method: "patch",
  path: "/api/members/{id}",
  operationId: "updateMember",
  tags: ["People"],
  summary: "Change a member's role",
  description:
    "Lowering a role revokes, in the same write, the API keys the person minted with a session that the new role could not mint (and the keys those keys minted): an owner or admin made editor or viewer loses all of them; owner ↔ admin keeps them. Keys minted by API keys are untouched.",
  request: { params: IdParam, ...jsonBody(UpdateMemberRequest) },
  responses: { 200: ok(MemberSchema, "The member with the new role."), ...ownerRules },
});

const deleteRoute = authedRoute({
  area: "members",
  scope: "full",
  method: "delete",
  path: "/api/members/{id}",
  operationId: "removeMember",
  tags: ["People"],
  summary: "Remove a member from the workspace (their account stays; their other workspaces too)",
  description:
    "Everything the person issued in this workspace with a session ends with the membership: their API keys (and the keys those minted) are revoked in the same write; their connect links answer 410, the connect flows they started are refused at the callback, and their signed upload URLs answer 403. Keys of other members and of API keys are untouched.",
  request: { params: IdParam },
  responses: { 204: noContent, ...ownerRules },
});

export function registerMembers(app: App) {
  app.openapi(listRoute, async (c) => c.json(await listMembers(c.get("workspace")), 200));
  app.openapi(updateRoute, async (c) =>
    c.json(await updateMemberRole(c.get("workspace"), c.req.valid("param").id, c.req.valid("json").role), 200),
  );
  app.openapi(deleteRoute, async (c) => {
    await removeMember(c.get("workspace"), c.req.valid("param").id);
    return c.body(null, 204);
  });
}
