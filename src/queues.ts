/**
 * Which handler a queue batch goes to, by queue name. Production names are the bare ones in wrangler.jsonc; an
 * environment suffixes them (`publish-jobs-staging`, `publish-jobs-staging-dlq`, `webhook-deliveries-staging`), and
 * every dead-letter queue ends in `-dlq`.
 * `publish-claims` carries the scheduler's fanned-out claims (src/publishing/scheduler.ts).
 */
export type QueueKind = "publish" | "dead-letter" | "webhook" | "claim";

const named = (queue: string, base: string) => queue === base || queue.startsWith(`${base}-`);

export function queueKind(queue: string): QueueKind {
  if (queue.endsWith("-dlq")) return "dead-letter";
  if (named(queue, "webhook-deliveries")) return "webhook";
  if (named(queue, "publish-claims")) return "claim";
  return "publish";
}

/** The body `GET /api/health?deep=1` sends to check a queue's producer; every consumer acks it unread. */
export interface HealthProbe {
  health_probe: string;
}

export const isHealthProbe = (body: unknown): body is HealthProbe =>
  typeof body === "object" && body !== null && "health_probe" in body;

/**
 * The batch minus health probes (acked here), or the batch itself when it holds none — so a handler's `ackAll`
 * stays the runtime's own whenever it can.
 */
export function withoutHealthProbes<T>(batch: MessageBatch<T>): MessageBatch<T> | null {
  const probes = batch.messages.filter((m) => isHealthProbe(m.body));
  if (probes.length === 0) return batch;
  for (const m of probes) m.ack();
  const rest = batch.messages.filter((m) => !isHealthProbe(m.body));
  if (rest.length === 0) return null;
  return {
    queue: batch.queue,
    messages: rest,
    metadata: batch.metadata,
    ackAll: () => {
      for (const m of rest) m.ack();
    },
    retryAll: (options?: QueueRetryOptions) => {
      for (const m of rest) m.retry(options);
    },
  };
}
