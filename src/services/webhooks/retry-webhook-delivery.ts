import { and, eq, inArray } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { webhookDeliveries, webhookEvents } from "../../db/schema";
import { conflict, notFound } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { findWebhookEndpoint, presentWebhookDelivery } from "./endpoints";
import { enqueueWebhookMessages } from "./messages";

/**
 * Sends a finished delivery (failed, or succeeded) once more, with the same `webhook-id` and body. A delivery that
 * is still pending or being sent is already on its way (409). A failure of this attempt continues the retry
 * schedule from where the delivery was.
 */
export async function retryWebhookDelivery(ctx: WorkspaceContext, endpointId: string, deliveryId: string) {
  const endpoint = await findWebhookEndpoint(ctx, endpointId);
  if (!isUuid(deliveryId)) throw notFound();
  if (!endpoint.enabled) throw conflict("The endpoint is disabled; enable it with PUT first.");
  const now = ctx.now();
  const [delivery] = await ctx.db
    .update(webhookDeliveries)
    .set({ status: "pending", nextAttemptAt: now, updatedAt: now })
    .where(
      and(
        eq(webhookDeliveries.id, deliveryId),
        eq(webhookDeliveries.endpointId, endpoint.id),
        inArray(webhookDeliveries.status, ["failed", "succeeded"]),
      ),
    )
    .returning();
  if (!delivery) {
    const existing = await ctx.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.endpointId, endpoint.id)))
      .get();
    if (!existing) throw notFound();
    throw conflict("The delivery is already scheduled or being sent.");
  }
  await enqueueWebhookMessages(ctx.env.WEBHOOK_QUEUE, [
    { delivery_id: delivery.id, endpoint_id: endpoint.id, attempt: delivery.attempts + 1 },
  ]);
  const event = await ctx.db
    .select({ type: webhookEvents.type })
    .from(webhookEvents)
    .where(eq(webhookEvents.id, delivery.eventId))
    .get();
  return presentWebhookDelivery(delivery, { type: event?.type ?? "" });
}
