/** Every event a webhook endpoint can subscribe to (docs/webhooks.md lists each payload's `data`). */
export const WEBHOOK_EVENT_TYPES = [
  "post.scheduled",
  "post.published",
  "post.partially_published",
  "post.failed",
  "post.platform.published",
  "post.platform.failed",
  "account.connected",
  "account.disconnected",
  "account.token_expired",
  "account.expiring",
  "account.needs_reconnect",
  "media.uploaded",
  "webhook.endpoint.disabled",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Sent only by `POST /api/webhooks/{id}/test`, to that endpoint, whatever it subscribed to. */
export const WEBHOOK_TEST_EVENT = "webhook.test";
