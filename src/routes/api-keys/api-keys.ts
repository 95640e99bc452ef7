import { z } from "@hono/zod-openapi";
import { validationError } from "../../lib/errors";
import { parseUserDateTime } from "../../lib/time";
import { createApiKey, deleteApiKey, listApiKeys } from "../../services/api-keys/api-keys";
import { API_KEY_SCOPES } from "../../services/api-keys/scopes";
import type { App } from "../../types";
import { authedRoute, IdParam, jsonBody, nameField, noContent, ok } from "../openapi";
import { ApiKeySchema, CreatedApiKeySchema } from "../schemas";

const CreateApiKeyRequest = z
  .object({
    name: nameField,
    expires_at: z.string().nullish().openapi({
      description:
        "Optional expiry: ISO 8601 (or `Y-m-d[ H:i:s]`, read as UTC); must be in the future and not later than the calling key's own expiry (omitted: the calling key's expiry).",
    }),
    scopes: z
      .array(z.enum(API_KEY_SCOPES))
      .min(1)
      .max(API_KEY_SCOPES.length)
      .optional()
      .openapi({
        description:
          "Optional: `full`, `publish` or `read` (the widest listed applies); at most the calling key's own scope, which is also the default.",
        example: ["publish"],
      }),
  })
  .openapi("CreateApiKeyRequest");

const listRoute = authedRoute({
  area: "keys",
  method: "get",
  path: "/api/api-keys",
  operationId: "listApiKeys",
  tags: ["API keys"],
  summary: "List the workspace's live API keys, newest first",
  responses: { 200: ok(z.array(ApiKeySchema), "Plain array, no pagination.") },
});

const createRoute = authedRoute({
  area: "keys",
  method: "post",
  path: "/api/api-keys",
  operationId: "createApiKey",
  tags: ["API keys"],
  summary: "Create an API key (the plain token is returned once)",
  scope: "publish",
  request: jsonBody(CreateApiKeyRequest),
  responses: { 201: ok(CreatedApiKeySchema, "The key record and its plain token.") },
});

const deleteRoute = authedRoute({
  area: "keys",
  method: "delete",
  path: "/api/api-keys/{id}",
  operationId: "deleteApiKey",
  tags: ["API keys"],
  summary: "Revoke an API key and the keys it minted; they stop working at once",
  scope: "publish",
  request: { params: IdParam },
  responses: { 204: noContent },
});

export function registerApiKeys(app: App) {
  app.openapi(listRoute, async (c) => c.json(await listApiKeys(c.get("workspace")), 200));
  app.openapi(createRoute, async (c) => {
    const ctx = c.get("workspace");
    const body = c.req.valid("json");
    let expiresAt: number | null = null;
    if (body.expires_at) {
      expiresAt = parseUserDateTime(body.expires_at);
      if (expiresAt === null) throw validationError({ expires_at: ["The expires at field must be a valid date."] });
      if (expiresAt <= ctx.now())
        throw validationError({ expires_at: ["The expires at field must be a date after today."] });
    }
    return c.json(await createApiKey(ctx, { name: body.name, expiresAt, scopes: body.scopes }), 201);
  });
  app.openapi(deleteRoute, async (c) => {
    await deleteApiKey(c.get("workspace"), c.req.valid("param").id);
    return c.body(null, 204);
  });
}
