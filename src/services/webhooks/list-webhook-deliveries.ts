import { and, count, desc, eq } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { webhookDeliveries, webhookEvents } from "../../db/schema";
import { findWebhookEndpoint, presentWebhookDelivery, webhookViewFor } from "./endpoints";

export const DELIVERIES_PER_PAGE = 50;

/** The endpoint's delivery log, newest first, 50 per page. */
export async function listWebhookDeliveries(ctx: WorkspaceContext, id: string, page: number) {
  const endpoint = await findWebhookEndpoint(ctx, id);
  const where = eq(webhookDeliveries.endpointId, endpoint.id);
  const [rows, [total]] = await ctx.db.batch([
    ctx.db
      .select({ delivery: webhookDeliveries, type: webhookEvents.type })
      .from(webhookDeliveries)
      .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
      .where(and(where))
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .limit(DELIVERIES_PER_PAGE)
      .offset((page - 1) * DELIVERIES_PER_PAGE),
    ctx.db.select({ n: count() }).from(webhookDeliveries).where(where),
  ]);
  const n = total?.n ?? 0;
  const view = webhookViewFor(ctx.apiKeyScope);
  return {
    data: rows.map((r) => presentWebhookDelivery(r.delivery, { type: r.type }, view)),
    meta: {
      current_page: page,
      per_page: DELIVERIES_PER_PAGE,
      total: n,
      last_page: Math.max(1, Math.ceil(n / DELIVERIES_PER_PAGE)),
    },
  };
}
