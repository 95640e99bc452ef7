import { z } from "zod";
import { createWebhook } from "../services/webhooks/create-webhook";
import { deleteWebhook } from "../services/webhooks/delete-webhook";
import { WEBHOOK_EVENT_TYPES } from "../services/webhooks/event-types";
import { getWebhook } from "../services/webhooks/get-webhook";
import { listWebhookDeliveries } from "../services/webhooks/list-webhook-deliveries";
import { listWebhooks } from "../services/webhooks/list-webhooks";
import { retryWebhookDelivery } from "../services/webhooks/retry-webhook-delivery";
import { rotateWebhookSecret } from "../services/webhooks/rotate-webhook-secret";
import { testWebhook } from "../services/webhooks/test-webhook";
import { updateWebhook } from "../services/webhooks/update-webhook";
import { WEBHOOK_URL_MAX_LENGTH } from "../services/webhooks/url-rules";
import { defineTool } from "./tool";

/** The webhook operations of `/api/webhooks` as tools (docs/webhooks.md), calling the same verbs. */
const webhookId = z.uuid().describe("Id (UUID) of the webhook endpoint.");
const url = z
  .string()
  .trim()
  .min(1)
  .max(WEBHOOK_URL_MAX_LENGTH)
  .describe("Public https URL that receives the events; redirects are not followed.");
const events = z
  .array(z.enum(WEBHOOK_EVENT_TYPES))
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length)
  .describe(`Event types to receive: ${WEBHOOK_EVENT_TYPES.join(", ")}.`);
const description = z.string().max(255).describe("Free text, at most 255 characters.");

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false } as const;
const UPDATE = { readOnlyHint: false, destructiveHint: false, idempotentHint: true } as const;
const DELETE = { readOnlyHint: false, destructiveHint: true, idempotentHint: true } as const;

export const webhookTools = [
  defineTool({
    name: "list-webhooks-tool",
    title: "List webhook endpoints",
    description:
      "Lists the workspace's webhook endpoints (never their secrets), oldest first. Keys below the full scope see each url cut to its origin.",
    input: {},
    annotations: READ,
    run: (ctx) => listWebhooks(ctx),
  }),
  defineTool({
    name: "create-webhook-tool",
    title: "Create webhook endpoint",
    description:
      "Creates a webhook endpoint. The answer carries its signing secret (whsec_…, Standard Webhooks), shown only once.",
    input: { url, events, description: description.optional() },
    annotations: WRITE,
    run: (ctx, input) => createWebhook(ctx, input as { url: string; events: string[]; description?: string }),
  }),
  defineTool({
    name: "get-webhook-tool",
    title: "Get webhook endpoint",
    description:
      "Returns one webhook endpoint: url (only its origin for keys below the full scope), events, enabled, why it was disabled, failing since when.",
    input: { webhook_id: webhookId },
    annotations: READ,
    run: (ctx, input) => getWebhook(ctx, input.webhook_id as string),
  }),
  defineTool({
    name: "update-webhook-tool",
    title: "Update webhook endpoint",
    description: "Changes the url, events, description or enabled flag; enabled=true re-enables a disabled endpoint.",
    input: {
      webhook_id: webhookId,
      url: url.optional(),
      events: events.optional(),
      description: description.optional(),
      enabled: z.boolean().optional().describe("false pauses the endpoint, true enables it again."),
    },
    annotations: UPDATE,
    run: (ctx, { webhook_id, ...input }) => updateWebhook(ctx, webhook_id as string, input),
  }),
  defineTool({
    name: "delete-webhook-tool",
    title: "Delete webhook endpoint",
    description: "Deletes a webhook endpoint and its delivery log.",
    input: { webhook_id: webhookId },
    annotations: DELETE,
    run: async (ctx, input) => {
      await deleteWebhook(ctx, input.webhook_id as string);
      return { deleted: true };
    },
  }),
  defineTool({
    name: "rotate-webhook-secret-tool",
    title: "Rotate webhook secret",
    description:
      "Replaces the signing secret (returned once); the old one keeps signing beside it for 24 hours so receivers can switch.",
    input: { webhook_id: webhookId },
    annotations: WRITE,
    run: (ctx, input) => rotateWebhookSecret(ctx, input.webhook_id as string),
  }),
  defineTool({
    name: "test-webhook-tool",
    title: "Send a test event",
    description:
      "Queues a signed webhook.test event to this endpoint; returns the delivery, whose log shows the outcome.",
    input: { webhook_id: webhookId },
    annotations: WRITE,
    run: (ctx, input) => testWebhook(ctx, input.webhook_id as string),
  }),
  defineTool({
    name: "list-webhook-deliveries-tool",
    title: "List webhook deliveries",
    description:
      "The endpoint's delivery log, newest first, 50 per page: event, attempts, answer status, duration, next retry; the answer's excerpt only for full-scope keys.",
    input: {
      webhook_id: webhookId,
      page: z.number().int().min(1).max(100_000).optional().describe("Page, from 1 (default 1)."),
    },
    annotations: READ,
    run: (ctx, input) => listWebhookDeliveries(ctx, input.webhook_id as string, (input.page as number) ?? 1),
  }),
  defineTool({
    name: "retry-webhook-delivery-tool",
    title: "Retry a webhook delivery",
    description: "Sends a finished (failed or succeeded) delivery again, with the same webhook-id and body.",
    input: { webhook_id: webhookId, delivery_id: z.uuid().describe("Id (UUID) of the delivery.") },
    annotations: WRITE,
    run: (ctx, input) => retryWebhookDelivery(ctx, input.webhook_id as string, input.delivery_id as string),
  }),
];
