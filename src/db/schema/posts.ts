import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { labels } from "./labels";
import { media } from "./media";
import { socialAccounts } from "./social-accounts";
import { workspaces } from "./workspaces";

export type PostStatus = "draft" | "scheduled" | "publishing" | "published" | "partially_published" | "failed";
export type PostPlatformStatus = "pending" | "publishing" | "published" | "failed";

/** A thread item as stored: its text and the ids of its media (workspace media), in order. */
export interface ThreadItem {
  content: string;
  media: string[];
}

/** What publishing one follow-up (thread item or first comment) came to. */
/** Issue 37 (docs/queues.md, "Repeating posts"): a post's series rule, as the API takes and shows it. */
export interface RepeatRule {
  every: number;
  unit: "day" | "week" | "month";
  /** UTC `Y-m-d H:i:s`: no occurrence after it. */
  until?: string;
  /** Occurrences in all, the first included. */
  count?: number;
  /** Texts the occurrences after the first use in turn. */
  variations?: string[];
  /** IANA zone whose wall clock the series keeps (a 09:00 post stays at 09:00 across DST). */
  time_zone: string;
}

export interface FollowUpResult {
  status: "published" | "failed";
  platform_post_id: string | null;
  platform_url: string | null;
  error_message: string | null;
  /** PublishResult.replyRef of a published thread item, for the next item's `parent`. */
  reply_ref?: Record<string, unknown> | null;
}

export const posts = sqliteTable(
  "posts",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    content: text("content"),
    /** draft | scheduled | publishing | published | partially_published | failed */
    status: text("status").$type<PostStatus>().notNull().default("draft"),
    scheduledAt: integer("scheduled_at"),
    publishedAt: integer("published_at"),
    /** Issue 37: the queue whose slot this post holds (its queue_slots row); null when scheduled by hand. */
    queueId: text("queue_id"),
    /** Issue 37: the series rule (null: the post does not repeat). Presented. */
    repeat: text("repeat", { mode: "json" }).$type<RepeatRule>(),
    /** Issue 37: the series' first post, or the published post an evergreen fill copied; null for an original. */
    repeatOf: text("repeat_of"),
    /** Issue 37: the occurrence's number in its series or among its original's copies (0: the first). */
    repeatIndex: integer("repeat_index").notNull().default(0),
    /** Issue 37: set once the cron made this occurrence's next one or found its series ended. Not presented. */
    repeatContinued: integer("repeat_continued", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /**
     * Moves forward on every change to anything the post's resource shows — the post, its platforms and their
     * accounts, its media, its labels. Maintained by triggers (migrations/0001_post_revisions.sql), never by app
     * code; the rendered-post cache trusts it (src/services/posts/rendered-posts.ts).
     */
    revision: integer("revision").notNull().default(0),
  },
  (t) => [
    index("posts_workspace_list_idx").on(t.workspaceId, t.scheduledAt, t.createdAt),
    index("posts_workspace_status_idx").on(t.workspaceId, t.status),
    // The scheduler's scan: due scheduled posts across all workspaces.
    index("posts_due_idx").on(t.status, t.scheduledAt),
    // Issue 37: one post per (series, occurrence); the cron's scan for settled occurrences to continue.
    uniqueIndex("posts_repeat_of_idx").on(t.repeatOf, t.repeatIndex).where(sql`${t.repeatOf} IS NOT NULL`),
    index("posts_repeat_due_idx").on(t.status).where(sql`${t.repeat} IS NOT NULL AND ${t.repeatContinued} = 0`),
  ],
);

export const postPlatforms = sqliteTable(
  "post_platforms",
  {
    id: text("id").primaryKey(),
    postId: text("post_id")
      .notNull()
      .references(() => posts.id, { onDelete: "cascade" }),
    socialAccountId: text("social_account_id")
      .notNull()
      .references(() => socialAccounts.id),
    platform: text("platform").notNull(),
    contentType: text("content_type").notNull(),
    /** pending | publishing | published | failed */
    status: text("status").$type<PostPlatformStatus>().notNull().default("pending"),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    meta: text("meta", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    platformPostId: text("platform_post_id"),
    platformUrl: text("platform_url"),
    publishedAt: integer("published_at"),
    errorMessage: text("error_message"),
    displayName: text("display_name").notNull(),
    displayUsername: text("display_username").notNull(),
    displayAvatar: text("display_avatar").notNull().default(""),
    /** Set when a publish attempt claims the row; used for the one-hour timeout and duplicate protection. */
    claimedAt: integer("claimed_at"),
    attempts: integer("attempts").notNull().default(0),
    /**
     * What the last publish attempt handed the network before its irreversible call (docs/publishing.md, "No post
     * is ever made twice"); null until then and again once the row settles. Not presented.
     */
    publishState: text("publish_state", { mode: "json" }).$type<Record<string, unknown>>(),
    position: integer("position").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /** Issue 20 (docs/threads.md): the row's own text; null means the post's content. */
    content: text("content"),
    /** Follow-up items published as replies after the main post (X, Bluesky, Threads, Mastodon); null when none. */
    thread: text("thread", { mode: "json" }).$type<ThreadItem[]>(),
    /** Text posted under the published post (a comment, or a reply where comments are replies); null when none. */
    firstComment: text("first_comment"),
    /** Results of the follow-ups, keyed `t1`…`tN` (thread items) and `c` (first comment). Presented. */
    followUps: text("follow_ups", { mode: "json" }).$type<Record<string, FollowUpResult>>(),
    /** PublishResult.replyRef of the main post (Bluesky `{cid}`), for the replies. Not presented. */
    replyRef: text("reply_ref", { mode: "json" }).$type<Record<string, unknown>>(),
    /** Each follow-up's publish checkpoint (`{t1: {request, state}}`), like `publish_state`. Not presented. */
    followUpState: text("follow_up_state", { mode: "json" }).$type<Record<string, Record<string, unknown>>>(),
  },
  (t) => [
    index("post_platforms_post_idx").on(t.postId, t.position),
    index("post_platforms_status_idx").on(t.status, t.claimedAt),
    index("post_platforms_account_idx").on(t.socialAccountId),
  ],
);

export const postMedia = sqliteTable(
  "post_media",
  {
    postId: text("post_id")
      .notNull()
      .references(() => posts.id, { onDelete: "cascade" }),
    mediaId: text("media_id")
      .notNull()
      .references(() => media.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
  },
  (t) => [primaryKey({ columns: [t.postId, t.mediaId] }), index("post_media_media_idx").on(t.mediaId)],
);

/**
 * Issue 28: the media each thread item names (migration 0021), kept by triggers on `post_platforms.thread` — never
 * written by the app. Lets "does a thread still name this media?" be an index lookup.
 */
export const postThreadMedia = sqliteTable(
  "post_thread_media",
  {
    mediaId: text("media_id").notNull(),
    postPlatformId: text("post_platform_id").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.mediaId, t.postPlatformId] }),
    index("post_thread_media_row_idx").on(t.postPlatformId),
  ],
);

export const postLabels = sqliteTable(
  "post_labels",
  {
    postId: text("post_id")
      .notNull()
      .references(() => posts.id, { onDelete: "cascade" }),
    labelId: text("label_id")
      .notNull()
      .references(() => labels.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.postId, t.labelId] }), index("post_labels_label_idx").on(t.labelId)],
);
