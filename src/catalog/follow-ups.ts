import type { RuleMedia } from "./media-rules";
import { platformSpec } from "./platforms";
import { type AccountTextLimits, checkPlatformRules, contentTooLongMessage, type RulePhase } from "./rules";
import { contentLength } from "./text-length";

/**
 * Issue 20 (docs/threads.md): which networks take a thread and a first comment, and the rules of a row's own texts —
 * its content override, each thread item and the first comment — checked like the post's content is.
 */

/** Networks whose posts can be answered by the account's own posts, published as replies in order. */
export const THREAD_PLATFORMS = ["x", "bluesky", "threads", "mastodon"] as const;

/**
 * Networks with a first comment, and its length cap. Where a comment is a reply (X, Bluesky, Threads, Mastodon)
 * the cap is the post's own (null here: the platform's, or the Mastodon instance's). Elsewhere it is the network's
 * comment limit: Facebook 8000 characters, Instagram 2200 (the caption limit; the Graph API states none of its
 * own), LinkedIn 1250 (comments UI and API), YouTube 10000 (commentThreads `textOriginal`).
 */
export const FIRST_COMMENT_MAX: Readonly<Record<string, number | null>> = {
  x: null,
  bluesky: null,
  threads: null,
  mastodon: null,
  facebook: 8000,
  instagram: 2200,
  "instagram-facebook": 2200,
  linkedin: 1250,
  "linkedin-page": 1250,
  youtube: 10000,
};

/** Formats that take no comment: a story has no comment section. */
const NO_COMMENT_CONTENT_TYPES = new Set(["facebook_story", "instagram_story"]);

export const supportsThread = (platform: string) => (THREAD_PLATFORMS as readonly string[]).includes(platform);
export const supportsFirstComment = (platform: string) => platform in FIRST_COMMENT_MAX;

export const THREAD_UNSUPPORTED = "Threads are published only on X, Bluesky, Threads and Mastodon.";
export const FIRST_COMMENT_UNSUPPORTED =
  "A first comment is posted only on Facebook, Instagram, LinkedIn, YouTube, X, Bluesky, Threads and Mastodon.";

/** A row's own texts, as the rules read them. */
export interface RowTexts {
  platform: string;
  contentType: string;
  /** The post's content (used where the row has no override). */
  postContent: string | null;
  /** The post's media (the main post's). */
  postMedia: readonly RuleMedia[];
  /** The row's override; null/undefined: the post's content. */
  content?: string | null;
  thread?: readonly { content: string; media: readonly RuleMedia[] }[] | null;
  firstComment?: string | null;
  limits?: AccountTextLimits;
}

/** A problem of one row, `field` relative to the row: `content`, `media`, `thread.M.content`, `first_comment` … */
export interface RowProblem {
  field: string;
  message: string;
  /** True for the main post's problems when the row has no override (they belong to the post's `content`). */
  shared: boolean;
}

/** The text a row publishes as its main post. */
export const rowText = (content: string | null | undefined, postContent: string | null) => content ?? postContent;

/**
 * Every rule of one row: the main post (its own text when it has one), each thread item (length, links, media
 * count and kinds of the row's content type; an item needs no media), and the first comment (length). Item and
 * comment messages name the item, 1-based: `Thread item 2: X: too long by 15 characters (max 280).`
 */
export function checkRowTexts(row: RowTexts, phase: RulePhase = "schedule"): RowProblem[] {
  const problems: RowProblem[] = [];
  const own = row.content !== null && row.content !== undefined;
  for (const p of checkPlatformRules(
    {
      platform: row.platform,
      contentType: row.contentType,
      content: rowText(row.content, row.postContent),
      media: row.postMedia,
      limits: row.limits,
    },
    phase,
  )) {
    problems.push({ field: p.field, message: p.message, shared: !own || p.field === "media" });
  }
  (row.thread ?? []).forEach((item, i) => {
    if (!supportsThread(row.platform)) return;
    for (const p of checkPlatformRules(
      {
        platform: row.platform,
        contentType: row.contentType,
        content: item.content,
        media: item.media,
        limits: row.limits,
      },
      phase,
    )) {
      problems.push({ field: `thread.${i}.${p.field}`, message: `Thread item ${i + 1}: ${p.message}`, shared: false });
    }
  });
  if (row.firstComment !== null && row.firstComment !== undefined && supportsFirstComment(row.platform)) {
    problems.push(...checkFirstComment(row, row.firstComment, phase));
  }
  return problems;
}

function checkFirstComment(row: RowTexts, text: string, phase: RulePhase): RowProblem[] {
  const label = platformSpec(row.platform).label;
  if (NO_COMMENT_CONTENT_TYPES.has(row.contentType)) {
    return [{ field: "first_comment", message: `First comment: ${label} stories take no comments.`, shared: false }];
  }
  const cap = FIRST_COMMENT_MAX[row.platform];
  if (cap === null || cap === undefined) {
    // A reply: the same rules as a post's text.
    return checkPlatformRules(
      { platform: row.platform, contentType: row.contentType, content: text, media: [], limits: row.limits },
      phase,
    )
      .filter((p) => p.field === "content")
      .map((p) => ({ field: "first_comment", message: `First comment: ${p.message}`, shared: false }));
  }
  const length = contentLength(row.platform, text);
  if (length <= cap) return [];
  return [
    {
      field: "first_comment",
      message: `First comment: ${contentTooLongMessage(phase, label, cap, length)}`,
      shared: false,
    },
  ];
}
