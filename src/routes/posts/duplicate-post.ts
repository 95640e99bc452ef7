import { duplicatePost } from "../../services/posts/duplicate-post";
import type { App } from "../../types";
import { authedRoute, ok } from "../openapi";
import { PostParam } from "./get-post";
import { PostSchema } from "./schemas";

const route = authedRoute({
  method: "post",
  scope: "publish",
  path: "/api/posts/{post}/duplicate",
  operationId: "duplicatePost",
  tags: ["Posts"],
  summary: "Duplicate a post as a new draft",
  description:
    "Issue 40: a new draft with the same content, targets (each row's content type, meta, own text, thread and first comment), media and labels; no time, no queue and no repeat rule. Any post of the workspace, a published one included.",
  request: { params: PostParam },
  responses: { 201: ok(PostSchema, "The new draft.") },
});

export function registerDuplicatePost(app: App) {
  app.openapi(route, async (c) => c.json(await duplicatePost(c.get("workspace"), c.req.valid("param").post), 201));
}
