import { z } from "zod";

/** The body of every `publish-jobs` queue message: one enabled post-platform row to publish. */
export const PublishMessageSchema = z.object({
  post_platform_id: z.uuid(),
  post_id: z.uuid(),
  workspace_id: z.uuid(),
});
export type PublishMessage = z.infer<typeof PublishMessageSchema>;

/** Queue.sendBatch takes at most 100 messages per call. */
export const QUEUE_SEND_BATCH_MAX = 100;

export async function enqueuePublishMessages(queue: Queue, messages: PublishMessage[]): Promise<void> {
  for (let i = 0; i < messages.length; i += QUEUE_SEND_BATCH_MAX) {
    await queue.sendBatch(messages.slice(i, i + QUEUE_SEND_BATCH_MAX).map((body) => ({ body, contentType: "json" })));
  }
}
