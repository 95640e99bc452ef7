import { notFound } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { MultipartReader } from "../../media/multipart";
import { requireApiKey } from "../../middleware/auth";
import { uploadPostMedia } from "../../services/media/upload-post-media";
import type { App } from "../../types";
import { authedRoute, idParam, ok } from "../openapi";
import { PostSchema } from "../posts/schemas";
import { multipartBody } from "./schemas";

// Documented through the registry, served by a plain handler: an OpenAPI body validator would buffer the whole
// multipart body, and a video must stream.
const route = authedRoute({
  method: "post",
  path: "/api/posts/{post}/media",
  operationId: "uploadPostMedia",
  tags: ["Media"],
  summary: "Upload a file to a post (multipart, streamed)",
  description:
    "Appends the file to the post's `media[]`. 422 `errors.media` for an unsupported type, a file over its cap, an undecodable or too large image, or a type no enabled platform of the post accepts.",
  request: { params: idParam("post", "Post id (UUID)."), ...multipartBody("One file field `media`.") },
  responses: { 200: ok(PostSchema, "The updated post with the new item last in `media[]`.") },
});

export function registerUploadPostMedia(app: App) {
  const { middleware: _middleware, ...doc } = route;
  app.openAPIRegistry.registerPath(doc);
  app.post("/api/posts/:post/media", requireApiKey, async (c) => {
    const postId = c.req.param("post");
    if (!isUuid(postId)) throw notFound();
    return c.json(await uploadPostMedia(c.get("workspace"), postId, MultipartReader.fromRequest(c.req.raw)), 200);
  });
}
