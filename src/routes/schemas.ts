import { z } from "@hono/zod-openapi";
import { API_KEY_SCOPES } from "../services/api-keys/scopes";
import { isoDate, ymdHis } from "./openapi";

/** Response schemas of the workspace-level resources (the presenters produce exactly these). */
export const WorkspaceSchema = z
  .object({ id: z.uuid(), name: z.string(), created_at: ymdHis, updated_at: ymdHis })
  .openapi("Workspace");

export const ApiKeySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    last_used_at: isoDate.nullable(),
    expires_at: isoDate.nullable(),
    created_at: isoDate,
    scopes: z.array(z.enum(API_KEY_SCOPES)).openapi({
      description: "What the key may do: `full`, `publish` (posts, media, uploads, narrower keys) or `read`.",
      example: ["full"],
    }),
  })
  .openapi("ApiKey");

export const CreatedApiKeySchema = z
  .object({
    token: ApiKeySchema,
    plain_token: z.string().openapi({ description: "The bearer token. Returned only here, never again." }),
  })
  .openapi("CreatedApiKey");

export const LabelSchema = z
  .object({ id: z.uuid(), name: z.string(), color: z.string(), created_at: ymdHis, updated_at: ymdHis })
  .openapi("Label");

export const SignatureSchema = z
  .object({ id: z.uuid(), name: z.string(), content: z.string(), created_at: ymdHis, updated_at: ymdHis })
  .openapi("Signature");

export const SocialAccountSchema = z
  .object({
    id: z.uuid(),
    platform: z.string(),
    display_name: z.string(),
    username: z.string(),
    avatar_url: z.string().nullable(),
    is_active: z.boolean(),
    status: z.enum(["connected", "disconnected", "token_expired"]),
    created_at: ymdHis,
    updated_at: ymdHis,
  })
  .openapi("SocialAccount");
