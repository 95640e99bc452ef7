import { z } from "@hono/zod-openapi";
import { WEBHOOK_EVENT_TYPES } from "../../services/webhooks/event-types";
import { WEBHOOK_URL_MAX_LENGTH } from "../../services/webhooks/url-rules";
import { idParam, isoDate } from "../openapi";

export const WebhookParam = idParam("id", "Webhook endpoint id (UUID).");
export const DeliveryParams = WebhookParam.extend(idParam("delivery", "Delivery id (UUID).").shape);

const url = z.string().trim().min(1).max(WEBHOOK_URL_MAX_LENGTH).openapi({
  description: "Public https URL that receives the events (SSRF rules of media from URL; redirects are not followed).",
  example: "https://example.com/webhooks/social",
});
const events = z
  .array(z.enum(WEBHOOK_EVENT_TYPES))
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length)
  .openapi({ description: "Event types to receive (docs/webhooks.md). Duplicates are ignored." });
const description = z.string().max(255).openapi({ description: "Free text, at most 255 characters." });

export const CreateWebhookRequest = z
  .object({ url, events, description: description.optional() })
  .openapi("CreateWebhookRequest");

export const UpdateWebhookRequest = z
  .object({
    url: url.optional(),
    events: events.optional(),
    description: description.optional(),
    enabled: z.boolean().optional().openapi({
      description: "false pauses the endpoint; true re-enables it (also after it was disabled for failing).",
    }),
  })
  .openapi("UpdateWebhookRequest");

export const WebhookEndpointSchema = z
  .object({
    id: z.uuid(),
    url: z.string().openapi({
      description:
        "The endpoint URL. Keys with the `read` or `publish` scope see only its origin (`https://hooks.example.com`): a receiver's path and query often carry its own secret.",
    }),
    description: z.string(),
    events: z.array(z.string()),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable(),
    failing_since: isoDate.nullable(),
    previous_secret_expires_at: isoDate
      .nullable()
      .openapi({ description: "Until when the secret before the last rotation still signs deliveries." }),
    created_by: z
      .object({ type: z.enum(["person", "api_key"]), id: z.string() })
      .nullable()
      .openapi({
        description:
          "Who made the endpoint: a signed-in person (their user id) or an API key (its id); null for endpoints made before this was recorded. The endpoint is disabled when its maker's access ends: the person leaves or becomes editor or viewer, or the key is revoked.",
      }),
    created_at: isoDate,
    updated_at: isoDate,
  })
  .openapi("WebhookEndpoint");

const secret = z.string().openapi({
  description: "Signing secret `whsec_<base64>` (Standard Webhooks). Returned only here, never again.",
});

export const CreatedWebhookEndpointSchema = WebhookEndpointSchema.extend({ secret }).openapi("CreatedWebhookEndpoint");

export const RotatedSecretSchema = z
  .object({ secret, previous_secret_expires_at: isoDate })
  .openapi("RotatedWebhookSecret");

export const WebhookDeliverySchema = z
  .object({
    id: z.uuid(),
    event_id: z.string().openapi({ description: "The `webhook-id` header of every attempt." }),
    event_type: z.string(),
    status: z.enum(["pending", "sending", "succeeded", "failed"]),
    attempts: z.number().int(),
    response_status: z.number().int().nullable(),
    response_excerpt: z.string().nullable().openapi({
      description:
        "At most the first 256 bytes of the answer; always null for keys with the `read` or `publish` scope (an answer may echo anything).",
    }),
    duration_ms: z.number().int().nullable(),
    error: z.string().nullable(),
    last_attempt_at: isoDate.nullable(),
    next_attempt_at: isoDate.nullable(),
    created_at: isoDate,
  })
  .openapi("WebhookDelivery");

export const WebhookDeliveryPageSchema = z
  .object({
    data: z.array(WebhookDeliverySchema),
    meta: z.object({
      current_page: z.number().int(),
      per_page: z.number().int(),
      total: z.number().int(),
      last_page: z.number().int(),
    }),
  })
  .openapi("WebhookDeliveryPage");
