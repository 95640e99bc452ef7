import type { ServiceContext } from "../../context";
import { errorFields, log } from "../../lib/logger";
import { dispatchWebhookEvents } from "./dispatch";

/**
 * Outbox rows are dispatched right after the work that recorded them (the cron dispatches whatever is left, so a
 * Worker that stops in between loses nothing, it only delays). The outbox helpers note the request id here when
 * they build a statement; each transport calls `dispatchRecordedEvents` once its batches have run — a batch that
 * failed left no rows, and dispatching finds nothing.
 */
const recorded = new Set<string>();

export function noteEventsRecorded(ctx: Pick<ServiceContext, "requestId">): void {
  recorded.add(ctx.requestId);
}

export function dispatchRecordedEvents(ctx: ServiceContext): void {
  if (!recorded.delete(ctx.requestId)) return;
  ctx.waitUntil(
    dispatchWebhookEvents(ctx).catch((err) =>
      log("error", "webhook_dispatch_failed", { request_id: ctx.requestId, ...errorFields(err) }),
    ),
  );
}

/** For a transport that dispatches in any case (the cron): drops the note without a second dispatch. */
export function forgetRecordedEvents(ctx: Pick<ServiceContext, "requestId">): void {
  recorded.delete(ctx.requestId);
}
