import type { apiKeys, labels, signatures, socialAccounts, workspaces } from "../db/schema";
import { formatIso, formatYmdHis } from "../lib/time";

/** Wire shapes of the workspace-level resources. Dates: `Y-m-d H:i:s` UTC; API keys: ISO 8601 with offset. */
export const presentWorkspace = (w: typeof workspaces.$inferSelect) => ({
  id: w.id,
  name: w.name,
  created_at: formatYmdHis(w.createdAt),
  updated_at: formatYmdHis(w.updatedAt),
});

export const presentApiKey = (k: typeof apiKeys.$inferSelect) => ({
  id: k.id,
  name: k.name,
  last_used_at: formatIso(k.lastUsedAt),
  expires_at: formatIso(k.expiresAt),
  created_at: formatIso(k.createdAt),
  /** One level today (`full`, `publish` or `read`); an array so finer scopes can be added. */
  scopes: [k.scope],
});

export const presentLabel = (
  l: Pick<typeof labels.$inferSelect, "id" | "name" | "color" | "createdAt" | "updatedAt">,
) => ({
  id: l.id,
  name: l.name,
  color: l.color,
  created_at: formatYmdHis(l.createdAt),
  updated_at: formatYmdHis(l.updatedAt),
});

export const presentSignature = (s: typeof signatures.$inferSelect) => ({
  id: s.id,
  name: s.name,
  content: s.content,
  created_at: formatYmdHis(s.createdAt),
  updated_at: formatYmdHis(s.updatedAt),
});

export const presentSocialAccount = (
  a: Pick<
    typeof socialAccounts.$inferSelect,
    | "id"
    | "platform"
    | "displayName"
    | "username"
    | "avatarUrl"
    | "isActive"
    | "status"
    | "refreshable"
    | "accessEndsAt"
    | "health"
    | "healthReason"
    | "createdAt"
    | "updatedAt"
  >,
) => ({
  id: a.id,
  platform: a.platform,
  display_name: a.displayName,
  username: a.username,
  avatar_url: a.avatarUrl,
  is_active: a.isActive,
  status: a.status,
  // Issue 29 (docs/account-health.md). A disconnected account needs a reconnect whatever its last health was.
  expires_at: a.accessEndsAt === null ? null : formatYmdHis(a.accessEndsAt),
  refreshable: a.refreshable,
  health: a.status === "disconnected" ? ("needs_reconnect" as const) : a.health,
  health_reason: a.status === "disconnected" ? "The account was disconnected." : a.healthReason,
  created_at: formatYmdHis(a.createdAt),
  updated_at: formatYmdHis(a.updatedAt),
});

export type WorkspaceResource = ReturnType<typeof presentWorkspace>;
export type ApiKeyResource = ReturnType<typeof presentApiKey>;
export type LabelResource = ReturnType<typeof presentLabel>;
export type SignatureResource = ReturnType<typeof presentSignature>;
export type SocialAccountResource = ReturnType<typeof presentSocialAccount>;
