import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { workspaces } from "./workspaces";

export type AccountHealth = "ok" | "expiring" | "needs_reconnect";

export const socialAccounts = sqliteTable(
  "social_accounts",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    platform: text("platform").notNull(),
    /** The platform's own id of the account (X user id, LinkedIn person/organization id, page id, DID, …). */
    platformUserId: text("platform_user_id"),
    displayName: text("display_name").notNull(),
    username: text("username").notNull(),
    avatarUrl: text("avatar_url"),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    /** connected | disconnected | token_expired */
    status: text("status").$type<"connected" | "disconnected" | "token_expired">().notNull().default("connected"),
    /** AES-GCM sealed JSON of the credentials (access/refresh tokens, app passwords); null once disconnected. */
    credentials: text("credentials"),
    tokenExpiresAt: integer("token_expires_at"),
    /** When the refresh cron next looks at the account; null = not computed yet (due now). docs/token-refresh.md */
    tokenRefreshDueAt: integer("token_refresh_due_at"),
    /** When the current token was obtained by a refresh (schedules without expiry; Meta's 24-hour rule). */
    tokenRefreshedAt: integer("token_refreshed_at"),
    /** While in the future, one token refresh of this account is in flight: no other starts (a claim). */
    tokenRefreshLeaseUntil: integer("token_refresh_lease_until"),
    /**
     * The origin that answers for the account: a Mastodon account's instance, a Bluesky account's PDS as its DID
     * document names it; '' for single-server networks. Part of the identity (migration 0011, docs/security.md).
     */
    server: text("server").notNull().default(""),
    /** Issue 29 (docs/account-health.md): the service renews the token itself; null = not looked at yet. */
    refreshable: integer("refreshable", { mode: "boolean" }),
    /** When access ends unless the user reconnects (epoch ms); null = not known to end. */
    accessEndsAt: integer("access_ends_at"),
    /** ok | expiring | needs_reconnect */
    health: text("health").$type<AccountHealth>().notNull().default("ok"),
    /** Why the account is expiring or needs a reconnect (the network's words when it gave a reason). */
    healthReason: text("health_reason"),
    healthChangedAt: integer("health_changed_at"),
    /** JSON object: organization_id, default_board_id, service (Bluesky PDS), instance (Mastodon), … */
    meta: text("meta", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("social_accounts_workspace_idx").on(t.workspaceId, t.platform, t.displayName),
    index("social_accounts_token_refresh_idx").on(t.status, t.tokenRefreshDueAt),
    index("social_accounts_health_idx").on(t.status, t.health, t.accessEndsAt),
    // Migration 0024: the accounts whose health moved at one instant (their webhook events).
    index("social_accounts_health_changed_idx").on(t.healthChangedAt),
    // One row per network identity AT ITS SERVER in a workspace: connecting it again is a reconnect (migrations
    // 0008, 0011); the same id on another server is another account.
    uniqueIndex("social_accounts_identity_uq")
      .on(t.workspaceId, t.platform, t.platformUserId, t.server)
      .where(sql`platform_user_id IS NOT NULL`),
  ],
);
