import { errorMessage, type paths, type Schema } from "../../sdk/index";
import { api } from "../api";

export type Post = Schema<"Post">;
export type PostFilters = NonNullable<paths["/api/posts"]["get"]["parameters"]["query"]>;

/** How many pages (15 posts each) a view reads at most; past that it says the view is not complete. */
export const MAX_PAGES = 20;

/**
 * Every post matching the filters (a calendar's month or week: `scheduled_from` / `scheduled_to`), read page by page
 * as the API pages, at most MAX_PAGES pages.
 */
export async function fetchAllPosts(
  filters: PostFilters,
): Promise<{ ok: true; posts: Post[]; complete: boolean } | { ok: false; message: string }> {
  const posts: Post[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const { data, error } = await api.GET("/api/posts", { params: { query: { ...filters, page: String(page) } } });
    if (!data) return { ok: false, message: errorMessage(error, "The posts could not be loaded.") };
    posts.push(...data.data);
    if (page >= data.meta.last_page) return { ok: true, posts, complete: true };
  }
  return { ok: true, posts, complete: false };
}
