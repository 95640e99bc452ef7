import { z } from "@hono/zod-openapi";
import { issueUpload } from "../../services/uploads/issue-upload";
import type { App } from "../../types";
import { authedRoute, ok } from "../openapi";

export const IssuedUploadSchema = z
  .object({
    upload_token: z.uuid().openapi({ description: "Single-use token; pass it to attach the upload to a post." }),
    upload_url: z.string().openapi({
      description: "POST the file here as multipart field `media`, without a bearer token. Single use.",
      example:
        "https://api.example.com/api/uploads/0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a?expires=1795000000&workspace_id=6f1c…&signature=…",
    }),
    expires_at: z.string().openapi({ description: "ISO 8601 with offset.", example: "2026-11-22T10:15:00+00:00" }),
    max_bytes: z
      .number()
      .int()
      .openapi({ description: "Largest accepted file (UPLOAD_MAX_BYTES).", example: 52428800 }),
    field_name: z.literal("media").openapi({ description: "Multipart field name of the file." }),
  })
  .openapi("IssuedUpload");

const route = authedRoute({
  method: "post",
  scope: "publish",
  path: "/api/uploads",
  operationId: "issueUpload",
  tags: ["Uploads"],
  summary: "Issue a one-shot signed upload URL",
  description:
    "Same payload as the MCP tool `request-media-upload-tool`. The URL expires after UPLOAD_URL_TTL_SECONDS.",
  request: {
    body: {
      required: false,
      description: "No fields; send no body or `{}`.",
      content: { "application/json": { schema: z.object({}).openapi("IssueUploadRequest") } },
    },
  },
  responses: { 201: ok(IssuedUploadSchema, "The signed URL and its limits.") },
});

export function registerIssueUpload(app: App) {
  app.openapi(route, async (c) => c.json(await issueUpload(c.get("workspace")), 201));
}
