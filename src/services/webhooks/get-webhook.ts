import type { WorkspaceContext } from "../../context";
import { findWebhookEndpoint, presentWebhookEndpoint, webhookViewFor } from "./endpoints";

export async function getWebhook(ctx: WorkspaceContext, id: string) {
  return presentWebhookEndpoint(await findWebhookEndpoint(ctx, id), webhookViewFor(ctx.apiKeyScope));
}
