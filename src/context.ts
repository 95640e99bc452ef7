import type { Config } from "./config";
import type { Db } from "./db/client";
import type { MemberRole } from "./db/schema/people";
import type { ApiKeyScope } from "./services/api-keys/scopes";

/** What every service verb receives, built by each transport (HTTP, MCP, queue, cron). */
export interface ServiceContext {
  env: Cloudflare.Env;
  db: Db;
  config: Config;
  /** Clock in epoch ms; injected so tests and the scheduler agree on "now". */
  now: () => number;
  requestId: string;
  /** Origin of the incoming request (`https://api.example.com`), used to build absolute URLs. */
  origin: string;
  /** Schedules work that may outlive the response. */
  waitUntil: (p: Promise<unknown>) => void;
  /**
   * `db` whose batches may share one D1 call with other requests' batches in this isolate (group commit,
   * src/db/write-groups.ts), made on first use. Only for a write batch that is the request's last D1 call: the
   * response's bookmark is then that call's. Absent outside HTTP requests (queue, cron, tests): use `db`.
   */
  groupedDb?: () => Db;
  /**
   * Set when a statement built for this request records a webhook event (services/webhooks/outbox.ts); the
   * transport dispatches once its batches ran (services/webhooks/kick.ts). An object, so copies of the context
   * (the auth middleware spreads it) share it.
   */
  webhookOutbox: { recorded: boolean };
}

export interface WorkspaceContext extends ServiceContext {
  workspaceId: string;
  /** The calling API key; null when a signed-in person calls (see `person`). */
  apiKeyId: string | null;
  /**
   * What the key may do (src/services/api-keys/scopes.ts); checked by the route or tool before it runs. For a person,
   * the scope of their role (src/services/people/roles.ts).
   */
  apiKeyScope: ApiKeyScope;
  /** The key's own expiry (epoch ms) or null: keys it mints may not outlive it. */
  apiKeyExpiresAt: number | null;
  /** The signed-in person and their role in this workspace, when the request carries a session cookie. */
  person: { userId: string; role: MemberRole } | null;
}
