import { sql } from "drizzle-orm";
import type { Db } from "../db/client";

/**
 * Post status over its enabled rows, once none is pending or publishing (decisions §7): all published →
 * `published` (sets published_at); at least one published → `partially_published`; none → `failed`.
 * One conditional UPDATE, so two rows finishing at the same moment cannot both miss the final state: whichever
 * statement runs last sees every row finished.
 */
export function recomputePostStatus(db: Db, postId: string, now: number) {
  const enabled = sql`SELECT 1 FROM post_platforms pp WHERE pp.post_id = posts.id AND pp.enabled = 1`;
  const anyPublished = sql`EXISTS (${enabled} AND pp.status = 'published')`;
  const allPublished = sql`(${anyPublished} AND NOT EXISTS (${enabled} AND pp.status <> 'published'))`;
  return db.run(sql`
    UPDATE posts SET
      status = CASE WHEN ${allPublished} THEN 'published'
                    WHEN ${anyPublished} THEN 'partially_published'
                    ELSE 'failed' END,
      published_at = CASE WHEN ${allPublished} THEN ${now} ELSE NULL END,
      updated_at = ${now}
    WHERE id = ${postId}
      AND status = 'publishing'
      AND NOT EXISTS (${enabled} AND pp.status IN ('pending', 'publishing'))`);
}
