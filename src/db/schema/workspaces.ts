import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const workspaces = sqliteTable("workspaces", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** SHA-256 hex of the plain token; the plain token is never stored. */
    tokenHash: text("token_hash").notNull(),
    lastUsedAt: integer("last_used_at"),
    expiresAt: integer("expires_at"),
    revokedAt: integer("revoked_at"),
    createdAt: integer("created_at").notNull(),
    /** `full`, `publish` or `read` (src/services/api-keys/scopes.ts); keys older than issue 21 are `full`. */
    scope: text("scope", { enum: ["full", "publish", "read"] })
      .notNull()
      .default("full"),
    /** The key that minted this one; null for bootstrap keys. Revoking a key revokes its descendants. */
    parentKeyId: text("parent_key_id"),
    /** The signed-in person who minted this key (migration 0020): revoked when they leave or can no longer mint it. */
    createdByUserId: text("created_by_user_id"),
  },
  (t) => [
    index("api_keys_created_by_idx").on(t.workspaceId, t.createdByUserId),
    index("api_keys_parent_idx").on(t.parentKeyId),
    uniqueIndex("api_keys_token_hash_unique").on(t.tokenHash),
    index("api_keys_workspace_idx").on(t.workspaceId, t.createdAt),
  ],
);
