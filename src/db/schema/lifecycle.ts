import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** The API key that issued a signed upload URL (migration 0003b); swept once the URL has expired. */
export const signedUploadIssuers = sqliteTable(
  "signed_upload_issuers",
  {
    token: text("token").primaryKey(),
    apiKeyId: text("api_key_id").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("signed_upload_issuers_expires_idx").on(t.expiresAt)],
);

/** Where a background sweep stopped (the R2 listing cursor of the orphan sweep). */
export const lifecycleCursors = sqliteTable("lifecycle_cursors", {
  name: text("name").primaryKey(),
  cursor: text("cursor"),
  updatedAt: integer("updated_at").notNull(),
});
