import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { ServiceContext } from "../../context";
import { webhookDeliveries, webhookEndpoints, webhookEvents } from "../../db/schema";
import { errorFields, log } from "../../lib/logger";
import { enqueueWebhookMessages, type WebhookMessage } from "./messages";
import { renderPayload } from "./render";

/**
 * The oldest undispatched events, in commit order: SQLite gives each new row the next rowid, and batches commit one at
 * a time, so a post's last `post.platform.*` always precedes its `post.*` even when the clocks of two Workers
 * disagree. Read through the partial index on `dispatched_at` (migration 0022), which holds exactly these rows in
 * rowid order: the events kept after dispatch (30 days of them) are not walked (test/webhooks/outbox-scale.test.ts).
 */
export function undispatchedEvents(ctx: ServiceContext) {
  return ctx.db
    .select()
    .from(webhookEvents)
    .where(isNull(webhookEvents.dispatchedAt))
    .orderBy(sql`rowid`)
    .limit(EVENTS_PER_ROUND);
}

/** Events moved from the outbox per round; each costs two statements of one batch. */
const EVENTS_PER_ROUND = 40;

/**
 * Moves undispatched outbox rows to deliveries and enqueues their first attempts, oldest first. Per event, one
 * batch claims it (`dispatched_at IS NULL`), fixes its payload and inserts one delivery per enabled endpoint
 * subscribed to it — so two dispatchers never fan an event out twice, and a crash leaves it for the next one.
 * Returns how many deliveries were enqueued.
 */
export async function dispatchWebhookEvents(ctx: ServiceContext): Promise<number> {
  let enqueued = 0;
  for (;;) {
    const events = await undispatchedEvents(ctx);
    if (events.length === 0) return enqueued;
    const workspaceIds = [...new Set(events.map((e) => e.workspaceId))];
    const endpoints = await ctx.db
      .select({ id: webhookEndpoints.id, workspaceId: webhookEndpoints.workspaceId, events: webhookEndpoints.events })
      .from(webhookEndpoints)
      .where(and(inArray(webhookEndpoints.workspaceId, workspaceIds), eq(webhookEndpoints.enabled, true)));

    const now = ctx.now();
    const statements: BatchItem<"sqlite">[] = [];
    const planned: { eventIndex: number; messages: WebhookMessage[] }[] = [];
    events.forEach((event, eventIndex) => {
      const deliveries = endpoints
        .filter((e) => e.workspaceId === event.workspaceId && e.events.includes(event.type))
        .map((e) => ({ id: crypto.randomUUID(), endpoint_id: e.id }));
      statements.push(
        ctx.db
          .update(webhookEvents)
          .set({ payload: safePayload(ctx, event), dispatchedAt: now })
          .where(and(eq(webhookEvents.id, event.id), isNull(webhookEvents.dispatchedAt)))
          .returning({ id: webhookEvents.id }),
        // Every column, in table order (drizzle's insert-from-select lists them all).
        ctx.db.insert(webhookDeliveries).select(
          sql`SELECT json_extract(value, '$.id'), ${event.workspaceId}, json_extract(value, '$.endpoint_id'), ${event.id},
            'pending', 0, ${now}, NULL, NULL, NULL, NULL, NULL, ${now}, ${now}
          FROM json_each(${JSON.stringify(deliveries)}) WHERE changes() > 0`,
        ),
      );
      planned.push({
        eventIndex,
        messages: deliveries.map((d) => ({ delivery_id: d.id, endpoint_id: d.endpoint_id, attempt: 1 })),
      });
    });
    const results = (await ctx.db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown[];
    // Only the events this batch claimed got deliveries; enqueue those, in event order.
    const messages = planned.flatMap((p) => ((results[p.eventIndex * 2] as unknown[]).length > 0 ? p.messages : []));
    // A failed send leaves the deliveries pending: the cron's sweep enqueues them (sweepWebhookDeliveries).
    await enqueueWebhookMessages(ctx.env.WEBHOOK_QUEUE, messages);
    enqueued += messages.length;
  }
}

/** A snapshot that cannot be rendered must not block the outbox: it is sent with `data: null` and logged. */
function safePayload(ctx: ServiceContext, event: typeof webhookEvents.$inferSelect): string {
  try {
    return renderPayload(ctx, event);
  } catch (err) {
    log("error", "webhook_render_failed", { event_id: event.id, type: event.type, ...errorFields(err) });
    return JSON.stringify({ type: event.type, timestamp: new Date(event.createdAt).toISOString(), data: null });
  }
}
