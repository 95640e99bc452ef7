import { deletePost } from "../../services/posts/delete-post";
import type { App } from "../../types";
import { authedRoute, ErrorSchema, noContent, ok } from "../openapi";
import { PostParam } from "./get-post";

const route = authedRoute({
  method: "delete",
  scope: "publish",
  path: "/api/posts/{post}",
  operationId: "deletePost",
  tags: ["Posts"],
  summary: "Delete a post (nothing is deleted on the networks)",
  request: { params: PostParam },
  responses: { 204: noContent, 409: ok(ErrorSchema, "The post is being published.") },
});

export function registerDeletePost(app: App) {
  app.openapi(route, async (c) => {
    await deletePost(c.get("workspace"), c.req.valid("param").post);
    return c.body(null, 204);
  });
}
