/**
 * Where a post sits in time on the calendar and the posts list (issue 35, item 3). Pure: tested in
 * test/web/post-time.test.ts.
 * - A post that went out sits at the time it went out: `published_at` of a published post; for a partially published
 *   one (whose own `published_at` stays null, decisions §7) the latest time one of its networks published it.
 * - A draft with no chosen time (`scheduled_at` null, what the composer sends when no time is picked) has no place on
 *   the grid: the calendar lists it in its "No date" tray, the posts list says "No date".
 * - Everything else sits at `scheduled_at`.
 */
import { parseApiTime } from "./time";

export interface TimedPost {
  status: string;
  scheduled_at: string | null;
  published_at: string | null;
  platforms: readonly { enabled: boolean; published_at: string | null }[];
}

export type ShownKind = "published" | "scheduled" | "undated";

/** The instant a post is shown at (epoch ms), and why; `at` is null for an undated post. */
export function shownAt(post: TimedPost): { at: number | null; kind: ShownKind } {
  if (post.status === "published" || post.status === "partially_published") {
    const rows = post.platforms
      .filter((r) => r.enabled)
      .map((r) => parseApiTime(r.published_at))
      .filter((ms): ms is number => ms !== null);
    const at = parseApiTime(post.published_at) ?? (rows.length > 0 ? Math.max(...rows) : null);
    if (at !== null) return { at, kind: "published" };
  }
  const scheduled = parseApiTime(post.scheduled_at);
  return scheduled === null ? { at: null, kind: "undated" } : { at: scheduled, kind: "scheduled" };
}

/** The instant only (null: undated). */
export const shownInstant = (post: TimedPost) => shownAt(post).at;
