import { asc, eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { insertJsonRows } from "../../db/json-params";
import { postLabels, postMedia, postPlatforms, posts } from "../../db/schema";
import { newId } from "../../lib/ids";
import type { StoredRepeat } from "./repeat-rule";

/**
 * Issue 37: a post copied as a new one — a repeat's next occurrence, an evergreen refill, a duplicate (issue 40). The copy has the same
 * targets (each row's network, content type, meta, own text, thread and first comment), media and labels, and rows
 * of its own that start over: pending, no id or link on the network, no results, no attempts.
 */

type PostRow = typeof posts.$inferSelect;
type RowRow = typeof postPlatforms.$inferSelect;

export interface CopySource {
  post: PostRow;
  rows: RowRow[];
  mediaIds: string[];
  labelIds: string[];
}

/** The post and its parts, read in one round trip; null when the post is gone. */
export async function readCopySource(db: Db, postId: string): Promise<CopySource | null> {
  const [found, rows, mediaRows, labelRows] = await db.batch([
    db.select().from(posts).where(eq(posts.id, postId)),
    db
      .select()
      .from(postPlatforms)
      .where(eq(postPlatforms.postId, postId))
      .orderBy(asc(postPlatforms.position), asc(postPlatforms.createdAt)),
    db
      .select({ id: postMedia.mediaId })
      .from(postMedia)
      .where(eq(postMedia.postId, postId))
      .orderBy(asc(postMedia.position)),
    db.select({ id: postLabels.labelId }).from(postLabels).where(eq(postLabels.postId, postId)),
  ]);
  const post = found[0];
  if (!post) return null;
  return { post, rows, mediaIds: mediaRows.map((m) => m.id), labelIds: labelRows.map((l) => l.id) };
}

export interface CopyOptions {
  /** `scheduled` for a repeat's occurrence or an evergreen copy; `draft` for a duplicate (issue 40). */
  status: "draft" | "scheduled";
  content: string | null;
  scheduledAt: number | null;
  queueId: string | null;
  repeat: StoredRepeat | null;
  /** The series' first post or the evergreen original; null for a duplicate, which is a post of its own. */
  repeatOf: string | null;
  repeatIndex: number;
  now: number;
}

/**
 * The statements that write the copy (its id first), for one batch. The post's INSERT comes first and is what a
 * second copy of the same occurrence fails on (UNIQUE (repeat_of, repeat_index)), taking the whole batch with it.
 */
export function copyPostStatements(
  db: Db,
  source: CopySource,
  o: CopyOptions,
): { id: string; statements: BatchItem<"sqlite">[] } {
  const id = newId();
  const statements: BatchItem<"sqlite">[] = [
    db.insert(posts).values({
      id,
      workspaceId: source.post.workspaceId,
      content: o.content,
      status: o.status,
      scheduledAt: o.scheduledAt,
      publishedAt: null,
      queueId: o.queueId,
      repeat: o.repeat,
      repeatOf: o.repeatOf,
      repeatIndex: o.repeatIndex,
      createdAt: o.now,
      updatedAt: o.now,
    }),
  ];
  if (source.rows.length > 0) {
    statements.push(
      insertJsonRows(
        db,
        postPlatforms,
        source.rows.map((r) => ({
          id: newId(),
          postId: id,
          socialAccountId: r.socialAccountId,
          platform: r.platform,
          contentType: r.contentType,
          status: "pending" as const,
          enabled: r.enabled,
          meta: r.meta,
          displayName: r.displayName,
          displayUsername: r.displayUsername,
          displayAvatar: r.displayAvatar,
          position: r.position,
          content: r.content,
          thread: r.thread,
          firstComment: r.firstComment,
          createdAt: o.now,
          updatedAt: o.now,
        })),
      ),
    );
  }
  if (source.mediaIds.length > 0) {
    statements.push(
      insertJsonRows(
        db,
        postMedia,
        source.mediaIds.map((mediaId, position) => ({ postId: id, mediaId, position })),
      ),
    );
  }
  if (source.labelIds.length > 0) {
    statements.push(
      insertJsonRows(
        db,
        postLabels,
        source.labelIds.map((labelId) => ({ postId: id, labelId })),
      ),
    );
  }
  return { id, statements };
}
