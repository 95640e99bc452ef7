import { getPost } from "../../services/posts/get-post";
import type { App } from "../../types";
import { authedRoute, idParam, ok } from "../openapi";
import { PostSchema } from "./schemas";

export const PostParam = idParam("post", "Post id (UUID).");

const route = authedRoute({
  method: "get",
  path: "/api/posts/{post}",
  operationId: "getPost",
  tags: ["Posts"],
  summary: "Get one post",
  request: { params: PostParam },
  responses: { 200: ok(PostSchema, "The post.") },
});

export function registerGetPost(app: App) {
  app.openapi(route, async (c) => c.json(await getPost(c.get("workspace"), c.req.valid("param").post), 200));
}
