import { and, eq, inArray, sql } from "drizzle-orm";
import { inJsonArray } from "../db/json-params";
import { postPlatforms } from "../db/schema";
import { errorFields, log } from "../lib/logger";
import { dispatchRecordedEvents } from "../services/webhooks/kick";
import { postPlatformEvents, postSettledEvent } from "../services/webhooks/outbox";
import { backgroundContext } from "./context";
import { PUBLISH_ERRORS } from "./errors";
import { type PublishMessage, PublishMessageSchema } from "./messages";
import { type PublishOptions, publishRow } from "./publish-row";
import { retryDelaySeconds } from "./retry-policy";
import { recomputePostStatus } from "./status";

function parse(message: Message<unknown>, queue: string): PublishMessage | null {
  const parsed = PublishMessageSchema.safeParse(message.body);
  if (parsed.success) return parsed.data;
  // Retrying a malformed message cannot help: log what was wrong (paths only) and drop it.
  log("error", "publish_message_invalid", {
    queue,
    message_id: message.id,
    issues: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`),
  });
  return null;
}

/** The `publish-jobs` consumer: each message is one row; messages of a batch run concurrently. */
export async function handlePublishBatch(
  batch: MessageBatch<unknown>,
  env: Cloudflare.Env,
  ctx: ExecutionContext,
  opts: PublishOptions = {},
): Promise<void> {
  const sctx = backgroundContext(env, ctx, crypto.randomUUID());
  await Promise.all(
    batch.messages.map(async (message) => {
      const body = parse(message, batch.queue);
      if (!body) return message.ack();
      try {
        const outcome = await publishRow(sctx, body, message.attempts, opts);
        if (outcome.action === "retry") message.retry({ delaySeconds: outcome.delaySeconds });
        else message.ack();
      } catch (err) {
        // Our own failure (D1 unavailable, …), not the platform's: try the delivery again later.
        log("error", "publish_message_error", { post_platform_id: body.post_platform_id, ...errorFields(err) });
        message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
      }
    }),
  );
  dispatchRecordedEvents(sctx);
}

/**
 * The `publish-jobs-dlq` consumer: a message that ran out of deliveries without settling its row fails the row
 * with the last error it recorded, and settles the post.
 */
export async function handleDeadLetterBatch(
  batch: MessageBatch<unknown>,
  env: Cloudflare.Env,
  ctx: ExecutionContext,
): Promise<void> {
  const sctx = backgroundContext(env, ctx, crypto.randomUUID());
  const bodies = batch.messages.map((m) => parse(m, batch.queue)).filter((b): b is PublishMessage => b !== null);
  if (bodies.length > 0) {
    const now = sctx.now();
    const rowIds = bodies.map((b) => b.post_platform_id);
    const [failed] = await sctx.db.batch([
      sctx.db
        .update(postPlatforms)
        .set({
          status: "failed",
          errorMessage: sql`COALESCE(${postPlatforms.errorMessage}, ${PUBLISH_ERRORS.exhausted})`,
          updatedAt: now,
        })
        .where(
          and(
            inJsonArray(postPlatforms.id, rowIds),
            inArray(postPlatforms.status, ["pending", "publishing"]),
            eq(postPlatforms.enabled, true),
          ),
        )
        .returning({ id: postPlatforms.id, postId: postPlatforms.postId }),
      postPlatformEvents(sctx, rowIds, now),
    ]);
    const postIds = [...new Set(failed.map((r) => r.postId))];
    if (postIds.length > 0) {
      const [first, ...rest] = postIds.flatMap((id) => [
        recomputePostStatus(sctx.db, id, now),
        postSettledEvent(sctx, id),
      ]);
      await sctx.db.batch([first!, ...rest]);
    }
    if (failed.length > 0) log("warn", "publish_dead_lettered", { rows: failed.map((r) => r.id) });
  }
  batch.ackAll();
  dispatchRecordedEvents(sctx);
}
