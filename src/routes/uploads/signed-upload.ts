import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { requireSecret } from "../../config";
import { AppError, notFound, tooManyRequests } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { declaredLength, drainedUploadBody } from "../../media/upload-body";
import { uploadIssuerRevoked } from "../../services/uploads/issue-upload";
import { checkUploadSignature } from "../../services/uploads/signing";
import { storeSignedUpload, type VerifiedUpload, workspaceExists } from "../../services/uploads/store-upload";
import { hitIpWindow } from "../../services/uploads/upload-guard";
import type { App, AppEnv } from "../../types";
import { multipartBody } from "../media/schemas";
import { ErrorSchema, errorResponses, memoryBusyResponse, ok } from "../openapi";

export const INVALID_SIGNATURE = "Invalid signature.";
export const EXPIRED_SIGNATURE = "Upload URL has expired.";
export const REVOKED_ISSUER = "The API key that issued this upload URL has been revoked.";
export const PERSON_LEFT_ISSUER = "The person who issued this upload URL is no longer a member of the workspace.";

const forbidden = (message: string) => new AppError("forbidden", message);

/**
 * The signed URL is the credential; it is verified before the handler runs, in the order of decisions §9:
 * non-UUID token 404 → per-IP window 429 → signature 403 → expiry 403 → issuing API key revoked 403 → workspace
 * gone 404.
 */
export const verifySignedUpload: MiddlewareHandler<AppEnv & { Variables: { upload: VerifiedUpload } }> = async (
  c,
  next,
) => {
  const token = c.req.param("token");
  if (!isUuid(token)) throw notFound();
  const service = c.get("service");
  const ip = c.req.header("CF-Connecting-IP") ?? "unknown";
  const window = await hitIpWindow(c.env, ip, service.config.UPLOAD_RATE_LIMIT_PER_MINUTE);
  if (!window.allowed) throw tooManyRequests(window.retryAfterSeconds);
  const check = await checkUploadSignature(
    requireSecret(service.config, "UPLOAD_SIGNING_KEY"),
    token,
    new URL(c.req.url).searchParams,
  );
  if (!check.ok) throw forbidden(INVALID_SIGNATURE);
  if (service.now() > check.expiresUnix * 1000) throw forbidden(EXPIRED_SIGNATURE);
  const ended = await uploadIssuerRevoked(service, token);
  if (ended) throw forbidden(ended === "key" ? REVOKED_ISSUER : PERSON_LEFT_ISSUER);
  if (!(await workspaceExists(service, check.workspaceId))) throw notFound();
  c.set("upload", { token, workspaceId: check.workspaceId, expiresAtMs: check.expiresUnix * 1000 });
  await next();
};

export const StoredUploadSchema = z
  .object({
    upload_token: z.uuid().openapi({ description: "Echo of the path token." }),
    media_id: z.uuid().openapi({ description: "Id of the created Media (a workspace asset, on no post yet)." }),
    type: z.enum(["image", "video"]).openapi({ description: "`image` or `video`." }),
    mime_type: z
      .string()
      .openapi({ description: "Detected type; PNG and WebP are reported as image/jpeg.", example: "image/jpeg" }),
    original_filename: z.string().openapi({ description: "File name the client sent." }),
  })
  .openapi("StoredUpload");

const json = (description: string) => ({ content: { "application/json": { schema: ErrorSchema } }, description });

const route = createRoute({
  method: "post",
  path: "/api/uploads/{token}",
  operationId: "storeSignedUpload",
  tags: ["Uploads"],
  summary: "Upload a file to a signed URL (no bearer token)",
  description:
    "The URL from `POST /api/uploads` (or the MCP tool) is the only credential and works once. Checks, in order: token not a UUID → 404; more than UPLOAD_RATE_LIMIT_PER_MINUTE requests a minute from the IP → 429; signature missing, wrong, altered or extra parameter → 403; expired → 403; the API key that issued it revoked, or the person who issued it no longer a member → 403; workspace gone → 404; file missing, too large or of a type not allowed → 422 (the URL stays usable); already used → 409.",
  request: {
    params: z.object({
      token: z.string().openapi({ param: { name: "token", in: "path" }, description: "Upload token (UUID)." }),
    }),
    query: z.object({
      expires: z.string().openapi({ description: "Unix time after which the URL is refused (signed)." }),
      workspace_id: z.string().openapi({ description: "Workspace of the upload (signed)." }),
      signature: z.string().openapi({ description: "Hex HMAC-SHA256 of the path and the other parameters." }),
    }),
    ...multipartBody("One file field `media`, at most UPLOAD_MAX_BYTES."),
  },
  responses: {
    ...errorResponses,
    ...memoryBusyResponse,
    201: ok(StoredUploadSchema, "Stored; the Media is a workspace asset carrying the upload token."),
    403: json(
      "Invalid signature, altered or extra parameter, expired URL, or the issuing API key was revoked (or its person left the workspace).",
    ),
    409: json("The URL was already used."),
    429: json("More than the per-IP limit this minute; see `Retry-After`."),
  },
});

export function registerSignedUpload(app: App) {
  app.openAPIRegistry.registerPath(route);
  // After the URL is verified (a request without a valid URL gets no reading on its behalf), the body is read to its
  // end within UPLOAD_MAX_BYTES before any answer: a refused file gets its 4xx, not a reset (src/media/upload-body.ts).
  const drainBody = drainedUploadBody((config) => config.UPLOAD_MAX_BYTES);
  app.post("/api/uploads/:token", verifySignedUpload, drainBody, async (c) => {
    const declared = declaredLength(c.req.header("Content-Length"));
    const result = await storeSignedUpload(c.get("service"), c.get("upload"), c.get("uploadForm"), declared);
    return c.json(result, 201);
  });
}
