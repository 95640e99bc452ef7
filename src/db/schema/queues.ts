import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { labels } from "./labels";
import { posts } from "./posts";
import { workspaces } from "./workspaces";

/** A weekly posting time: ISO weekday (Monday = 1) and `HH:MM` wall-clock in the queue's time zone. */
export interface QueueSlot {
  weekday: number;
  time: string;
}

/** Issue 37 (docs/queues.md): a named set of weekly slots in an IANA time zone. */
export const queues = sqliteTable(
  "queues",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    timeZone: text("time_zone").notNull(),
    slots: text("slots", { mode: "json" }).$type<QueueSlot[]>().notNull().default([]),
    socialAccountIds: text("social_account_ids", { mode: "json" }).$type<string[]>().notNull().default([]),
    paused: integer("paused", { mode: "boolean" }).notNull().default(false),
    isDefault: integer("is_default", { mode: "boolean" }).notNull().default(false),
    /** Issue 37: the label whose published posts refill the queue's empty slots (null: no evergreen fill). */
    evergreenLabelId: text("evergreen_label_id").references(() => labels.id, { onDelete: "set null" }),
    /** Issue 37: days at least between two copies of one evergreen post (≥ 7). */
    evergreenMinDays: integer("evergreen_min_days").notNull().default(30),
    /** Issue 37: the post the last evergreen fill copied — never copied twice in a row. Not presented. */
    evergreenLastPostId: text("evergreen_last_post_id"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("queues_workspace_idx").on(t.workspaceId, t.createdAt),
    uniqueIndex("queues_one_default_idx").on(t.workspaceId).where(sql`${t.isDefault} = 1`),
    // Issue 37: the cron's evergreen scan reads only the queues that name a label.
    index("queues_evergreen_idx").on(t.workspaceId).where(sql`${t.evergreenLabelId} IS NOT NULL`),
  ],
);

/**
 * A held slot (migration 0027): by a post (`post_id`) or a reservation (`post_id` null, `expires_at` set). The
 * UNIQUE index on (queue_id, at) is the one-post-per-slot rule, enforced by SQLite under any concurrency.
 */
export const queueSlots = sqliteTable(
  "queue_slots",
  {
    id: text("id").primaryKey(),
    queueId: text("queue_id")
      .notNull()
      .references(() => queues.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id").notNull(),
    at: integer("at").notNull(),
    postId: text("post_id").references(() => posts.id, { onDelete: "cascade" }),
    expiresAt: integer("expires_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("queue_slots_queue_at_idx").on(t.queueId, t.at),
    uniqueIndex("queue_slots_post_idx").on(t.postId),
  ],
);
