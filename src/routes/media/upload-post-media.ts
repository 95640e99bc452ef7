import { notFound } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { declaredLength, drainedUploadBody } from "../../media/upload-body";
import { uploadPostMedia } from "../../services/media/upload-post-media";
import type { App } from "../../types";
import { authedRoute, idParam, memoryBusyResponse, ok } from "../openapi";
import { PostSchema } from "../posts/schemas";
import { multipartBody } from "./schemas";

// Documented through the registry, served by a plain handler: an OpenAPI body validator would buffer the whole
// multipart body, and a video must stream.
const route = authedRoute({
  method: "post",
  scope: "publish",
  path: "/api/posts/{post}/media",
  operationId: "uploadPostMedia",
  tags: ["Media"],
  summary: "Upload a file to a post (multipart, streamed)",
  description:
    "Appends the file to the post's `media[]`. 422 `errors.media` for an unsupported type, a file over its cap, an undecodable or too large image, or a type no enabled platform of the post accepts.",
  request: { params: idParam("post", "Post id (UUID)."), ...multipartBody("One file field `media`.") },
  responses: {
    ...memoryBusyResponse,
    200: ok(PostSchema, "The updated post with the new item last in `media[]`."),
  },
});

export function registerUploadPostMedia(app: App) {
  const { middleware, ...doc } = route;
  app.openAPIRegistry.registerPath(doc);
  // The route's own middleware (key or session, throttle, scope), so the plain handler cannot drift from the documented route.
  const [authorize] = middleware;
  // The body is read to its end (bounded by the largest file the route accepts) before any answer, so a client
  // still sending a refused file gets its 4xx, not a reset (src/media/upload-body.ts).
  const drainBody = drainedUploadBody((config) => Math.max(config.MEDIA_IMAGE_MAX_BYTES, config.MEDIA_VIDEO_MAX_BYTES));
  app.post("/api/posts/:post/media", authorize, drainBody, async (c) => {
    const postId = c.req.param("post");
    if (!isUuid(postId)) throw notFound();
    const declared = declaredLength(c.req.header("Content-Length"));
    return c.json(await uploadPostMedia(c.get("workspace"), postId, c.get("uploadForm"), declared), 200);
  });
}
