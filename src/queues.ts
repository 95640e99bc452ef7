/**
 * Which handler a queue batch goes to, by queue name. Production names are the bare ones in wrangler.jsonc; an
 * environment suffixes them (`publish-jobs-staging`, `publish-jobs-staging-dlq`, `webhook-deliveries-staging`), and
 * every dead-letter queue ends in `-dlq`.
 */
export type QueueKind = "publish" | "dead-letter" | "webhook";

const named = (queue: string, base: string) => queue === base || queue.startsWith(`${base}-`);

export function queueKind(queue: string): QueueKind {
  if (queue.endsWith("-dlq")) return "dead-letter";
  if (named(queue, "webhook-deliveries")) return "webhook";
  return "publish";
}
