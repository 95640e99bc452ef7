import type { ServiceContext } from "../../context";
import { errorFields, log } from "../../lib/logger";
import { dispatchWebhookEvents } from "./dispatch";

/**
 * Outbox rows are dispatched right after the work that recorded them (the cron dispatches whatever is left, so a
 * Worker that stops in between loses nothing, it only delays). The outbox helpers set the context's
 * `webhookOutbox.recorded` when they build a statement (outbox.ts); each transport calls `dispatchRecordedEvents`
 * once its batches have run — a batch that failed left no rows, and dispatching finds nothing.
 */
export function dispatchRecordedEvents(ctx: ServiceContext): void {
  if (!ctx.webhookOutbox.recorded) return;
  ctx.webhookOutbox.recorded = false;
  ctx.waitUntil(
    dispatchWebhookEvents(ctx).catch((err) =>
      log("error", "webhook_dispatch_failed", { request_id: ctx.requestId, ...errorFields(err) }),
    ),
  );
}

/** For a transport that dispatches in any case (the cron): drops the note without a second dispatch. */
export function forgetRecordedEvents(ctx: Pick<ServiceContext, "webhookOutbox">): void {
  ctx.webhookOutbox.recorded = false;
}
