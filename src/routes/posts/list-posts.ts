import { listPosts } from "../../services/posts/list-posts";
import type { App } from "../../types";
import { authedRoute, ok } from "../openapi";
import { ListPostsQuery, PostPageSchema } from "./schemas";

const route = authedRoute({
  method: "get",
  path: "/api/posts",
  operationId: "listPosts",
  tags: ["Posts"],
  summary: "List posts, 15 per page, latest scheduled first (Laravel paginator)",
  request: { query: ListPostsQuery },
  responses: { 200: ok(PostPageSchema, "One page of posts.") },
});

/** `page` that is not a positive integer reads as 1 (decisions §6). */
export const parsePage = (raw: string | undefined): number => {
  if (!raw || !/^\d+$/.test(raw)) return 1;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= 1 ? n : 1;
};

export function registerListPosts(app: App) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    return c.json(
      await listPosts(c.get("workspace"), {
        page: parsePage(q.page),
        status: q.status,
        label_id: q.label_id,
        social_account_id: q.social_account_id,
        scheduled_from: q.scheduled_from,
        scheduled_to: q.scheduled_to,
      }),
      200,
    );
  });
}
