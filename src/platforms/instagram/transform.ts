import type { ProcessingState } from "../meta/containers";
import { describeContainerStatus } from "../meta/errors";
import type { GraphParams } from "../meta/graph";
import { insightValues, labelMetrics } from "../meta/insights";
import type { InsightsResponse } from "../meta/types";
import { type AdapterMedia, type Metric, PlatformError } from "../types";
import type { IgContainerStatus, IgPermalink } from "./types";

/** Pure request/response mapping for Instagram's container model (platforms.md §5–6). */

export type InstagramPlan =
  | { kind: "single"; container: GraphParams }
  | { kind: "carousel"; children: GraphParams[]; caption: string | undefined };

const caption = (content: string): string | undefined => (content.trim() === "" ? undefined : content);

/** Which containers a post needs. Media reach Instagram only as public URLs (`media.url`). */
export function planInstagram(contentType: string, content: string, media: AdapterMedia[]): InstagramPlan {
  const first = media[0];
  if (!first) throw new PlatformError("permanent", "Instagram posts need an image or a video.");
  switch (contentType) {
    case "instagram_story":
      return {
        kind: "single",
        container:
          first.type === "video"
            ? { media_type: "STORIES", video_url: first.url }
            : { media_type: "STORIES", image_url: first.url },
      };
    case "instagram_reel":
      if (first.type !== "video") throw new PlatformError("permanent", "Instagram reels need a video.");
      return { kind: "single", container: reelContainer(first, content) };
    case "instagram_carousel":
      if (media.length >= 2) {
        return {
          kind: "carousel",
          caption: caption(content),
          children: media.map((m) =>
            m.type === "video"
              ? { media_type: "VIDEO", video_url: m.url, is_carousel_item: true }
              : withAlt({ image_url: m.url, is_carousel_item: true }, m),
          ),
        };
      }
      // A one-item "carousel" is not accepted by Instagram (2–10 children); it goes out as a single post.
      return { kind: "single", container: singleContainer(first, content) };
    default:
      return { kind: "single", container: singleContainer(first, content) };
  }
}

/** Single feed videos are published as reels (`VIDEO` is deprecated for feed). */
function singleContainer(m: AdapterMedia, content: string): GraphParams {
  return m.type === "video" ? reelContainer(m, content) : withAlt({ image_url: m.url, caption: caption(content) }, m);
}

/**
 * Issue 29: an image container (single or carousel item) with the image's alt text as `alt_text`
 * (developers.facebook.com/documentation/instagram-platform/content-publishing: image posts only, since
 * 2025-03-24; reels and stories take none).
 */
function withAlt(container: GraphParams, m: AdapterMedia): GraphParams {
  return m.alt ? { ...container, alt_text: m.alt } : container;
}

function reelContainer(m: AdapterMedia, content: string): GraphParams {
  return { media_type: "REELS", video_url: m.url, caption: caption(content), share_to_feed: true };
}

/**
 * Row `meta.collaborators` (issue 20, src/catalog/meta-fields.ts): up to 3 Instagram usernames invited as
 * collaborators, sent as the container's `collaborators` list on feed posts, reels and the carousel parent (never
 * on stories or carousel items, which take none). A leading `@` is dropped; nothing when the list is empty.
 */
export function collaboratorsOf(contentType: string, meta: Record<string, unknown>): string[] | undefined {
  if (contentType === "instagram_story" || !Array.isArray(meta.collaborators)) return undefined;
  const names = meta.collaborators
    .filter((u): u is string => typeof u === "string")
    .map((u) => u.trim().replace(/^@/, ""))
    .filter((u) => u !== "");
  return names.length > 0 ? names : undefined;
}

export function carouselParent(childIds: string[], captionText: string | undefined): GraphParams {
  return { media_type: "CAROUSEL", children: childIds.join(","), caption: captionText };
}

export function containerState(s: IgContainerStatus, label: string): ProcessingState {
  switch (s.status_code) {
    case "FINISHED":
    case "PUBLISHED":
      return { state: "ready" };
    case "ERROR":
      return { state: "failed", reason: describeContainerStatus(s.status, label) };
    case "EXPIRED":
      return { state: "failed", reason: `${label} media container expired before it was published.` };
    default:
      return { state: "pending" };
  }
}

export function instagramUrl(p: IgPermalink | null, contentType: string): string | null {
  if (p?.permalink) return p.permalink;
  if (!p?.shortcode) return null;
  return contentType === "instagram_reel"
    ? `https://www.instagram.com/reel/${p.shortcode}/`
    : `https://www.instagram.com/p/${p.shortcode}/`;
}

/**
 * decisions §11 labels per content type. `plays`/`impressions` were retired (v21–v22) in favour of `views`, so
 * reels' "Plays" and stories' "Impressions" are read from `views`.
 */
const FEED: Array<[string, string]> = [
  ["Reach", "reach"],
  ["Likes", "likes"],
  ["Comments", "comments"],
  ["Shares", "shares"],
  ["Saved", "saved"],
  ["Total interactions", "total_interactions"],
];
const REEL: Array<[string, string]> = [
  ["Reach", "reach"],
  ["Likes", "likes"],
  ["Comments", "comments"],
  ["Shares", "shares"],
  ["Saved", "saved"],
  ["Plays", "views"],
];
const STORY: Array<[string, string]> = [
  ["Reach", "reach"],
  ["Impressions", "views"],
  ["Replies", "replies"],
];

function metricLabels(contentType: string): Array<[string, string]> {
  if (contentType === "instagram_reel") return REEL;
  if (contentType === "instagram_story") return STORY;
  return FEED;
}

/** The `metric=` list to request for a content type. */
export function instagramMetricNames(contentType: string): string {
  return metricLabels(contentType)
    .map(([, name]) => name)
    .join(",");
}

export function instagramMetrics(contentType: string, resp: InsightsResponse | null): Metric[] {
  return labelMetrics(insightValues(resp), metricLabels(contentType));
}
