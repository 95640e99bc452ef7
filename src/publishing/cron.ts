import { errorFields, log } from "../lib/logger";
import { runLifecycle } from "../services/lifecycle/sweep-media";
import { fillEvergreenSlots } from "../services/queues/evergreen";
import { resealSecrets } from "../services/sealing/reseal-secrets";
import { resealCredentials } from "../services/social-accounts/reseal-credentials";
import { sweepWebhookDeliveries } from "../services/webhooks/consumer";
import { dispatchWebhookEvents } from "../services/webhooks/dispatch";
import { forgetRecordedEvents } from "../services/webhooks/kick";
import { runAccountHealth } from "./account-health";
import { backgroundContext } from "./context";
import { continueRepeats } from "./repeats";
import { runScheduler } from "./scheduler";
import { sweepStuckRows } from "./sweeper";
import { runTokenRefresh } from "./token-refresh";

/**
 * The every-minute cron: publish due posts, time out stuck rows, refresh tokens before they expire and keep each
 * account's health (expiring, needs_reconnect: docs/account-health.md), then
 * dispatch webhook events (theirs, and any a stopped Worker left in the outbox) and re-enqueue webhook deliveries
 * whose message was lost. Beside publishing: the storage lifecycle sweep (src/services/lifecycle) and re-sealing
 * credentials and every other sealed secret still under a previous encryption key (docs/security.md). Issue 37: each
 * settled occurrence of a repeating post gets its next one, and evergreen queues fill their empty slots a day ahead
 * (docs/queues.md).
 */
export async function runCron(env: Cloudflare.Env, ctx: ExecutionContext): Promise<void> {
  const sctx = backgroundContext(env, ctx, crypto.randomUUID());
  const publishing = await Promise.allSettled([
    runScheduler(sctx),
    sweepStuckRows(sctx),
    runTokenRefresh(sctx),
    runAccountHealth(sctx),
    runLifecycle(sctx),
    resealCredentials(sctx),
    resealSecrets(sctx),
    continueRepeats(sctx),
    fillEvergreenSlots(sctx),
  ]);
  forgetRecordedEvents(sctx);
  const webhooks = await Promise.allSettled([dispatchWebhookEvents(sctx), sweepWebhookDeliveries(sctx)]);
  const results = [...publishing, ...webhooks];
  for (const r of results) {
    if (r.status === "rejected") log("error", "cron_step_failed", errorFields(r.reason));
  }
  const failure = results.find((r) => r.status === "rejected");
  if (failure) throw (failure as PromiseRejectedResult).reason;
}
