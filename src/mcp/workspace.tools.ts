import { z } from "zod";
import { CATALOG_WITH_MEDIA_RULES } from "../catalog/media-specs";
import { validationError } from "../lib/errors";
import { parseUserDateTime } from "../lib/time";
import { createApiKey, deleteApiKey, listApiKeys } from "../services/api-keys/api-keys";
import { API_KEY_SCOPES, type ApiKeyScope } from "../services/api-keys/scopes";
import { createLabel, deleteLabel, listLabels, updateLabel } from "../services/labels/labels";
import { createSignature, deleteSignature, listSignatures, updateSignature } from "../services/signatures/signatures";
import { listSocialAccounts, toggleSocialAccount } from "../services/social-accounts/social-accounts";
import { getWorkspace } from "../services/workspaces/workspaces";
import { defineTool } from "./tool";

const uuid = (what: string) => z.uuid().describe(`Id (UUID) of the ${what}.`);
const name = z.string().trim().min(1).max(255).describe("Name, at most 255 characters.");
const color = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/)
  .describe("Hex colour in the form #RRGGBB.");
const signatureContent = z.string().min(1).describe("Text appended to posts when the signature is applied.");

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false } as const;
const UPDATE = { readOnlyHint: false, destructiveHint: false, idempotentHint: true } as const;
const DELETE = { readOnlyHint: false, destructiveHint: true, idempotentHint: true } as const;

export const workspaceTools = [
  defineTool({
    name: "get-workspace-tool",
    title: "Get workspace",
    description: "Returns the workspace bound to the API key: id, name, created_at, updated_at.",
    input: {},
    annotations: READ,
    run: (ctx) => getWorkspace(ctx),
  }),
  defineTool({
    name: "list-content-types-tool",
    title: "List content types",
    description:
      "Returns the platform catalog: per platform its content types, max/recommended content length, allowed media kinds, max media count and whether media is required.",
    input: {},
    annotations: READ,
    run: async () => ({ platforms: CATALOG_WITH_MEDIA_RULES }),
  }),
  defineTool({
    name: "list-labels-tool",
    title: "List labels",
    description: "Lists the workspace's labels, latest first.",
    input: {},
    annotations: READ,
    run: (ctx) => listLabels(ctx),
  }),
  defineTool({
    name: "create-label-tool",
    title: "Create label",
    description: "Creates a coloured label that can be attached to posts.",
    input: { name, color },
    annotations: WRITE,
    run: (ctx, input) => createLabel(ctx, input as { name: string; color: string }),
  }),
  defineTool({
    name: "update-label-tool",
    title: "Update label",
    description: "Renames or recolours a label.",
    input: { label_id: uuid("label"), name, color },
    annotations: UPDATE,
    run: (ctx, { label_id, ...input }) =>
      updateLabel(ctx, label_id as string, input as { name: string; color: string }),
  }),
  defineTool({
    name: "delete-label-tool",
    title: "Delete label",
    description: "Deletes a label and detaches it from every post.",
    input: { label_id: uuid("label") },
    annotations: DELETE,
    run: async (ctx, { label_id }) => {
      await deleteLabel(ctx, label_id as string);
      return { deleted: true, id: label_id };
    },
  }),
  defineTool({
    name: "list-signatures-tool",
    title: "List signatures",
    description: "Lists reusable text blocks (hashtag sets, calls to action), latest first.",
    input: {},
    annotations: READ,
    run: (ctx) => listSignatures(ctx),
  }),
  defineTool({
    name: "create-signature-tool",
    title: "Create signature",
    description: "Creates a reusable text block.",
    input: { name, content: signatureContent },
    annotations: WRITE,
    run: (ctx, input) => createSignature(ctx, input as { name: string; content: string }),
  }),
  defineTool({
    name: "update-signature-tool",
    title: "Update signature",
    description: "Changes a signature's name and text.",
    input: { signature_id: uuid("signature"), name, content: signatureContent },
    annotations: UPDATE,
    run: (ctx, { signature_id, ...input }) =>
      updateSignature(ctx, signature_id as string, input as { name: string; content: string }),
  }),
  defineTool({
    name: "delete-signature-tool",
    title: "Delete signature",
    description: "Deletes a signature.",
    input: { signature_id: uuid("signature") },
    annotations: DELETE,
    run: async (ctx, { signature_id }) => {
      await deleteSignature(ctx, signature_id as string);
      return { deleted: true, id: signature_id };
    },
  }),
  defineTool({
    name: "list-social-accounts-tool",
    title: "List social accounts",
    description:
      "Lists connected, inactive and disconnected social accounts (id, platform, display_name, username, is_active, status) with their health: expires_at (when access ends unless reconnected; null: not known to end), refreshable (the service renews the token itself), health (ok, expiring: ends within 7 days and cannot be renewed, needs_reconnect: rows of the account fail until it is reconnected) and health_reason. Use an account id in create-post-tool.",
    input: {},
    annotations: READ,
    run: (ctx) => listSocialAccounts(ctx),
  }),
  defineTool({
    name: "toggle-social-account-tool",
    title: "Toggle social account",
    description: "Activates or deactivates a social account (flips is_active). Inactive accounts are not published to.",
    input: { social_account_id: uuid("social account") },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: (ctx, { social_account_id }) => toggleSocialAccount(ctx, social_account_id as string),
  }),
  defineTool({
    name: "list-api-keys-tool",
    title: "List API keys",
    description: "Lists the workspace's live API keys (never the tokens).",
    input: {},
    annotations: READ,
    run: (ctx) => listApiKeys(ctx),
  }),
  defineTool({
    name: "create-api-key-tool",
    scope: "publish",
    title: "Create API key",
    description: "Creates an API key for this workspace. The plain token is returned once, in plain_token.",
    input: {
      name,
      expires_at: z
        .string()
        .optional()
        .describe(
          "Optional expiry, ISO 8601 (a bare date or date-time is read as UTC); must be in the future and not later than this key's own expiry (omitted: this key's expiry).",
        ),
      scopes: z
        .array(z.enum(API_KEY_SCOPES))
        .min(1)
        .max(API_KEY_SCOPES.length)
        .optional()
        .describe(
          "Optional: full, publish (posts, media, uploads, narrower keys) or read; the widest listed applies. At most this key's own scope, which is the default.",
        ),
    },
    annotations: WRITE,
    run: async (ctx, input) => {
      let expiresAt: number | null = null;
      if (input.expires_at) {
        expiresAt = parseUserDateTime(input.expires_at as string);
        if (expiresAt === null) throw validationError({ expires_at: ["The expires at field must be a valid date."] });
        if (expiresAt <= ctx.now())
          throw validationError({ expires_at: ["The expires at field must be a date after today."] });
      }
      return createApiKey(ctx, {
        name: input.name as string,
        expiresAt,
        scopes: input.scopes as ApiKeyScope[] | undefined,
      });
    },
  }),
  defineTool({
    name: "delete-api-key-tool",
    scope: "publish",
    title: "Delete API key",
    description: "Revokes an API key and every key it minted; they stop working at once.",
    input: { api_key_id: uuid("API key") },
    annotations: DELETE,
    run: async (ctx, { api_key_id }) => {
      await deleteApiKey(ctx, api_key_id as string);
      return { deleted: true, id: api_key_id };
    },
  }),
];
