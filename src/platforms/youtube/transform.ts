import { retryAfterSeconds } from "../http";
import { type Metric, PlatformError, type PlatformErrorKind, type PublishRequest } from "../types";
import type { GoogleErrorBody, YouTubeInsertMetadata, YouTubePrivacyStatus, YouTubeVideo } from "./types";

/** Pure request/response mapping for YouTube (platforms.md §9). */

const KIB = 1024;
/** Resumable-upload chunk: a multiple of 256 KiB (Google's rule for every chunk but the last). */
export const YOUTUBE_CHUNK_BYTES = 8 * 1024 * KIB;
export const YOUTUBE_CHUNK_ALIGN = 256 * KIB;
const PRIVACY: YouTubePrivacyStatus[] = ["public", "unlisted", "private"];
/** People & Blogs, what YouTube Studio uses by default. */
const DEFAULT_CATEGORY_ID = "22";

/**
 * The `videos.insert` metadata. Title = the post content (≤ 100, the catalog limit), falling back to
 * `meta.title` and then the file name when the content is empty (YouTube requires a title); description =
 * `meta.description`; privacy = `meta.privacy_status` (public | unlisted | private, default public).
 */
export function insertMetadata(req: Pick<PublishRequest, "content" | "meta" | "media">): YouTubeInsertMetadata {
  const meta = req.meta;
  const privacy = meta.privacy_status ?? "public";
  if (typeof privacy !== "string" || !PRIVACY.includes(privacy as YouTubePrivacyStatus)) {
    throw new PlatformError("permanent", "YouTube privacy_status must be public, unlisted or private.");
  }
  const fileTitle = (req.media[0]?.originalFilename ?? "").replace(/\.[^.]*$/, "");
  const title =
    req.content.trim() !== ""
      ? req.content.trim()
      : typeof meta.title === "string" && meta.title.trim() !== ""
        ? meta.title.trim()
        : fileTitle || "Short";
  const out: YouTubeInsertMetadata = {
    snippet: {
      title: withoutAngleBrackets(title),
      description: withoutAngleBrackets(typeof meta.description === "string" ? meta.description : ""),
      categoryId:
        typeof meta.category_id === "string" && meta.category_id !== "" ? meta.category_id : DEFAULT_CATEGORY_ID,
    },
    status: {
      privacyStatus: privacy as YouTubePrivacyStatus,
      selfDeclaredMadeForKids: meta.made_for_kids === true,
    },
  };
  if (Array.isArray(meta.tags)) {
    const tags = meta.tags.filter((t): t is string => typeof t === "string" && t !== "");
    if (tags.length > 0) out.snippet.tags = tags;
  }
  return out;
}

/**
 * YouTube refuses titles and descriptions containing `<` or `>` (invalidTitle / invalidDescription): they become
 * the look-alike single angle quotation marks ‹ › instead of failing the row.
 */
export function withoutAngleBrackets(text: string): string {
  return text.replace(/</g, "\u2039").replace(/>/g, "\u203a");
}

/** Inclusive byte ranges of the resumable upload, in order. */
export function planChunks(total: number, chunkBytes = YOUTUBE_CHUNK_BYTES): { first: number; last: number }[] {
  if (chunkBytes % YOUTUBE_CHUNK_ALIGN !== 0) throw new Error("YouTube chunks must be multiples of 256 KiB.");
  const ranges: { first: number; last: number }[] = [];
  for (let first = 0; first < total; first += chunkBytes)
    ranges.push({ first, last: Math.min(first + chunkBytes, total) - 1 });
  return ranges;
}

/** The next byte to send after a 308 Resume Incomplete: `Range: bytes=0-N` → N+1; no header → 0. */
export function nextOffsetFromRange(range: string | null): number {
  const m = /^bytes=0-(\d+)$/.exec(range?.trim() ?? "");
  return m ? Number(m[1]) + 1 : 0;
}

/** Seconds until midnight Pacific time, when YouTube's daily quota resets. */
export function secondsUntilQuotaReset(nowMs: number): number {
  let elapsed: number;
  try {
    const parts = new Intl.DateTimeFormat("en-US", {
      timeZone: "America/Los_Angeles",
      hourCycle: "h23",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    }).formatToParts(new Date(nowMs));
    const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
    elapsed = (get("hour") % 24) * 3600 + get("minute") * 60 + get("second");
  } catch {
    // No time-zone data: assume PST (UTC−8).
    elapsed = Math.floor(((nowMs / 1000 - 8 * 3600) % 86_400) + 86_400) % 86_400;
  }
  return Math.max(1, 86_400 - elapsed);
}

const PLAIN: Record<string, string> = {
  quotaExceeded: "The YouTube API daily quota is used up.",
  rateLimitExceeded: "YouTube rate limit reached.",
  userRateLimitExceeded: "YouTube rate limit reached.",
  uploadLimitExceeded: "The YouTube channel has reached its daily upload limit.",
  youtubeSignupRequired: "This Google account has no YouTube channel: create one, then reconnect the account.",
  authError: "The YouTube access token is invalid or expired.",
  commentInsufficientPermissions:
    "YouTube did not let this app comment: the channel was connected without the permission to manage comments (youtube.force-ssl). Reconnect the YouTube account and allow it to post comments.",
  commentsDisabled: "Comments are turned off on this YouTube video.",
  videoNotFound: "The YouTube video to comment on was not found.",
  invalid_credentials: "The YouTube access token is invalid or expired.",
};

/**
 * Refusals a reconnect heals (docs/account-health.md), per developers.google.com/youtube/v3/docs/errors: a token
 * without the scope the call needs (403 `insufficientPermissions`, "Request had insufficient authentication
 * scopes."), a Google account without a channel (401 `youtubeSignupRequired`), the channel's YouTube account closed
 * or suspended (403 `authenticatedUserAccountClosed` / `authenticatedUserAccountSuspended`). For a first comment the
 * flag is harmless: comment errors never mark the account (the missing `youtube.force-ssl` keeps its own message).
 */
const NEEDS_RECONNECT = new Set([
  "insufficientPermissions",
  "youtubeSignupRequired",
  "authenticatedUserAccountClosed",
  "authenticatedUserAccountSuspended",
]);

/** Turns a Google JSON error (HTTP status + body) into a PlatformError. */
export function youtubeError(
  status: number,
  body: GoogleErrorBody | null,
  headers: Headers,
  nowMs: number,
  call: "upload" | "comment" = "upload",
): PlatformError {
  const reasons = (body?.error?.errors ?? []).map((e) => e.reason ?? "");
  const needsReconnect = reasons.some((r) => NEEDS_RECONNECT.has(r));
  // Google sometimes puts HTML links in messages: keep the words only.
  const googleMessage = (body?.error?.errors?.[0]?.message || body?.error?.message || "")
    .replace(/<[^>]*>/g, "")
    .trim();
  let kind: PlatformErrorKind;
  let retryAfter = retryAfterSeconds(headers, nowMs);
  if (reasons.includes("quotaExceeded")) {
    kind = "transient";
    retryAfter ??= secondsUntilQuotaReset(nowMs);
  } else if (reasons.includes("rateLimitExceeded") || reasons.includes("userRateLimitExceeded") || status === 429) {
    kind = "transient";
  } else if (needsReconnect) {
    // A token refresh cannot create a channel, nor add a scope.
    kind = "permanent";
  } else if (status === 401) {
    kind = "auth";
  } else if (status >= 500) {
    kind = "transient";
  } else {
    kind = "permanent";
  }
  const plain = (r: string) =>
    r === "insufficientPermissions"
      ? call === "comment"
        ? PLAIN.commentInsufficientPermissions
        : undefined // the upload's refusal in Google's words
      : PLAIN[r];
  const known = reasons.map(plain).find((m) => m !== undefined);
  const message =
    known ??
    (status === 401
      ? PLAIN.authError!
      : googleMessage
        ? `YouTube: ${googleMessage}`
        : `YouTube answered HTTP ${status}.`);
  return new PlatformError(kind, ensurePeriod(message), {
    status,
    retryAfterSeconds: kind === "transient" ? retryAfter : undefined,
    needsReconnect,
  });
}

function ensurePeriod(s: string): string {
  return /[.!?]$/.test(s) ? s : `${s}.`;
}

const REJECTION: Record<string, string> = {
  claim: "YouTube rejected the video because of a content claim.",
  copyright: "YouTube rejected the video for copyright infringement.",
  duplicate: "YouTube rejected the video as a duplicate of one already uploaded.",
  inappropriate: "YouTube rejected the video as inappropriate.",
  legal: "YouTube rejected the video for legal reasons.",
  length: "YouTube rejected the video because it is too long.",
  termsOfUse: "YouTube rejected the video for violating its terms of use.",
  trademark: "YouTube rejected the video for trademark infringement.",
  uploaderAccountClosed: "YouTube rejected the video because the channel is closed.",
  uploaderAccountSuspended: "YouTube rejected the video because the channel is suspended.",
};
const FAILURE: Record<string, string> = {
  codec: "YouTube could not process the video: unsupported codec.",
  conversion: "YouTube could not convert the video.",
  emptyFile: "YouTube could not process the video: the file is empty.",
  invalidFile: "YouTube could not process the video: the file is not a valid video.",
  tooSmall: "YouTube could not process the video: the file is too small.",
  uploadAborted: "The YouTube upload was aborted.",
};

export type ProcessingOutcome = { state: "processing" } | { state: "done" } | { state: "failed"; message: string };

/** Reads `status` + `processingDetails` of a video resource. */
export function processingOutcome(video: YouTubeVideo): ProcessingOutcome {
  const upload = video.status?.uploadStatus;
  const processing = video.processingDetails?.processingStatus;
  if (upload === "rejected") {
    const r = video.status?.rejectionReason ?? "";
    return { state: "failed", message: REJECTION[r] ?? "YouTube rejected the video." };
  }
  if (upload === "failed" || processing === "failed") {
    const r = video.status?.failureReason ?? "";
    return { state: "failed", message: FAILURE[r] ?? "YouTube could not process the video." };
  }
  if (upload === "deleted" || processing === "terminated")
    return { state: "failed", message: "The YouTube video was deleted during processing." };
  if (upload === "processed" || processing === "succeeded") return { state: "done" };
  return { state: "processing" };
}

/**
 * The privacy YouTube applied, read back after the upload, against the one asked. Videos that `videos.insert`
 * uploads from an unverified API project (created after 28 July 2020) "will be restricted to private viewing mode"
 * until the project passes an audit (videos.insert reference, note at the top; API revision history, 28 July 2020).
 * YouTube gives no dedicated field for it: the signal is `status.privacyStatus` = `private` when `public` or
 * `unlisted` was asked. Null when the privacy is the one asked (or unknown).
 */
export function lockedPrivateMessage(asked: string, applied: string | undefined, videoId: string): string | null {
  if (applied !== "private" || asked === "private") return null;
  return (
    `YouTube locked the video private (asked: ${asked}): uploads from a Google Cloud project that has not passed ` +
    `YouTube's API audit are private whatever is asked. The video is at ${shortUrl(videoId)}, visible to the ` +
    "channel only; after the audit (support.google.com/youtube/contact/yt_api_form) make it public in YouTube Studio."
  );
}

export function shortUrl(videoId: string): string {
  return `https://www.youtube.com/shorts/${videoId}`;
}

/** decisions §11: YouTube → Views, Likes, Comments (counts come as strings; hidden counts read as 0). */
export function metricsFromStatistics(stats: YouTubeVideo["statistics"]): Metric[] {
  const n = (v: string | undefined) => {
    const x = Number(v ?? 0);
    return Number.isFinite(x) ? x : 0;
  };
  return [
    { label: "Views", value: n(stats?.viewCount) },
    { label: "Likes", value: n(stats?.likeCount) },
    { label: "Comments", value: n(stats?.commentCount) },
  ];
}

/** A comment's address: the video's watch page with `lc` (the comment highlighted). */
export const commentUrl = (videoId: string, commentId: string): string =>
  `https://www.youtube.com/watch?v=${encodeURIComponent(videoId)}&lc=${encodeURIComponent(commentId)}`;
