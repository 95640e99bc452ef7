import type { MemberRole } from "../../db/schema/people";
import { AppError } from "../../lib/errors";
import { type ApiKeyScope, scopeAllows } from "../api-keys/scopes";

/**
 * What a route touches, beside the scope it needs (docs/security.md "Roles"). API keys are judged by scope alone, as
 * before; a signed-in person by the role's scope AND the route's area, so "editor" is one row of this table rather
 * than checks in routes:
 * - `content`: posts, media, uploads, labels, signatures, social accounts, connect links, the workspace, metrics;
 * - `keys`: API keys; `webhooks`: webhook endpoints and deliveries; `members`: members and invitations.
 */
export const PERMISSION_AREAS = ["content", "keys", "webhooks", "members"] as const;
export type PermissionArea = (typeof PERMISSION_AREAS)[number];

export interface RoleGrant {
  /** The API key scope the role acts with (services read it, e.g. the webhook view). */
  scope: ApiKeyScope;
  areas: readonly PermissionArea[];
}

export const ROLE_GRANTS: Record<MemberRole, RoleGrant> = {
  owner: { scope: "full", areas: PERMISSION_AREAS },
  admin: { scope: "full", areas: PERMISSION_AREAS },
  editor: { scope: "full", areas: ["content"] },
  viewer: { scope: "read", areas: ["content"] },
};

export const roleAllows = (role: MemberRole, need: ApiKeyScope, area: PermissionArea) =>
  scopeAllows(ROLE_GRANTS[role].scope, need) && ROLE_GRANTS[role].areas.includes(area);

export const roleForbidden = (role: MemberRole) =>
  new AppError("forbidden", `Your role in this workspace (${role}) does not allow this operation.`);
