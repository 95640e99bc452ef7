import type { ProcessingState } from "../meta/containers";
import { insightValues, labelMetrics } from "../meta/insights";
import type { InsightsResponse } from "../meta/types";
import { type AdapterMedia, type Metric, PlatformError } from "../types";
import type { FbFeedResponse, FbVideoStatus } from "./types";

/** Pure request/response mapping for Facebook Pages (platforms.md §4). Video goes by its public URL. */

export type FacebookPlan =
  | { kind: "text"; body: Record<string, unknown> }
  | { kind: "photo"; body: Record<string, unknown> }
  | { kind: "video"; body: Record<string, unknown> }
  | { kind: "multi_photo"; photos: Array<Record<string, unknown>>; message: string | undefined }
  | { kind: "reel"; media: AdapterMedia; description: string | undefined }
  | { kind: "photo_story"; photo: Record<string, unknown> }
  | { kind: "video_story"; media: AdapterMedia };

const text = (content: string): string | undefined => (content.trim() === "" ? undefined : content);

export function planFacebook(contentType: string, content: string, media: AdapterMedia[]): FacebookPlan {
  const first = media[0];
  if (contentType === "facebook_reel") {
    if (first?.type !== "video") throw new PlatformError("permanent", "Facebook reels need a video.");
    return { kind: "reel", media: first, description: text(content) };
  }
  if (contentType === "facebook_story") {
    if (!first) throw new PlatformError("permanent", "Facebook stories need an image or a video.");
    return first.type === "video"
      ? { kind: "video_story", media: first }
      : { kind: "photo_story", photo: { url: first.url, published: false } };
  }
  if (!first) {
    if (!text(content)) throw new PlatformError("permanent", "Facebook posts need text or media.");
    return { kind: "text", body: { message: content, published: true } };
  }
  if (media.length === 1) {
    return first.type === "video"
      ? { kind: "video", body: { file_url: first.url, description: text(content), published: true } }
      : { kind: "photo", body: withAlt({ url: first.url, message: text(content), published: true }, first) };
  }
  if (media.some((m) => m.type === "video")) {
    throw new PlatformError("permanent", "Facebook posts with several media items accept images only.");
  }
  return {
    kind: "multi_photo",
    photos: media.map((m) => withAlt({ url: m.url, published: false }, m)),
    message: text(content),
  };
}

/**
 * Issue 29: a page photo with its alt text as `alt_text_custom` (Graph API Page Photos, "alt_text_custom: accessible
 * alternative description for an image"), left out when there is none. Checked again 2026-11-28: the parameter is
 * in the `POST /{page-id}/photos` parameters of Meta's generated Business SDK (facebook-python-business-sdk,
 * `create_photo` param_types) and is a field of the Photo node beside the generated `alt_text`
 * (developers.facebook.com/docs/graph-api/reference/photo/); the reference page for the edge was not in the search
 * index, so the quote above is from the parameter list as the SDK generates it.
 */
function withAlt(body: Record<string, unknown>, m: AdapterMedia): Record<string, unknown> {
  return m.alt ? { ...body, alt_text_custom: m.alt } : body;
}

export function attachedMediaBody(photoIds: string[], message: string | undefined): Record<string, unknown> {
  return { message, attached_media: photoIds.map((id) => ({ media_fbid: id })), published: true };
}

/** `{page}_{post}` → `https://www.facebook.com/{page}/posts/{post}` when Meta gave no permalink. */
export function postUrl(pageId: string, postId: string, permalink?: string): string {
  if (permalink) return permalink;
  const [page, post] = postId.includes("_") ? postId.split("_", 2) : [pageId, postId];
  return `https://www.facebook.com/${page}/posts/${post}`;
}

export function feedResult(pageId: string, res: FbFeedResponse): { platformPostId: string; platformUrl: string } {
  return { platformPostId: res.id, platformUrl: postUrl(pageId, res.id, res.permalink_url) };
}

export const videoUrl = (pageId: string, videoId: string): string =>
  `https://www.facebook.com/${pageId}/videos/${videoId}`;
export const reelUrl = (videoId: string): string => `https://www.facebook.com/reel/${videoId}`;

/** Reel processing: `status.video_status` ready (or the publishing phase complete) / error with the phase's reason. */
export function reelState(s: FbVideoStatus): ProcessingState {
  const st = s.status;
  const phaseError =
    st?.uploading_phase?.error?.message ?? st?.processing_phase?.error?.message ?? st?.publishing_phase?.error?.message;
  if (st?.video_status === "error" || phaseError) {
    return { state: "failed", reason: phaseError ?? "Facebook could not process the video." };
  }
  if (st?.video_status === "ready" || st?.publishing_phase?.status === "complete") return { state: "ready" };
  return { state: "pending" };
}

/**
 * decisions §11: Impressions, Unique impressions, Reactions (sum over reaction types), Clicks. Meta retired
 * `post_impressions_unique` (June 2025) and `post_impressions` (2026) for every API version — asking for either fails
 * the whole request — and names "media views" as their replacement (docs/metrics.md): Impressions are now
 * `post_media_view` (times the post was displayed or played), Unique impressions `post_total_media_view_unique`
 * (people it was displayed to).
 */
const LABELS: Array<[string, string]> = [
  ["Impressions", "post_media_view"],
  ["Unique impressions", "post_total_media_view_unique"],
  ["Reactions", "post_reactions_by_type_total"],
  ["Clicks", "post_clicks"],
];

export const FACEBOOK_METRIC_NAMES = LABELS.map(([, name]) => name).join(",");

export function facebookMetrics(resp: InsightsResponse | null): Metric[] {
  return labelMetrics(insightValues(resp), LABELS);
}

/**
 * Videos and reels are Video nodes: their numbers come from `/{video-id}/video_insights` (the Page-post `/insights`
 * edge does not exist on them). Asked without `metric`, the edge answers every lifetime metric the video has; the
 * first name present fills each label. The "impressions" names (`total_video_impressions`,
 * `total_video_impressions_unique`, and `post_impressions_unique` as a reel's reach) are retired — Graph no longer
 * answers them, so reading them reported 0 — and their places are taken by views and media views (docs/metrics.md):
 * Impressions = `total_video_views` (a video's views), for reels `fb_reels_total_plays` (else
 * `blue_reels_play_count`); Unique impressions = `total_video_views_unique`, for reels `post_total_media_view_unique`. Facebook
 * reports no clicks for videos: Clicks is 0.
 */
const VIDEO_LABELS: Array<[string, string[]]> = [
  ["Impressions", ["total_video_views", "fb_reels_total_plays", "blue_reels_play_count"]],
  ["Unique impressions", ["total_video_views_unique", "post_total_media_view_unique"]],
  ["Reactions", ["total_video_reactions_by_type_total", "post_video_likes_by_reaction_type"]],
  ["Clicks", []],
];

export function facebookVideoMetrics(resp: InsightsResponse | null): Metric[] {
  const values = insightValues(resp);
  return VIDEO_LABELS.map(([label, names]) => {
    const name = names.find((n) => n in values);
    return { label, value: name ? (values[name] ?? 0) : 0 };
  });
}

/** A reel, or a page post published as a video (its id is the video's, its URL `/{page}/videos/{id}`). */
export function isVideoNode(contentType: string, platformUrl: string | null): boolean {
  return contentType === "facebook_reel" || /\/videos\/\d+$/.test(platformUrl ?? "");
}

/**
 * A comment's address: the post's own URL with `comment_id` (the part of the comment id after the post's), or null
 * when the post has no URL (stories).
 */
export function commentUrl(postUrl: string | null, commentId: string): string | null {
  if (!postUrl) return null;
  const id = commentId.slice(commentId.lastIndexOf("_") + 1);
  return `${postUrl}${postUrl.includes("?") ? "&" : "?"}comment_id=${encodeURIComponent(id)}`;
}
