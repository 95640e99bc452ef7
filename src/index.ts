import "./polyfills";
import { createApp } from "./app";
import { loadConfig } from "./config";
import { setLogLevel } from "./lib/logger";
import { handleDeadLetterBatch, handlePublishBatch } from "./publishing/consumer";
import { backgroundContext } from "./publishing/context";
import { runCron } from "./publishing/cron";
import { handleClaimBatch } from "./publishing/scheduler";
import { queueKind, withoutHealthProbes } from "./queues";
import { handleWebhookBatch } from "./services/webhooks/consumer";

export { UploadGuard } from "./durable-objects/upload-guard";

const app = createApp();

export default {
  fetch(request, env, ctx) {
    setLogLevel(loadConfig(env).LOG_LEVEL);
    return app.fetch(request, env, ctx);
  },
  async queue(received, env, ctx) {
    setLogLevel(loadConfig(env).LOG_LEVEL);
    const batch = withoutHealthProbes(received);
    if (!batch) return;
    const kind = queueKind(batch.queue);
    if (kind === "webhook") await handleWebhookBatch(backgroundContext(env, ctx, crypto.randomUUID()), batch);
    else if (kind === "claim") await handleClaimBatch(backgroundContext(env, ctx, crypto.randomUUID()), batch);
    else if (kind === "dead-letter") await handleDeadLetterBatch(batch, env, ctx);
    else await handlePublishBatch(batch, env, ctx);
  },
  async scheduled(_controller, env, ctx) {
    setLogLevel(loadConfig(env).LOG_LEVEL);
    await runCron(env, ctx);
  },
} satisfies ExportedHandler<Cloudflare.Env>;
