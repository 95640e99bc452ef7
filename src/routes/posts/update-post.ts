import { type UpdatePostDraft, updatePost, updatePostReferenceErrors } from "../../services/posts/update-post";
import type { App } from "../../types";
import { authedRoute, ErrorSchema, jsonBody, ok } from "../openapi";
import { PostParam } from "./get-post";
import { oneRoundValidation } from "./one-round";
import { PostSchema, UpdatePostRequest } from "./schemas";

const route = authedRoute({
  method: "put",
  scope: "publish",
  path: "/api/posts/{post}",
  operationId: "updatePost",
  tags: ["Posts"],
  summary: "Edit a post, enable/disable/add platforms, schedule, unschedule or publish",
  request: { params: PostParam, ...jsonBody(UpdatePostRequest) },
  responses: {
    200: ok(PostSchema, "The updated post."),
    409: ok(ErrorSchema, "The post is being published, or another request changed it meanwhile."),
  },
});

export function registerUpdatePost(app: App) {
  app.openapi(
    route,
    async (c) => c.json(await updatePost(c.get("workspace"), c.req.valid("param").post, c.req.valid("json")), 200),
    oneRoundValidation(UpdatePostRequest, (ctx, c, parts, malformed) =>
      updatePostReferenceErrors(ctx, c.req.param("post") ?? "", parts as UpdatePostDraft, malformed),
    ) as never,
  );
}
