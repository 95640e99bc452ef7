import "./polyfills";
import { createApp } from "./app";
import { loadConfig } from "./config";
import { setLogLevel } from "./lib/logger";

export { UploadGuard } from "./durable-objects/upload-guard";

const app = createApp();

export default {
  fetch(request, env, ctx) {
    setLogLevel(loadConfig(env).LOG_LEVEL);
    return app.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Cloudflare.Env>;
