import { and, eq } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { webhookEndpoints } from "../../db/schema";
import { notFound } from "../../lib/errors";
import { isUuid } from "../../lib/ids";

/** Deletes the endpoint and its delivery log; attempts already queued find nothing and do nothing. */
export async function deleteWebhook(ctx: WorkspaceContext, id: string): Promise<void> {
  if (!isUuid(id)) throw notFound();
  const deleted = await ctx.db
    .delete(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.workspaceId, ctx.workspaceId)))
    .returning({ id: webhookEndpoints.id });
  if (deleted.length === 0) throw notFound();
}
