import { retryAfterSeconds } from "../http";
import { PlatformError, type PlatformErrorKind, type PublishRequest } from "../types";
import type {
  TikTokCreatorInfo,
  TikTokEnvelope,
  TikTokFileUploadSource,
  TikTokPhotoInitRequest,
  TikTokStatusData,
  TikTokVideoInitRequest,
} from "./types";

/** Pure request/response mapping for TikTok (platforms.md §8). */

const MIB = 1024 * 1024;
/** Chunk size for FILE_UPLOAD (TikTok allows 5–64 MB; the last chunk may hold the remainder, ≤128 MB). */
export const TIKTOK_CHUNK_BYTES = 10 * MIB;
/** TikTok counts init calls per user per minute (6/min) and documents no reset header. */
export const TIKTOK_DEFAULT_RETRY_SECONDS = 60;

export interface ChunkPlan {
  source: TikTokFileUploadSource;
  /** Inclusive byte ranges, in upload order. */
  ranges: { first: number; last: number }[];
}

/**
 * TikTok's chunk rules: `total_chunk_count = floor(video_size / chunk_size)` and the last chunk takes the
 * remainder. Files under two chunks go up whole (one chunk = the file, which covers "< 5 MB → one chunk");
 * larger ones use 10 MiB chunks, so the last is under 20 MiB and memory never holds more than that.
 */
export function planChunks(videoSize: number, chunkBytes = TIKTOK_CHUNK_BYTES): ChunkPlan {
  const single = videoSize < 2 * chunkBytes;
  const chunkSize = single ? videoSize : chunkBytes;
  const count = single ? 1 : Math.floor(videoSize / chunkSize);
  const ranges: { first: number; last: number }[] = [];
  for (let i = 0; i < count; i++) {
    const first = i * chunkSize;
    const last = i === count - 1 ? videoSize - 1 : first + chunkSize - 1;
    ranges.push({ first, last });
  }
  return {
    source: { source: "FILE_UPLOAD", video_size: videoSize, chunk_size: chunkSize, total_chunk_count: count },
    ranges,
  };
}

/** From most to least private: TikTok's privacy levels. */
const MOST_PRIVATE_FIRST = ["SELF_ONLY", "FOLLOWER_OF_CREATOR", "MUTUAL_FOLLOW_FRIENDS", "PUBLIC_TO_EVERYONE"];

/**
 * The privacy level to send. Row `meta.privacy_level` wins, then account `meta.privacy_level`; it must be one
 * of the creator's `privacy_level_options` (TikTok refuses others with `privacy_level_option_mismatch`).
 * Without one, the most private level offered (SELF_ONLY): TikTok's Content Sharing Guidelines forbid choosing a
 * visibility for the creator, and unaudited apps may only post SELF_ONLY anyway.
 */
export function choosePrivacyLevel(
  requested: unknown,
  options: string[] | undefined,
): { ok: true; level: string } | { ok: false; message: string } {
  const offered = options && options.length > 0 ? options : ["SELF_ONLY"];
  if (typeof requested === "string" && requested !== "") {
    if (offered.includes(requested)) return { ok: true, level: requested };
    return {
      ok: false,
      message: `TikTok privacy level ${requested} is not available for this account (allowed: ${offered.join(", ")}).`,
    };
  }
  const level = MOST_PRIVATE_FIRST.find((p) => offered.includes(p)) ?? offered[0]!;
  return { ok: true, level };
}

function flag(meta: Record<string, unknown>, key: string, fallback: boolean): boolean {
  const v = meta[key];
  return typeof v === "boolean" ? v : fallback;
}

/** `POST /v2/post/publish/video/init/` body. Caption = the post content (≤ 2 200). */
export function videoInitBody(
  req: Pick<PublishRequest, "content" | "meta">,
  privacyLevel: string,
  creator: TikTokCreatorInfo,
  source: TikTokVideoInitRequest["source_info"],
): TikTokVideoInitRequest {
  const meta = req.meta;
  const postInfo: TikTokVideoInitRequest["post_info"] = {
    title: req.content,
    privacy_level: privacyLevel,
    // Interactions are the creator's choice (Content Sharing Guidelines: none pre-selected): off unless `meta`
    // turns them on (`disable_…: false`), and never on when the creator's settings have them off.
    disable_duet: creator.duet_disabled === true || flag(meta, "disable_duet", true),
    disable_comment: creator.comment_disabled === true || flag(meta, "disable_comment", true),
    disable_stitch: creator.stitch_disabled === true || flag(meta, "disable_stitch", true),
    brand_content_toggle: flag(meta, "brand_content_toggle", false),
    brand_organic_toggle: flag(meta, "brand_organic_toggle", false),
    is_aigc: flag(meta, "is_aigc", false),
  };
  const cover = meta.video_cover_timestamp_ms;
  if (typeof cover === "number" && Number.isInteger(cover) && cover >= 0) postInfo.video_cover_timestamp_ms = cover;
  return { post_info: postInfo, source_info: source };
}

/** `POST /v2/post/publish/content/init/` body for a photo post (PULL_FROM_URL only). Content = description. */
export function photoInitBody(
  req: Pick<PublishRequest, "content" | "meta">,
  privacyLevel: string,
  creator: TikTokCreatorInfo,
  photoUrls: string[],
): TikTokPhotoInitRequest {
  const meta = req.meta;
  const postInfo: TikTokPhotoInitRequest["post_info"] = {
    description: req.content,
    privacy_level: privacyLevel,
    disable_comment: creator.comment_disabled === true || flag(meta, "disable_comment", true),
    auto_add_music: flag(meta, "auto_add_music", true),
    brand_content_toggle: flag(meta, "brand_content_toggle", false),
    brand_organic_toggle: flag(meta, "brand_organic_toggle", false),
  };
  if (typeof meta.title === "string" && meta.title !== "") postInfo.title = meta.title;
  const coverIndex = meta.photo_cover_index;
  return {
    post_info: postInfo,
    source_info: {
      source: "PULL_FROM_URL",
      photo_cover_index:
        typeof coverIndex === "number" &&
        Number.isInteger(coverIndex) &&
        coverIndex >= 0 &&
        coverIndex < photoUrls.length
          ? coverIndex
          : 0,
      photo_images: photoUrls,
    },
    post_mode: "DIRECT_POST",
    media_type: "PHOTO",
  };
}

/** Plain words for TikTok error codes and `fail_reason`s whose own message is developer-facing. */
const PLAIN: Record<string, string> = {
  access_token_invalid: "The TikTok access token is invalid or expired.",
  scope_not_authorized: "The TikTok account did not grant the permission to post videos.",
  rate_limit_exceeded: "TikTok rate limit reached.",
  spam_risk_too_many_posts: "The TikTok account has reached its daily post limit.",
  spam_risk_user_banned_from_posting: "The TikTok account is banned from posting.",
  spam_risk_too_many_pending_share: "The TikTok account has too many posts waiting to be processed.",
  spam_risk_text: "TikTok flagged the caption as spam.",
  spam_risk: "TikTok flagged the post as spam.",
  privacy_level_option_mismatch: "The chosen privacy level is not available for this TikTok account.",
  url_ownership_unverified: "TikTok could not pull the media: its domain is not verified for this TikTok app.",
  unaudited_client_can_only_post_to_private_accounts:
    "TikTok only allows private posts from this app until it passes TikTok's audit: set privacy_level to SELF_ONLY.",
  reached_active_user_cap: "The TikTok app has reached its daily limit of posting users.",
  internal_error: "TikTok had an internal error.",
  // fail_reason values of status/fetch
  file_format_check_failed: "TikTok rejected the video format.",
  duration_check_failed: "TikTok rejected the video length.",
  frame_rate_check_failed: "TikTok rejected the video frame rate.",
  picture_size_check_failed: "TikTok rejected the picture size.",
  video_pull_failed: "TikTok could not download the video from its URL.",
  photo_pull_failed: "TikTok could not download the photos from their URLs.",
  publish_cancelled: "The TikTok post was cancelled.",
  auth_removed: "The TikTok account removed this app's access.",
  internal: "TikTok failed to process the post.",
};

function humanize(code: string): string {
  const words = code.replace(/_/g, " ").trim();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) + "." : "Unknown error.";
}

/** Turns a TikTok error response (HTTP status + envelope) into a PlatformError. */
export function tiktokError(
  status: number,
  body: TikTokEnvelope<unknown> | null,
  headers: Headers,
  nowMs: number,
): PlatformError {
  const code = body?.error?.code ?? "";
  const platformMessage = body?.error?.message?.trim() ?? "";
  let kind: PlatformErrorKind;
  // A scope the creator did not grant (or took back) — "The user did not authorize the scope required for completing
  // this request. Please ask the user to authorize and then retry." (scope_not_authorized, 401) and
  // scope_permission_missed (developers.tiktok.com/doc/tiktok-api-v2-error-handling): a token refresh keeps the same
  // scopes, so it is no session problem but a reconnect (docs/account-health.md), in TikTok's words.
  const needsReconnect = code === "scope_not_authorized" || code === "scope_permission_missed";
  if (needsReconnect) kind = "permanent";
  else if (code === "rate_limit_exceeded" || status === 429) kind = "transient";
  else if (code === "access_token_invalid" || status === 401) kind = "auth";
  else if (code === "internal_error" || status >= 500) kind = "transient";
  else kind = "permanent";
  const message =
    (needsReconnect && platformMessage ? `TikTok: ${sentenceOf(platformMessage)}` : undefined) ??
    PLAIN[code] ??
    (platformMessage
      ? `TikTok: ${/[.!?]$/.test(platformMessage) ? platformMessage : `${platformMessage}.`}`
      : code
        ? `TikTok error: ${humanize(code)}`
        : `TikTok answered HTTP ${status}.`);
  const retryAfter =
    kind === "transient" && (code === "rate_limit_exceeded" || status === 429)
      ? (retryAfterSeconds(headers, nowMs) ?? TIKTOK_DEFAULT_RETRY_SECONDS)
      : retryAfterSeconds(headers, nowMs);
  return new PlatformError(kind, message, { status, retryAfterSeconds: retryAfter, needsReconnect });
}

const sentenceOf = (s: string) => (/[.!?]$/.test(s) ? s : `${s}.`);

/**
 * Parses a `status/fetch` body keeping `publicaly_available_post_id` exact: TikTok sends int64 numbers
 * (≈7.3e18), which `JSON.parse` would round, so the digits are lifted from the raw text first.
 */
export function parseStatusBody(text: string): TikTokEnvelope<TikTokStatusData> | null {
  let json: TikTokEnvelope<TikTokStatusData>;
  try {
    json = JSON.parse(text) as TikTokEnvelope<TikTokStatusData>;
  } catch {
    return null;
  }
  const raw = /"publicaly_available_post_id"\s*:\s*\[([^\]]*)\]/.exec(text);
  if (json.data && raw) {
    json.data.publicaly_available_post_id = (raw[1] ?? "")
      .split(",")
      .map((s) => s.trim().replace(/^"|"$/g, ""))
      .filter((s) => /^\d+$/.test(s));
  }
  return json;
}

export type StatusOutcome =
  | { state: "processing" }
  | { state: "complete"; postId: string | null }
  | { state: "failed"; message: string };

/** Reads `status/fetch` data. PUBLISH_COMPLETE may come without a post id (private posts, moderation pending). */
export function statusOutcome(data: TikTokStatusData): StatusOutcome {
  if (data.status === "PUBLISH_COMPLETE") {
    const id = data.publicaly_available_post_id?.[0];
    return { state: "complete", postId: id === undefined || id === null || id === "" ? null : String(id) };
  }
  if (data.status === "FAILED") {
    const reason = data.fail_reason ?? "";
    return {
      state: "failed",
      message: PLAIN[reason] ?? (reason ? `TikTok failed the post: ${humanize(reason)}` : "TikTok failed the post."),
    };
  }
  return { state: "processing" };
}

/** `https://www.tiktok.com/@{username}`: where a post without a public id (private, in moderation) is. */
export const profileUrl = (username: string): string => `https://www.tiktok.com/@${encodeURIComponent(username)}`;

/** `https://www.tiktok.com/@{username}/video/{id}` (photo posts: `/photo/{id}`). */
export function postUrl(username: string, postId: string, kind: "video" | "photo"): string {
  return `https://www.tiktok.com/@${encodeURIComponent(username)}/${kind}/${postId}`;
}
