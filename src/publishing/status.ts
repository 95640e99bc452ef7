import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { eqFilterOnly, inJsonArray } from "../db/json-params";
import { posts } from "../db/schema";

/**
 * Post status over its enabled rows, once none is pending or publishing (decisions §7): all published →
 * `published` (sets published_at); at least one published → `partially_published`; none → `failed`.
 * One conditional UPDATE (a batchable query builder), so two rows finishing at the same moment cannot both miss
 * the final state: whichever statement runs last sees every row finished.
 */
export function recomputePostStatus(db: Db, postId: string, now: number) {
  return recomputePostStatuses(db, [postId], now);
}

/** `recomputePostStatus` for any number of posts in one statement (the ids are one bound JSON array). */
export function recomputePostStatuses(db: Db, postIds: readonly string[], now: number) {
  // The post's rows by post_id; their status a filter (`+`), or SQLite walks every published row there is.
  const enabled = sql`SELECT 1 FROM post_platforms pp WHERE pp.post_id = posts.id AND pp.enabled = 1`;
  const anyPublished = sql`EXISTS (${enabled} AND +pp.status = 'published')`;
  const allPublished = sql`(${anyPublished} AND NOT EXISTS (${enabled} AND +pp.status <> 'published'))`;
  return db
    .update(posts)
    .set({
      status: sql`CASE WHEN ${allPublished} THEN 'published' WHEN ${anyPublished} THEN 'partially_published' ELSE 'failed' END`,
      publishedAt: sql`CASE WHEN ${allPublished} THEN ${now} ELSE NULL END`,
      updatedAt: now,
    })
    .where(
      and(
        postIds.length === 1 ? eq(posts.id, postIds[0] as string) : inJsonArray(posts.id, postIds),
        eqFilterOnly(posts.status, "publishing"),
        sql`NOT EXISTS (${enabled} AND +pp.status IN ('pending', 'publishing'))`,
      ),
    );
}
