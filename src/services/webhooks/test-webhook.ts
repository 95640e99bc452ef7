import type { WorkspaceContext } from "../../context";
import { webhookDeliveries, webhookEvents } from "../../db/schema";
import { conflict } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { findWebhookEndpoint, presentWebhookDelivery } from "./endpoints";
import { WEBHOOK_TEST_EVENT } from "./event-types";
import { enqueueWebhookMessages } from "./messages";

/**
 * Sends a `webhook.test` event to this endpoint only, through the same queue, signing and retries as every event.
 * Answers with the delivery, whose log entry shows the outcome.
 */
export async function testWebhook(ctx: WorkspaceContext, id: string) {
  const endpoint = await findWebhookEndpoint(ctx, id);
  if (!endpoint.enabled) throw conflict("The endpoint is disabled; enable it with PUT first.");
  const now = ctx.now();
  const eventId = `msg_${crypto.randomUUID().replaceAll("-", "")}`;
  const data = { endpoint_id: endpoint.id, message: "A test event sent with POST /api/webhooks/{id}/test." };
  const event = {
    id: eventId,
    workspaceId: ctx.workspaceId,
    type: WEBHOOK_TEST_EVENT,
    subject: JSON.stringify(data),
    payload: JSON.stringify({ type: WEBHOOK_TEST_EVENT, timestamp: new Date(now).toISOString(), data }),
    createdAt: now,
    dispatchedAt: now,
  };
  const delivery: typeof webhookDeliveries.$inferSelect = {
    id: newId(),
    workspaceId: ctx.workspaceId,
    endpointId: endpoint.id,
    eventId,
    status: "pending",
    attempts: 0,
    nextAttemptAt: now,
    lastAttemptAt: null,
    responseStatus: null,
    responseExcerpt: null,
    durationMs: null,
    error: null,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.db.batch([ctx.db.insert(webhookEvents).values(event), ctx.db.insert(webhookDeliveries).values(delivery)]);
  // A failed send leaves the delivery pending; the cron's sweep enqueues it.
  await enqueueWebhookMessages(ctx.env.WEBHOOK_QUEUE, [
    { delivery_id: delivery.id, endpoint_id: endpoint.id, attempt: 1 },
  ]);
  return presentWebhookDelivery(delivery, event);
}
