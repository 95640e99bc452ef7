import { and, count, eq } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { type webhookDeliveries, webhookEndpoints, type webhookEvents } from "../../db/schema";
import { notFound } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { formatIso } from "../../lib/time";
import type { ApiKeyScope } from "../api-keys/scopes";

/** Wire shapes of webhook endpoints and deliveries (docs/webhooks.md). Times are ISO 8601, like API keys. */

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

/**
 * What a key below `full` sees of webhooks (issue 25, docs/security.md "Webhooks seen by read keys"): the endpoint
 * URL cut to its origin (a receiver's path and query often carry its own secret — Slack, Discord, Zapier hooks) and no
 * response excerpts (a receiver's answer may echo anything). Secrets are shown to no one after create/rotate.
 */
export type WebhookView = "full" | "redacted";

export const webhookViewFor = (scope: ApiKeyScope): WebhookView => (scope === "full" ? "full" : "redacted");

const originOf = (raw: string) => {
  try {
    return new URL(raw).origin;
  } catch {
    return "";
  }
};

/** Never the secret: it is returned only by create and rotate-secret. */
export const presentWebhookEndpoint = (e: WebhookEndpointRow, view: WebhookView = "full") => ({
  id: e.id,
  url: view === "full" ? e.url : originOf(e.url),
  description: e.description,
  events: e.events,
  enabled: e.enabled,
  disabled_reason: e.disabledReason,
  failing_since: formatIso(e.failingSince),
  previous_secret_expires_at:
    e.previousSecret && e.previousSecretExpiresAt !== null ? formatIso(e.previousSecretExpiresAt) : null,
  created_by: e.createdByUserId
    ? { type: "person" as const, id: e.createdByUserId }
    : e.createdByApiKeyId
      ? { type: "api_key" as const, id: e.createdByApiKeyId }
      : null,
  created_at: formatIso(e.createdAt),
  updated_at: formatIso(e.updatedAt),
});

export type WebhookEndpointResource = ReturnType<typeof presentWebhookEndpoint>;

export const presentWebhookDelivery = (
  d: typeof webhookDeliveries.$inferSelect,
  event: Pick<typeof webhookEvents.$inferSelect, "type">,
  view: WebhookView = "full",
) => ({
  id: d.id,
  event_id: d.eventId,
  event_type: event.type,
  status: d.status,
  attempts: d.attempts,
  response_status: d.responseStatus,
  response_excerpt: view === "full" ? d.responseExcerpt : null,
  duration_ms: d.durationMs,
  error: d.error,
  last_attempt_at: formatIso(d.lastAttemptAt),
  next_attempt_at: formatIso(d.nextAttemptAt),
  created_at: formatIso(d.createdAt),
});

export type WebhookDeliveryResource = ReturnType<typeof presentWebhookDelivery>;

/** The endpoint of this workspace, or 404. */
export async function findWebhookEndpoint(ctx: WorkspaceContext, id: string): Promise<WebhookEndpointRow> {
  if (!isUuid(id)) throw notFound();
  const row = await ctx.db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.workspaceId, ctx.workspaceId)))
    .get();
  if (!row) throw notFound();
  return row;
}

export async function countWebhookEndpoints(ctx: WorkspaceContext): Promise<number> {
  const [row] = await ctx.db
    .select({ n: count() })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.workspaceId, ctx.workspaceId));
  return row?.n ?? 0;
}
