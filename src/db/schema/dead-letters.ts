import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * A publish job that ran out of deliveries (the `publish-jobs-dlq` consumer stores each message here, docs/runbook.md).
 * `body` is the message as received (JSON text), kept even when it does not parse, so an operator sees what arrived;
 * `post_platform_id` is set when it does. `replayed_at` marks a message sent again through
 * `POST /api/admin/dead-letters/replay`. No foreign key: the row outlives a deleted post or workspace.
 */
export const deadLetters = sqliteTable(
  "dead_letters",
  {
    id: text("id").primaryKey(),
    queue: text("queue").notNull(),
    messageId: text("message_id").notNull(),
    body: text("body").notNull(),
    postPlatformId: text("post_platform_id"),
    workspaceId: text("workspace_id"),
    attempts: integer("attempts").notNull(),
    /** The row's last error when it was failed (`post_platforms.error_message`). */
    error: text("error"),
    createdAt: integer("created_at").notNull(),
    replayedAt: integer("replayed_at"),
  },
  (t) => [
    index("dead_letters_pending_idx").on(t.replayedAt, t.createdAt),
    index("dead_letters_created_idx").on(t.createdAt, t.id),
  ],
);
