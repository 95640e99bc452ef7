import type { App } from "../../types";
import { registerCreateWebhook } from "./create-webhook";
import { registerDeleteWebhook } from "./delete-webhook";
import { registerGetWebhook } from "./get-webhook";
import { registerListWebhookDeliveries } from "./list-webhook-deliveries";
import { registerListWebhooks } from "./list-webhooks";
import { registerRetryWebhookDelivery } from "./retry-webhook-delivery";
import { registerRotateWebhookSecret } from "./rotate-webhook-secret";
import { registerTestWebhook } from "./test-webhook";
import { registerUpdateWebhook } from "./update-webhook";

export function registerWebhooks(app: App) {
  registerListWebhooks(app);
  registerCreateWebhook(app);
  registerGetWebhook(app);
  registerUpdateWebhook(app);
  registerDeleteWebhook(app);
  registerRotateWebhookSecret(app);
  registerTestWebhook(app);
  registerListWebhookDeliveries(app);
  registerRetryWebhookDelivery(app);
}
