import { z } from "@hono/zod-openapi";
import { previewPost } from "../../services/posts/preview-post";
import type { App } from "../../types";
import { authedRoute, ok } from "../openapi";
import { PostParam } from "./get-post";
import { PreviewItemSchema } from "./schemas";

const route = authedRoute({
  method: "get",
  path: "/api/posts/{post}/preview",
  operationId: "previewPost",
  tags: ["Posts"],
  summary: "Per enabled platform: length as the platform counts it, caps, and what would fail at publish time",
  request: { params: PostParam },
  responses: { 200: ok(z.array(PreviewItemSchema), "Plain array, one item per enabled platform row.") },
});

export function registerPreviewPost(app: App) {
  app.openapi(route, async (c) => c.json(await previewPost(c.get("workspace"), c.req.valid("param").post), 200));
}
