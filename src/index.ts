import "./polyfills";
import { createApp } from "./app";
import { loadConfig } from "./config";
import { setLogLevel } from "./lib/logger";
import { configureOutboundDns } from "./lib/outbound-guard";
import { cancellingUnreadBody } from "./lib/unread-body";
import { handleDeadLetterBatch, handlePublishBatch } from "./publishing/consumer";
import { backgroundContext } from "./publishing/context";
import { runCron } from "./publishing/cron";
import { handleClaimBatch } from "./publishing/scheduler";
import { queueKind, withoutHealthProbes } from "./queues";
import { handleWebhookBatch } from "./services/webhooks/consumer";

export { UploadGuard } from "./durable-objects/upload-guard";

const app = createApp();

/** Per isolate, from the config: the log level and how the outbound guard treats host names. */
function configure(env: Cloudflare.Env) {
  const config = loadConfig(env);
  setLogLevel(config.LOG_LEVEL);
  configureOutboundDns({ egress: config.OUTBOUND_EGRESS, dohUrl: config.OUTBOUND_DOH_URL });
}

export default {
  fetch(request, env, ctx) {
    configure(env);
    // An answer given before the body was read cancels the body (src/lib/unread-body.ts).
    return cancellingUnreadBody(request, app.fetch(request, env, ctx));
  },
  async queue(received, env, ctx) {
    configure(env);
    const batch = withoutHealthProbes(received);
    if (!batch) return;
    const kind = queueKind(batch.queue);
    if (kind === "webhook") await handleWebhookBatch(backgroundContext(env, ctx, crypto.randomUUID()), batch);
    else if (kind === "claim") await handleClaimBatch(backgroundContext(env, ctx, crypto.randomUUID()), batch);
    else if (kind === "dead-letter") await handleDeadLetterBatch(batch, env, ctx);
    else await handlePublishBatch(batch, env, ctx);
  },
  async scheduled(_controller, env, ctx) {
    configure(env);
    await runCron(env, ctx);
  },
} satisfies ExportedHandler<Cloudflare.Env>;
