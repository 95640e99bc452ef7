import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Who issued a signed upload URL (migration 0003b): the API key, or — migration 0020 — the signed-in person
 * (`created_by_user_id`, with the workspace); swept once the URL has expired.
 */
export const signedUploadIssuers = sqliteTable(
  "signed_upload_issuers",
  {
    token: text("token").primaryKey(),
    apiKeyId: text("api_key_id"),
    expiresAt: integer("expires_at").notNull(),
    workspaceId: text("workspace_id"),
    createdByUserId: text("created_by_user_id"),
  },
  (t) => [index("signed_upload_issuers_expires_idx").on(t.expiresAt)],
);

/** Where a background sweep stopped (the R2 listing cursor of the orphan sweep). */
export const lifecycleCursors = sqliteTable("lifecycle_cursors", {
  name: text("name").primaryKey(),
  cursor: text("cursor"),
  updatedAt: integer("updated_at").notNull(),
});
