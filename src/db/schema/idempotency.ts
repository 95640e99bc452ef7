import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { workspaces } from "./workspaces";

/** First response to an `Idempotency-Key` request, replayed for 24 h. */
export const idempotencyRecords = sqliteTable(
  "idempotency_records",
  {
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    /** SHA-256 of the request body, to tell a retry from a different request under the same key. */
    requestHash: text("request_hash").notNull(),
    /** null while the first request is still running. */
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.key] }),
    // The housekeeping in every idempotent create's write batch deletes this workspace's expired records: a range of
    // this index, not a scan of every record the workspace wrote in the last 24 h (migration 0019).
    index("idempotency_records_expiry_idx").on(t.workspaceId, t.createdAt),
  ],
);
