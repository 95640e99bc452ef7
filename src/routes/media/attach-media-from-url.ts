import { z } from "@hono/zod-openapi";
import { MEDIA_ALT_MAX } from "../../catalog/alt-text";
import { MEDIA_URLS_MAX } from "../../lib/bounds";
import { attachMediaFromUrls } from "../../services/media/attach-media-from-urls";
import type { App } from "../../types";
import { authedRoute, idParam, jsonBody, memoryBusyResponse, ok } from "../openapi";
import { PostSchema } from "../posts/schemas";

const httpUrl = z
  .url({ protocol: /^https?$/ })
  .openapi({ description: "Public http(s) URL of an image or video.", example: "https://example.com/photo.png" });

export const AttachMediaFromUrlRequest = z
  .object({
    urls: z
      .array(httpUrl)
      .min(1)
      .max(MEDIA_URLS_MAX)
      .openapi({
        description: `1–${MEDIA_URLS_MAX} URLs, downloaded concurrently (20 s each, at most 3 redirects).`,
      }),
    alts: z
      .array(z.string().max(MEDIA_ALT_MAX).nullable())
      .max(MEDIA_URLS_MAX)
      .optional()
      .openapi({
        description: `Optional alt text of each URL's file, in the order of \`urls\` (at most ${MEDIA_ALT_MAX} characters each; null or blank: none). Extra entries are refused.`,
      }),
  })
  .refine((b) => (b.alts?.length ?? 0) <= b.urls.length, {
    path: ["alts"],
    message: "The alts field must not have more items than urls.",
  })
  .openapi("AttachMediaFromUrlRequest");

export const AttachMediaFromUrlResponse = z
  .object({
    post: PostSchema,
    attached_count: z.number().int().openapi({ description: "URLs downloaded and attached." }),
    failed_urls: z.array(z.string()).openapi({
      description:
        "The URLs (as sent) that were unreachable, refused (private address), of an unsupported type, too large, or not accepted by any enabled platform.",
    }),
  })
  .openapi("AttachMediaFromUrlResponse");

const route = authedRoute({
  method: "post",
  scope: "publish",
  path: "/api/posts/{post}/media/from-url",
  operationId: "attachMediaFromUrl",
  tags: ["Media"],
  summary: "Download files from URLs and attach them to a post",
  request: { params: idParam("post", "Post id (UUID)."), ...jsonBody(AttachMediaFromUrlRequest) },
  responses: {
    ...memoryBusyResponse,
    200: ok(AttachMediaFromUrlResponse, "The updated post and what was attached or failed."),
  },
});

export function registerAttachMediaFromUrl(app: App) {
  app.openapi(route, async (c) =>
    c.json(
      await attachMediaFromUrls(
        c.get("workspace"),
        c.req.valid("param").post,
        c.req.valid("json").urls,
        c.req.valid("json").alts,
      ),
      200,
    ),
  );
}
