import { and, eq } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { webhookEndpoints } from "../../db/schema";
import { ErrorBag, notFound } from "../../lib/errors";
import { findWebhookEndpoint, presentWebhookEndpoint } from "./endpoints";
import { webhookUrlRefusal } from "./url-rules";

export interface UpdateWebhookInput {
  url?: string;
  events?: string[];
  description?: string;
  enabled?: boolean;
}

/**
 * Changes the fields given. `enabled: true` re-enables a disabled endpoint and restarts its failure clock;
 * `enabled: false` pauses it (events are not recorded for it meanwhile).
 */
export async function updateWebhook(ctx: WorkspaceContext, id: string, input: UpdateWebhookInput) {
  await findWebhookEndpoint(ctx, id);
  const bag = new ErrorBag();
  if (input.url !== undefined) {
    const problem = await webhookUrlRefusal(ctx.config, input.url);
    if (problem) bag.add("url", problem);
  }
  bag.throwIfAny();
  const [row] = await ctx.db
    .update(webhookEndpoints)
    .set({
      ...(input.url !== undefined ? { url: input.url } : {}),
      ...(input.events !== undefined ? { events: [...new Set(input.events)] } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.enabled !== undefined
        ? { enabled: input.enabled, disabledReason: input.enabled ? null : "Disabled by the API.", failingSince: null }
        : {}),
      updatedAt: ctx.now(),
    })
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.workspaceId, ctx.workspaceId)))
    .returning();
  if (!row) throw notFound();
  return presentWebhookEndpoint(row);
}
