import { z } from "@hono/zod-openapi";
import {
  type CreatePostDraft,
  createPost,
  createPostOnce,
  createPostReferenceErrors,
} from "../../services/posts/create-post";
import { IDEMPOTENCY_HEADER, idempotencyClaim } from "../../services/posts/idempotency";
import type { App } from "../../types";
import { authedRoute, ErrorSchema, jsonBody, ok } from "../openapi";
import { oneRoundValidation } from "./one-round";
import { CreatePostRequest, PostSchema } from "./schemas";

const route = authedRoute({
  method: "post",
  scope: "publish",
  path: "/api/posts",
  operationId: "createPost",
  tags: ["Posts"],
  summary: "Create a draft post (optionally idempotent with Idempotency-Key)",
  request: {
    headers: z.object({
      "idempotency-key": z.string().optional().openapi({
        description:
          "Up to 255 visible ASCII characters. The same key with the same body within 24 h returns the first response (with `Idempotent-Replayed: true`); with another body, 422; while the first is still running, 409.",
      }),
    }),
    ...jsonBody(CreatePostRequest),
  },
  responses: {
    201: ok(PostSchema, "The created post, with platforms, labels and media."),
    409: ok(ErrorSchema, "A request with the same Idempotency-Key is still in flight."),
  },
});

export function registerCreatePost(app: App) {
  app.openapi(
    route,
    async (c) => {
      const ctx = c.get("workspace");
      const input = c.req.valid("json");
      const key = c.req.header(IDEMPOTENCY_HEADER);
      if (key === undefined) return c.json(await createPost(ctx, input), 201);
      // The validated input, not the raw body: fields the API ignores do not count, and nothing unbounded is walked.
      const result = await createPostOnce(ctx, input, await idempotencyClaim(key, input));
      if (result.replayed) c.header("Idempotent-Replayed", "true");
      return c.json(result.body as z.infer<typeof PostSchema>, result.status as 201);
    },
    oneRoundValidation(CreatePostRequest, (ctx, _c, parts) =>
      createPostReferenceErrors(ctx, parts as CreatePostDraft),
    ) as never,
  );
}
