import type { WorkspaceContext } from "../../context";
import { webhookEndpoints } from "../../db/schema";
import { ErrorBag } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { countWebhookEndpoints, presentWebhookEndpoint } from "./endpoints";
import { generateSecret, sealWebhookSecret } from "./signing";
import { webhookUrlRefusal } from "./url-rules";

/** Endpoints per workspace: each event fans out to every subscribed endpoint, so the fan-out stays bounded. */
export const MAX_WEBHOOK_ENDPOINTS = 20;

export interface CreateWebhookInput {
  url: string;
  events: string[];
  description?: string;
}

/** Creates an endpoint; the answer carries its signing secret, which is never shown again. */
export async function createWebhook(ctx: WorkspaceContext, input: CreateWebhookInput) {
  const bag = new ErrorBag();
  const problem = await webhookUrlRefusal(ctx.config, input.url);
  if (problem) bag.add("url", problem);
  bag.throwIfAny();
  if ((await countWebhookEndpoints(ctx)) >= MAX_WEBHOOK_ENDPOINTS)
    bag.add("url", `A workspace can have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints.`);
  bag.throwIfAny();

  const secret = generateSecret();
  const now = ctx.now();
  const id = newId();
  const row: typeof webhookEndpoints.$inferSelect = {
    id,
    workspaceId: ctx.workspaceId,
    url: input.url,
    description: input.description ?? "",
    events: [...new Set(input.events)],
    secret: await sealWebhookSecret(ctx, id, secret),
    previousSecret: null,
    previousSecretExpiresAt: null,
    enabled: true,
    disabledReason: null,
    failingSince: null,
    createdByUserId: ctx.person?.userId ?? null,
    createdByApiKeyId: ctx.person ? null : ctx.apiKeyId,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.db.insert(webhookEndpoints).values(row);
  return { ...presentWebhookEndpoint(row), secret };
}
