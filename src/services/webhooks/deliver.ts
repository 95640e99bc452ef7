import { and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { ServiceContext } from "../../context";
import { webhookDeliveries, webhookEndpoints, webhookEvents } from "../../db/schema";
import { errorFields, log } from "../../lib/logger";
import { guardedFetch, OutboundRefusedError } from "../../lib/outbound-guard";
import { UnopenableSecretError } from "../../lib/sealing";
import {
  ATTEMPT_TIMEOUT_MS,
  DISABLE_AFTER_FAILING_MS,
  RESPONSE_EXCERPT_BYTES,
  retryDelaySeconds,
} from "./delivery-policy";
import { presentWebhookEndpoint } from "./endpoints";
import type { WebhookMessage } from "./messages";
import { dataEvent } from "./outbox";
import { openWebhookSecret, signatureHeader } from "./signing";
import { webhookUrlProblem } from "./url-rules";

export interface AttemptResult {
  ok: boolean;
  status: number | null;
  durationMs: number;
  excerpt: string | null;
  error: string | null;
  /** A failure no retry can fix (the signing secret does not open): the delivery ends `failed` now. */
  final?: boolean;
}

/** What a delivery whose signing secret cannot be opened says (docs/security.md "Key rotation"). */
export const UNOPENABLE_SECRET_ERROR =
  "The endpoint's signing secret cannot be opened: it was sealed under an encryption key this server no longer " +
  "has (TOKEN_ENCRYPTION_KEY rotated without listing the old key in TOKEN_ENCRYPTION_KEYS_PREVIOUS). Rotate the " +
  "endpoint's secret (POST /api/webhooks/{id}/rotate-secret), then retry the delivery.";

/**
 * One attempt of one delivery (a `webhook-deliveries` message). The claim — `pending` with `attempts` one below the
 * message's attempt → `sending` — makes duplicate and stale messages no-ops. The outcome and the next attempt are
 * written in one batch with the endpoint's failure clock; the next attempt's message is sent with its delay.
 */
export async function attemptDelivery(ctx: ServiceContext, message: WebhookMessage): Promise<void> {
  const now = ctx.now();
  const [delivery] = await ctx.db
    .update(webhookDeliveries)
    .set({ status: "sending", attempts: message.attempt, lastAttemptAt: now, nextAttemptAt: null, updatedAt: now })
    .where(
      and(
        eq(webhookDeliveries.id, message.delivery_id),
        eq(webhookDeliveries.status, "pending"),
        eq(webhookDeliveries.attempts, message.attempt - 1),
      ),
    )
    .returning();
  if (!delivery) return;
  const target = await ctx.db
    .select({ endpoint: webhookEndpoints, event: webhookEvents })
    .from(webhookEndpoints)
    .innerJoin(webhookEvents, eq(webhookEvents.id, delivery.eventId))
    .where(eq(webhookEndpoints.id, delivery.endpointId))
    .get();
  if (!target) return; // the endpoint was deleted meanwhile (its deliveries went with it)
  const { endpoint, event } = target;

  const result = endpoint.enabled
    ? await send(ctx, endpoint, event.id, event.payload ?? "")
    : { ok: false, status: null, durationMs: 0, excerpt: null, error: "The endpoint is disabled." };
  const retryIn =
    result.ok || result.final || !endpoint.enabled || result.status === 410 ? null : retryDelaySeconds(message.attempt);
  const done = ctx.now();

  const statements: BatchItem<"sqlite">[] = [
    ctx.db
      .update(webhookDeliveries)
      .set({
        status: result.ok ? "succeeded" : retryIn === null ? "failed" : "pending",
        nextAttemptAt: retryIn === null ? null : done + retryIn * 1000,
        responseStatus: result.status,
        responseExcerpt: result.excerpt,
        durationMs: result.durationMs,
        error: result.error,
        updatedAt: done,
      })
      .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.attempts, message.attempt))),
  ];
  if (endpoint.enabled) statements.push(...endpointHealth(ctx, endpoint, result, done));
  await ctx.db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);

  if (retryIn !== null) {
    await ctx.env.WEBHOOK_QUEUE.send(
      { delivery_id: delivery.id, endpoint_id: endpoint.id, attempt: message.attempt + 1 } satisfies WebhookMessage,
      { delaySeconds: retryIn, contentType: "json" },
    );
  }
  log(result.ok ? "info" : "warn", "webhook_attempt", {
    delivery_id: delivery.id,
    endpoint_id: endpoint.id,
    event_id: event.id,
    attempt: message.attempt,
    status: result.status,
    duration_ms: result.durationMs,
    error: result.error,
    retry_in_seconds: retryIn,
  });
}

/**
 * A success clears the endpoint's failure clock; a failure starts it if it is not running. An endpoint that answers
 * 410 Gone, or whose clock has run for DISABLE_AFTER_FAILING_MS, is disabled — and `webhook.endpoint.disabled` is
 * recorded for the workspace's other endpoints, in the same batch.
 */
function endpointHealth(
  ctx: ServiceContext,
  endpoint: typeof webhookEndpoints.$inferSelect,
  result: AttemptResult,
  now: number,
): BatchItem<"sqlite">[] {
  if (result.ok) {
    return endpoint.failingSince === null
      ? []
      : [ctx.db.update(webhookEndpoints).set({ failingSince: null }).where(eq(webhookEndpoints.id, endpoint.id))];
  }
  const gone = result.status === 410;
  const reason = gone ? "The endpoint answered 410 Gone." : "Every delivery attempt failed for 5 days.";
  const disabledEndpoint = { ...endpoint, enabled: false, disabledReason: reason, updatedAt: now };
  return [
    ctx.db
      .update(webhookEndpoints)
      .set({ failingSince: sql`COALESCE(${webhookEndpoints.failingSince}, ${now})` })
      .where(eq(webhookEndpoints.id, endpoint.id)),
    ctx.db
      .update(webhookEndpoints)
      .set({ enabled: false, disabledReason: reason, updatedAt: now })
      .where(
        and(
          eq(webhookEndpoints.id, endpoint.id),
          eq(webhookEndpoints.enabled, true),
          gone ? sql`1` : sql`${webhookEndpoints.failingSince} <= ${now - DISABLE_AFTER_FAILING_MS}`,
        ),
      ),
    dataEvent(ctx, endpoint.workspaceId, "webhook.endpoint.disabled", presentWebhookEndpoint(disabledEndpoint), {
      afterChange: true,
    }),
  ];
}

/** POSTs the body, signed with the current secret and, during a rotation's grace period, the previous one too. */
async function send(
  ctx: ServiceContext,
  endpoint: typeof webhookEndpoints.$inferSelect,
  eventId: string,
  body: string,
): Promise<AttemptResult> {
  const refused = webhookUrlProblem(ctx.config, endpoint.url);
  if (refused) return { ok: false, status: null, durationMs: 0, excerpt: null, error: refused };
  const secrets = await signingSecrets(ctx, endpoint);
  if (!secrets)
    return { ok: false, status: null, durationMs: 0, excerpt: null, error: UNOPENABLE_SECRET_ERROR, final: true };
  const timestamp = Math.floor(ctx.now() / 1000);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await guardedFetch(
      endpoint.url,
      {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "User-Agent": "edge-social-publisher-webhooks/1",
          "webhook-id": eventId,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": await signatureHeader(secrets, eventId, timestamp, body),
        },
        body,
      },
      // A redirect is an answer (a failure), not a hop to follow. One deadline covers the answer and the excerpt.
      { allowPrivate: ctx.config.MEDIA_FETCH_ALLOW_PRIVATE, maxRedirects: 0, timeoutMs: ATTEMPT_TIMEOUT_MS },
    );
    const excerpt = await readExcerpt(response);
    const ok = response.status >= 200 && response.status < 300;
    return {
      ok,
      status: response.status,
      durationMs: elapsed(),
      excerpt,
      error: ok ? null : `The endpoint answered ${response.status}.`,
    };
  } catch (err) {
    const timedOut = err instanceof OutboundRefusedError && err.kind === "timeout";
    if (!(err instanceof OutboundRefusedError))
      log("warn", "webhook_send_error", { endpoint_id: endpoint.id, ...errorFields(err) });
    return {
      ok: false,
      status: null,
      durationMs: elapsed(),
      excerpt: null,
      error: timedOut ? `No answer within ${ATTEMPT_TIMEOUT_MS / 1000} seconds.` : "The endpoint could not be reached.",
    };
  }
}

/**
 * The current secret and, during a rotation's grace period, the previous one. Null when the current one does not
 * open (nothing can be signed); a previous one that does not open is left out (the receiver has the new one).
 */
async function signingSecrets(
  ctx: ServiceContext,
  endpoint: typeof webhookEndpoints.$inferSelect,
): Promise<string[] | null> {
  const open = async (sealed: string) => {
    try {
      return await openWebhookSecret(ctx, endpoint.id, sealed);
    } catch (err) {
      if (!(err instanceof UnopenableSecretError)) throw err;
      log("error", "webhook_secret_unopenable", { endpoint_id: endpoint.id, ...errorFields(err) });
      return null;
    }
  };
  const current = await open(endpoint.secret);
  if (current === null) return null;
  const previous =
    endpoint.previousSecret && (endpoint.previousSecretExpiresAt ?? 0) > ctx.now()
      ? await open(endpoint.previousSecret)
      : null;
  return previous === null ? [current] : [current, previous];
}

/** The first RESPONSE_EXCERPT_BYTES of the answer (as text); the rest is never read. */
async function readExcerpt(response: Response): Promise<string | null> {
  if (!response.body) return null;
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < RESPONSE_EXCERPT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(Math.min(size, RESPONSE_EXCERPT_BYTES));
  let offset = 0;
  for (const c of chunks) {
    const part = c.subarray(0, bytes.length - offset);
    bytes.set(part, offset);
    offset += part.length;
    if (offset >= bytes.length) break;
  }
  const text = new TextDecoder().decode(bytes);
  return text === "" ? null : text;
}
