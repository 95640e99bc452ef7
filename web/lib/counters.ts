/**
 * The composer's live length counters and problems, counted by the server's own rules: the same modules of
 * src/catalog that schedule validation (PUT status=scheduled) and the preview endpoint run — bundled into the
 * composer's chunk by esbuild, not copied. A row's texts are its override (or the post's text), each thread item and
 * the first comment.
 */
import { checkRowTexts, FIRST_COMMENT_MAX, supportsFirstComment, supportsThread } from "../../src/catalog/follow-ups";
import type { RuleMedia } from "../../src/catalog/media-rules";
import { platformSpec } from "../../src/catalog/platforms";
import { measurePlatform } from "../../src/catalog/rules";
import { contentLength } from "../../src/catalog/text-length";

export { supportsFirstComment, supportsThread };

export interface RowDraft {
  platform: string;
  contentType: string;
  /** The post's shared text. */
  postContent: string;
  postMedia: readonly RuleMedia[];
  /** The row's own text; null: the post's. */
  content: string | null;
  thread: readonly { content: string; media?: readonly RuleMedia[] }[];
  /** null or blank: none. */
  firstComment: string | null;
}

export interface Counter {
  /** Relative to the row: `content`, `thread.0.content`, `first_comment`. */
  field: string;
  length: number;
  max: number;
  over: boolean;
}

/** Length against the cap of each text of a row, as its network counts. */
export function rowCounters(row: RowDraft): Counter[] {
  const counters: Counter[] = [];
  const main = measurePlatform({
    platform: row.platform,
    contentType: row.contentType,
    content: row.content ?? row.postContent,
    media: row.postMedia,
  });
  counters.push(counter("content", main.content_length, main.max_content_length));
  if (supportsThread(row.platform)) {
    row.thread.forEach((item, i) => {
      const m = measurePlatform({
        platform: row.platform,
        contentType: row.contentType,
        content: item.content,
        media: item.media ?? [],
      });
      counters.push(counter(`thread.${i}.content`, m.content_length, m.max_content_length));
    });
  }
  if (row.firstComment && supportsFirstComment(row.platform)) {
    const max = FIRST_COMMENT_MAX[row.platform] ?? platformSpec(row.platform).max_content_length;
    counters.push(counter("first_comment", contentLength(row.platform, row.firstComment), max));
  }
  return counters;
}

const counter = (field: string, length: number, max: number): Counter => ({ field, length, max, over: length > max });

export interface DraftProblem {
  /** `content` / `media` (the post's, when the row has no text of its own) or the row's own field. */
  field: string;
  message: string;
  shared: boolean;
}

/** What scheduling would refuse for this row, worded as the server's 422 words it. */
export function rowProblems(row: RowDraft): DraftProblem[] {
  return checkRowTexts({
    platform: row.platform,
    contentType: row.contentType,
    postContent: row.postContent,
    postMedia: row.postMedia,
    content: row.content,
    thread: row.thread.map((t) => ({ content: t.content, media: t.media ?? [] })),
    firstComment: row.firstComment && row.firstComment.trim() !== "" ? row.firstComment : null,
  });
}
