import { and, eq, lte, sql } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { webhookDeliveries, webhookEvents } from "../../db/schema";
import { errorFields, log } from "../../lib/logger";
import { attemptDelivery } from "./deliver";
import { LOST_MESSAGE_GRACE_MS, RETENTION_DELETES_PER_TICK, WEBHOOK_RETENTION_MS } from "./delivery-policy";
import { dispatchRecordedEvents } from "./kick";
import { enqueueWebhookMessages, type WebhookMessage, WebhookMessageSchema } from "./messages";

/**
 * The `webhook-deliveries` consumer. Messages of one endpoint run one after another in the order they were sent
 * (the dispatcher sends in event order), so a receiver sees `post.platform.published` before the
 * `post.published` of the same batch; different endpoints run concurrently.
 */
export async function handleWebhookBatch(ctx: ServiceContext, batch: MessageBatch<unknown>): Promise<void> {
  const byEndpoint = new Map<string, { message: Message<unknown>; body: WebhookMessage }[]>();
  for (const message of batch.messages) {
    const parsed = WebhookMessageSchema.safeParse(message.body);
    if (!parsed.success) {
      log("error", "webhook_message_invalid", {
        message_id: message.id,
        issues: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`),
      });
      message.ack();
      continue;
    }
    const list = byEndpoint.get(parsed.data.endpoint_id) ?? [];
    list.push({ message, body: parsed.data });
    byEndpoint.set(parsed.data.endpoint_id, list);
  }
  await Promise.all(
    [...byEndpoint.values()].map(async (list) => {
      for (const { message, body } of list) {
        try {
          await attemptDelivery(ctx, body);
          message.ack();
        } catch (err) {
          // Our failure (D1, the queue), not the receiver's: the same attempt runs again; its claim fences it.
          log("error", "webhook_message_error", { delivery_id: body.delivery_id, ...errorFields(err) });
          message.retry({ delaySeconds: 30 });
        }
      }
    }),
  );
  dispatchRecordedEvents(ctx);
}

/**
 * Cron backstop for lost messages: an attempt left `sending` (the Worker stopped mid-send) counts as made and goes
 * back to `pending`; a `pending` delivery whose attempt is overdue by LOST_MESSAGE_GRACE_MS is enqueued again. A
 * duplicate of a message that was only late is harmless: the claim accepts one message per attempt.
 */
export async function sweepWebhookDeliveries(ctx: ServiceContext): Promise<number> {
  const now = ctx.now();
  const cutoff = now - LOST_MESSAGE_GRACE_MS;
  await ctx.db
    .update(webhookDeliveries)
    .set({ status: "pending", nextAttemptAt: cutoff, error: "The attempt was interrupted.", updatedAt: now })
    .where(and(eq(webhookDeliveries.status, "sending"), lte(webhookDeliveries.lastAttemptAt, cutoff)));
  const overdue = await ctx.db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: now })
    .where(
      sql`${webhookDeliveries.id} IN (SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ${cutoff} ORDER BY next_attempt_at LIMIT 500)`,
    )
    .returning({
      id: webhookDeliveries.id,
      endpointId: webhookDeliveries.endpointId,
      attempts: webhookDeliveries.attempts,
    });
  await enqueueWebhookMessages(
    ctx.env.WEBHOOK_QUEUE,
    overdue.map((d) => ({ delivery_id: d.id, endpoint_id: d.endpointId, attempt: d.attempts + 1 })),
  );
  await pruneWebhookEvents(ctx);
  return overdue.length;
}

/**
 * Retention: events older than WEBHOOK_RETENTION_MS whose deliveries are all finished are deleted with their
 * delivery log (ON DELETE CASCADE), a bounded number per tick.
 */
export async function pruneWebhookEvents(ctx: ServiceContext): Promise<number> {
  const cutoff = ctx.now() - WEBHOOK_RETENTION_MS;
  const deleted = await ctx.db
    .delete(webhookEvents)
    .where(
      sql`${webhookEvents.id} IN (SELECT ev.id FROM webhook_events ev WHERE ev.created_at < ${cutoff}
        AND ev.dispatched_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id AND d.status IN ('pending', 'sending'))
        LIMIT ${RETENTION_DELETES_PER_TICK})`,
    )
    .returning({ id: webhookEvents.id });
  return deleted.length;
}
