import { z } from "zod";

/** The body of every `webhook-deliveries` queue message: one attempt of one delivery. */
export const WebhookMessageSchema = z.object({
  delivery_id: z.uuid(),
  endpoint_id: z.uuid(),
  /** 1-based attempt number this message is for; the consumer's claim fences duplicates on it. */
  attempt: z.number().int().positive(),
});
export type WebhookMessage = z.infer<typeof WebhookMessageSchema>;

const SEND_BATCH_MAX = 100;

export async function enqueueWebhookMessages(queue: Queue, messages: WebhookMessage[]): Promise<void> {
  for (let i = 0; i < messages.length; i += SEND_BATCH_MAX) {
    await queue.sendBatch(messages.slice(i, i + SEND_BATCH_MAX).map((body) => ({ body, contentType: "json" })));
  }
}
