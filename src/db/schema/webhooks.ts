import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { workspaces } from "./workspaces";

/** A receiver of a workspace's events (docs/webhooks.md). `events` is a JSON array of subscribed event types. */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    description: text("description").notNull().default(""),
    events: text("events", { mode: "json" }).$type<string[]>().notNull().default([]),
    /** AES-GCM sealed `whsec_…` signing secret; returned only at creation and rotation. */
    secret: text("secret").notNull(),
    /** The secret before the last rotation, still used to sign until `previous_secret_expires_at`. */
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: integer("previous_secret_expires_at"),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    disabledReason: text("disabled_reason"),
    /** First failed attempt since the last success; the endpoint is disabled when it gets too old. */
    failingSince: integer("failing_since"),
    /** Who made it (issue 35): the person, or the API key; it is disabled when that maker's access ends. */
    createdByUserId: text("created_by_user_id"),
    createdByApiKeyId: text("created_by_api_key_id"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("webhook_endpoints_workspace_idx").on(t.workspaceId, t.createdAt)],
);

/**
 * The transactional outbox: one row per event, written in the same D1 batch as the change that caused it.
 * `subject` is the snapshot the payload is rendered from; `payload` is the rendered body, fixed at dispatch so
 * every attempt sends the same bytes.
 */
export const webhookEvents = sqliteTable(
  "webhook_events",
  {
    /** `msg_<32 hex>`: the `webhook-id` header of every delivery of this event. */
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    subject: text("subject").notNull(),
    payload: text("payload"),
    createdAt: integer("created_at").notNull(),
    dispatchedAt: integer("dispatched_at"),
  },
  // Migration 0022: on dispatched_at, so the undispatched come back in rowid (commit) order without a table walk.
  (t) => [
    index("webhook_events_undispatched_idx").on(t.dispatchedAt).where(sql`${t.dispatchedAt} IS NULL`),
    // Migration 0024: retention deletes the oldest first.
    index("webhook_events_created_idx").on(t.createdAt),
  ],
);

export type WebhookDeliveryStatus = "pending" | "sending" | "succeeded" | "failed";

/** One event for one endpoint: its attempts so far and the outcome of the last one. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    eventId: text("event_id")
      .notNull()
      .references(() => webhookEvents.id, { onDelete: "cascade" }),
    status: text("status").$type<WebhookDeliveryStatus>().notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at"),
    lastAttemptAt: integer("last_attempt_at"),
    responseStatus: integer("response_status"),
    responseExcerpt: text("response_excerpt"),
    durationMs: integer("duration_ms"),
    error: text("error"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("webhook_deliveries_endpoint_idx").on(t.endpointId, t.createdAt),
    index("webhook_deliveries_due_idx").on(t.status, t.nextAttemptAt),
    uniqueIndex("webhook_deliveries_event_endpoint_unique").on(t.eventId, t.endpointId),
  ],
);
