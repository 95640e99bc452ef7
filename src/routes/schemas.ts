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
    expires_at: ymdHis
      .nullable()
      .describe(
        "When the account's access ends unless it is reconnected (UTC): an unrenewable token's expiry (LinkedIn without programmatic refresh: 60 days), or the end of a refresh token the network limits (Google apps in Testing: 7 days). Null: not known to end — the service renews it (`refreshable`), or the network's token does not expire.",
      ),
    refreshable: z
      .boolean()
      .nullable()
      .describe(
        "Whether the service renews the access token itself (it holds a refresh credential the network honours). Null until first looked at (accounts from before this field: within a minute).",
      ),
    health: z
      .enum(["ok", "expiring", "needs_reconnect"])
      .describe(
        "`expiring`: `expires_at` is within 7 days and the service cannot renew it (event `account.expiring`, once). `needs_reconnect`: the network refused the session, a permission, or the access ended (event `account.needs_reconnect`, once); rows of the account fail at their time until it is reconnected. A reconnect sets `ok`.",
      ),
    health_reason: z
      .string()
      .nullable()
      .describe("Why the account is `expiring` or `needs_reconnect`, in the network's words when it gave them."),
    created_at: ymdHis,
    updated_at: ymdHis,
  })
  .openapi("SocialAccount");
