import type { ProcessingState } from "../meta/containers";
import type { GraphParams } from "../meta/graph";
import { insightValues, labelMetrics } from "../meta/insights";
import type { InsightsResponse } from "../meta/types";
import { type AdapterMedia, type Metric, PlatformError } from "../types";
import type { ThreadsContainerStatus, ThreadsPermalink } from "./types";

/** Pure request/response mapping for Threads' container model (platforms.md §7). */

export type ThreadsPlan =
  | { kind: "single"; container: GraphParams; poll: boolean }
  | { kind: "carousel"; children: GraphParams[]; text: string | undefined };

const text = (content: string): string | undefined => (content.trim() === "" ? undefined : content);

/**
 * An image or video container; issue 29: with its alt text as `alt_text` when it has one
 * (developers.facebook.com/documentation/threads/posts/accessibility; images and videos, carousel items too).
 */
function mediaParams(m: AdapterMedia): GraphParams {
  const params: GraphParams =
    m.type === "video" ? { media_type: "VIDEO", video_url: m.url } : { media_type: "IMAGE", image_url: m.url };
  return m.alt ? { ...params, alt_text: m.alt } : params;
}

export function planThreads(content: string, media: AdapterMedia[]): ThreadsPlan {
  const first = media[0];
  if (!first) {
    if (!text(content)) throw new PlatformError("permanent", "Threads posts need text or media.");
    // Text containers need no processing; they are published straight away.
    return { kind: "single", container: { media_type: "TEXT", text: content }, poll: false };
  }
  if (media.length === 1)
    return { kind: "single", container: { ...mediaParams(first), text: text(content) }, poll: true };
  return {
    kind: "carousel",
    text: text(content),
    children: media.map((m) => ({ ...mediaParams(m), is_carousel_item: true })),
  };
}

export function carouselParent(childIds: string[], textValue: string | undefined): GraphParams {
  return { media_type: "CAROUSEL", children: childIds.join(","), text: textValue };
}

/** "FAILED_DOWNLOADING_VIDEO" → "Failed downloading video". */
export function humanizeErrorCode(code: string): string {
  const words = code
    .replace(/^THREADS_API__/, "")
    .toLowerCase()
    .replace(/_+/g, " ")
    .trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : code;
}

export function containerState(s: ThreadsContainerStatus): ProcessingState {
  switch (s.status) {
    case "FINISHED":
    case "PUBLISHED":
      return { state: "ready" };
    case "ERROR":
      return {
        state: "failed",
        reason: s.error_message
          ? `Threads could not process the media: ${humanizeErrorCode(s.error_message)}.`
          : "Threads could not process the media.",
      };
    case "EXPIRED":
      return { state: "failed", reason: "Threads media container expired before it was published." };
    default:
      return { state: "pending" };
  }
}

/** Threads' canonical post domain is threads.com (threads.net redirects there). */
const THREADS_WEB = "https://www.threads.com";

/** The post's URL on threads.com: the permalink (moved to threads.com when Meta still answers threads.net). */
export function threadsUrl(p: ThreadsPermalink | null, username: string): string | null {
  if (p?.permalink) return p.permalink.replace(/^https:\/\/(www\.)?threads\.net\//, `${THREADS_WEB}/`);
  return p?.shortcode ? `${THREADS_WEB}/@${username}/post/${p.shortcode}` : null;
}

export const threadsProfileUrl = (username: string): string => `${THREADS_WEB}/@${username}`;

/** decisions §11: Views, Likes, Replies, Reposts, Quotes. */
const LABELS: Array<[string, string]> = [
  ["Views", "views"],
  ["Likes", "likes"],
  ["Replies", "replies"],
  ["Reposts", "reposts"],
  ["Quotes", "quotes"],
];

export const THREADS_METRIC_NAMES = LABELS.map(([, name]) => name).join(",");

export function threadsMetrics(resp: InsightsResponse | null): Metric[] {
  return labelMetrics(insightValues(resp), LABELS);
}
