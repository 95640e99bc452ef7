import { asc, eq } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { webhookEndpoints } from "../../db/schema";
import { presentWebhookEndpoint, webhookViewFor } from "./endpoints";

/** The workspace's endpoints, oldest first (at most MAX_WEBHOOK_ENDPOINTS, so not paginated). */
export async function listWebhooks(ctx: WorkspaceContext) {
  const rows = await ctx.db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.workspaceId, ctx.workspaceId))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
  const view = webhookViewFor(ctx.apiKeyScope);
  return rows.map((row) => presentWebhookEndpoint(row, view));
}
