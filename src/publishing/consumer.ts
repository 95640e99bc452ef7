import { and, eq, sql } from "drizzle-orm";
import { inFilterOnly, inJsonArray } from "../db/json-params";
import { deadLetters, postPlatforms } from "../db/schema";
import { errorFields, log } from "../lib/logger";
import { dispatchRecordedEvents } from "../services/webhooks/kick";
import { postPlatformEvents, postSettledEvent } from "../services/webhooks/outbox";
import { backgroundContext } from "./context";
import { PUBLISH_ERRORS } from "./errors";
import { type PublishMessage, PublishMessageSchema } from "./messages";
import { recordPublishOutcome } from "./outcomes";
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
 * with the last error it recorded, and settles the post. Every message (even one that does not parse) is stored in
 * `dead_letters`, keyed by its message id so a second delivery stores nothing new, with the row's error, to be
 * listed and replayed by an operator (src/services/dead-letters, docs/runbook.md).
 */
export async function handleDeadLetterBatch(
  batch: MessageBatch<unknown>,
  env: Cloudflare.Env,
  ctx: ExecutionContext,
): Promise<void> {
  const sctx = backgroundContext(env, ctx, crypto.randomUUID());
  const now = sctx.now();
  const parsed = batch.messages.map((m) => ({ message: m, body: parse(m, batch.queue) }));
  const bodies = parsed.map((p) => p.body).filter((b): b is PublishMessage => b !== null);
  const store = parsed.map(({ message, body }) =>
    sctx.db
      .insert(deadLetters)
      .values({
        id: message.id,
        queue: batch.queue,
        messageId: message.id,
        body: JSON.stringify(message.body ?? null),
        postPlatformId: body?.post_platform_id ?? null,
        workspaceId: body?.workspace_id ?? null,
        attempts: message.attempts,
        // Read after the row was failed below (a batch runs in order), so it is the error the row ended with.
        error: body
          ? sql`(SELECT ${postPlatforms.errorMessage} FROM ${postPlatforms} WHERE ${postPlatforms.id} = ${body.post_platform_id})`
          : "message did not parse",
        createdAt: now,
      })
      .onConflictDoNothing(),
  );
  if (bodies.length > 0) {
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
            inFilterOnly(postPlatforms.status, ["pending", "publishing"]),
            eq(postPlatforms.enabled, true),
          ),
        )
        .returning({ id: postPlatforms.id, postId: postPlatforms.postId, platform: postPlatforms.platform }),
      postPlatformEvents(sctx, rowIds, now),
      ...store,
    ]);
    const workspaceOf = new Map(bodies.map((b) => [b.post_platform_id, b.workspace_id]));
    for (const r of failed) recordPublishOutcome(sctx.env, r.platform, "dead_lettered", workspaceOf.get(r.id));
    const postIds = [...new Set(failed.map((r) => r.postId))];
    if (postIds.length > 0) {
      const [first, ...rest] = postIds.flatMap((id) => [
        recomputePostStatus(sctx.db, id, now),
        postSettledEvent(sctx, id),
      ]);
      await sctx.db.batch([first!, ...rest]);
    }
    if (failed.length > 0) log("warn", "publish_dead_lettered", { rows: failed.map((r) => r.id) });
  } else if (store.length > 0) {
    const [first, ...rest] = store;
    await sctx.db.batch([first!, ...rest]);
  }
  batch.ackAll();
  dispatchRecordedEvents(sctx);
}
