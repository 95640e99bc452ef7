import { rotateWebhookSecret } from "../../services/webhooks/rotate-webhook-secret";
import type { App } from "../../types";
import { authedRoute, ErrorSchema, ok } from "../openapi";
import { RotatedSecretSchema, WebhookParam } from "./schemas";

const route = authedRoute({
  area: "webhooks",
  method: "post",
  path: "/api/webhooks/{id}/rotate-secret",
  operationId: "rotateWebhookSecret",
  tags: ["Webhooks"],
  summary: "Replace the signing secret; the old one keeps signing beside it for 24 hours",
  request: { params: WebhookParam },
  responses: {
    200: ok(RotatedSecretSchema, "The new secret (shown only here) and when the old one stops signing."),
    409: ok(ErrorSchema, "Another rotation of this endpoint ran at the same moment."),
  },
});

export function registerRotateWebhookSecret(app: App) {
  app.openapi(route, async (c) => c.json(await rotateWebhookSecret(c.get("workspace"), c.req.valid("param").id), 200));
}
