import { z } from "@hono/zod-openapi";
import { PLATFORMS } from "../../catalog/platforms";
import { ErrorBag } from "../../lib/errors";
import { boundedMeta } from "../../lib/json-bounds";
import { parseUserDateTime } from "../../lib/time";
import {
  connectSocialAccount,
  disconnectSocialAccount,
  listSocialAccounts,
  toggleSocialAccount,
} from "../../services/social-accounts/social-accounts";
import type { App } from "../../types";
import { authedRoute, IdParam, jsonBody, noContent, ok } from "../openapi";
import { SocialAccountSchema } from "../schemas";

const tags = ["Social accounts"];
const httpUrl = z.string().regex(/^https?:\/\/[^\s/]+/i, "The :attribute field must be a valid http(s) URL.");

const ConnectSocialAccountRequest = z
  .object({
    platform: z.enum(PLATFORMS).openapi({ description: "Platform identifier." }),
    display_name: z.string().trim().min(1).max(255).openapi({ description: "Name shown for the account." }),
    username: z
      .string()
      .max(255)
      .default("")
      .openapi({ description: "Handle. Bluesky fills it from the session when empty." }),
    avatar_url: z.string().max(2048).nullish().openapi({ description: "Avatar URL." }),
    platform_user_id: z.string().max(255).nullish().openapi({
      description:
        "The platform's own id of the account (X user id, LinkedIn person id, organization id, page id, IG user id, …). Bluesky and Mastodon fill it in.",
    }),
    credentials: z
      .object({
        access_token: z
          .string()
          .min(1)
          .max(8192)
          .optional()
          .openapi({ description: "OAuth access token (Mastodon: the app token)." }),
        refresh_token: z
          .string()
          .max(8192)
          .optional()
          .openapi({ description: "OAuth refresh token, when the platform issues one." }),
        expires_at: z.string().nullish().openapi({ description: "When the access token expires (ISO 8601)." }),
        identifier: z.string().max(255).optional().openapi({ description: "Bluesky handle, email or DID." }),
        app_password: z.string().max(255).optional().openapi({ description: "Bluesky app password." }),
      })
      .openapi({ description: "Never returned. Encrypted at rest." }),
    meta: z
      .object({
        service: httpUrl.optional().openapi({ description: "Bluesky PDS URL (default https://bsky.social)." }),
        instance: httpUrl.optional().openapi({ description: "Mastodon instance URL (required for Mastodon)." }),
        organization_id: z.string().optional().openapi({ description: "LinkedIn organization id (LinkedIn Page)." }),
        default_board_id: z.string().optional().openapi({ description: "Pinterest board used when a post sets none." }),
        page_id: z
          .string()
          .optional()
          .openapi({ description: "Facebook page id behind an Instagram (Facebook) account." }),
      })
      .catchall(z.unknown())
      .superRefine(boundedMeta)
      .default({}),
  })
  .openapi("ConnectSocialAccountRequest");

const listRoute = authedRoute({
  method: "get",
  path: "/api/social-accounts",
  operationId: "listSocialAccounts",
  tags,
  summary: "List connected, inactive and disconnected accounts (by platform, then name)",
  responses: { 200: ok(z.array(SocialAccountSchema), "Plain array, no pagination.") },
});
const connectRoute = authedRoute({
  method: "post",
  path: "/api/social-accounts",
  operationId: "connectSocialAccount",
  tags,
  summary: "Connect an account with credentials (Bluesky and Mastodon are verified with their server)",
  request: jsonBody(ConnectSocialAccountRequest),
  responses: { 201: ok(SocialAccountSchema, "The connected account (credentials are never returned).") },
});
const toggleRoute = authedRoute({
  method: "put",
  path: "/api/social-accounts/{id}/toggle",
  operationId: "toggleSocialAccount",
  tags,
  summary: "Flip is_active",
  request: { params: IdParam },
  responses: { 200: ok(SocialAccountSchema, "The account.") },
});
const disconnectRoute = authedRoute({
  method: "delete",
  path: "/api/social-accounts/{id}",
  operationId: "disconnectSocialAccount",
  tags,
  summary: "Disconnect: credentials erased, row kept so posts keep their snapshots",
  request: { params: IdParam },
  responses: { 204: noContent },
});

type ConnectBody = z.infer<typeof ConnectSocialAccountRequest>;

/** Cross-field rules the schema cannot say alone: what each platform needs. */
function checkPlatformCredentials(body: ConnectBody): number | null {
  const bag = new ErrorBag();
  let expiresAt: number | null = null;
  if (body.platform === "bluesky") {
    if (!body.credentials.identifier)
      bag.add("credentials.identifier", "The credentials.identifier field is required for Bluesky.");
    if (!body.credentials.app_password)
      bag.add("credentials.app_password", "The credentials.app_password field is required for Bluesky.");
  } else {
    if (!body.credentials.access_token)
      bag.add("credentials.access_token", "The credentials.access_token field is required.");
    if (body.platform === "mastodon" && !body.meta.instance)
      bag.add("meta.instance", "The meta.instance field is required for Mastodon.");
    if (body.platform === "linkedin-page" && !body.meta.organization_id && !body.platform_user_id)
      bag.add("meta.organization_id", "The meta.organization_id field is required for LinkedIn Page.");
    if (body.credentials.expires_at) {
      expiresAt = parseUserDateTime(body.credentials.expires_at);
      if (expiresAt === null)
        bag.add("credentials.expires_at", "The credentials.expires at field must be a valid date.");
    }
  }
  bag.throwIfAny();
  return expiresAt;
}

export function registerSocialAccounts(app: App) {
  app.openapi(listRoute, async (c) => c.json(await listSocialAccounts(c.get("workspace")), 200));
  app.openapi(connectRoute, async (c) => {
    const body = c.req.valid("json");
    const expiresAt = checkPlatformCredentials(body);
    const account = await connectSocialAccount(c.get("workspace"), {
      ...body,
      credentials: { ...body.credentials, expires_at: expiresAt },
    });
    return c.json(account, 201);
  });
  app.openapi(toggleRoute, async (c) =>
    c.json(await toggleSocialAccount(c.get("workspace"), c.req.valid("param").id), 200),
  );
  app.openapi(disconnectRoute, async (c) => {
    await disconnectSocialAccount(c.get("workspace"), c.req.valid("param").id);
    return c.body(null, 204);
  });
}
