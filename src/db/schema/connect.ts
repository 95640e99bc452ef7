import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { workspaces } from "./workspaces";

/**
 * Issue 18 (connect accounts). Ids of states, selections and links are SHA-256 hex of the secret handed to the
 * browser, so a database read never yields a usable token. `sealed` columns are AES-GCM JSON (credentials helpers).
 */

/**
 * A short-lived step of one connect flow, found by the hash of the secret the browser holds: the platform, the
 * sealed payload, when it expires (swept by the expiry index) and when it was made.
 */
const stepColumns = () => ({
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id")
    .notNull()
    .references(() => workspaces.id, { onDelete: "cascade" }),
  platform: text("platform").notNull(),
  sealed: text("sealed").notNull(),
  expiresAt: integer("expires_at").notNull(),
  createdAt: integer("created_at").notNull(),
  /** The API key that started the flow (directly or through a link); refused once it is revoked or expired. */
  apiKeyId: text("api_key_id"),
  /** The signed-in person who started the flow (directly or through their link); refused once they leave. */
  createdByUserId: text("created_by_user_id"),
});

/** One started OAuth flow: single use (consumed by DELETE … RETURNING); sealed {code_verifier, redirect_url,
 * instance, link_id}. */
export const oauthStates = sqliteTable(
  "oauth_states",
  {
    ...stepColumns(),
    /** SHA-256 of the `__Host-` cookie value of the browser the flow is bound to; null until the hop binds it. */
    browserHash: text("browser_hash"),
    /** The network's consent URL, where the first-party hop sends the browser. */
    authorizeUrl: text("authorize_url"),
  },
  (t) => [index("oauth_states_expiry_idx").on(t.expiresAt)],
);

/** Accounts found by one login, waiting for the user to pick (tokens sealed, never in the page). */
export const connectSelections = sqliteTable("connect_selections", stepColumns(), (t) => [
  index("connect_selections_expiry_idx").on(t.expiresAt),
]);

/** Hosted connect page links a workspace hands to its end users. */
export const connectLinks = sqliteTable(
  "connect_links",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    redirectUrl: text("redirect_url"),
    expiresAt: integer("expires_at").notNull(),
    createdAt: integer("created_at").notNull(),
    /** The API key that created the link: the link ends with it (revoked or expired), and never outlives it. */
    apiKeyId: text("api_key_id"),
    /** The signed-in person who created the link (migration 0020): the link ends with their membership. */
    createdByUserId: text("created_by_user_id"),
    /** Shown on the hosted pages under the workspace's name. */
    purpose: text("purpose"),
  },
  (t) => [index("connect_links_workspace_idx").on(t.workspaceId, t.expiresAt)],
);

/** Our OAuth app on each Mastodon instance (POST /api/v1/apps once per instance and callback URL). */
export const mastodonApps = sqliteTable(
  "mastodon_apps",
  {
    instance: text("instance").notNull(),
    redirectUri: text("redirect_uri").notNull(),
    clientId: text("client_id").notNull(),
    sealedSecret: text("sealed_secret").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.instance, t.redirectUri] })],
);
