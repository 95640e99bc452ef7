import { retryAfterSecondsUntil } from "../../lib/time";
import { type AdapterAccount, type AdapterMedia, type Metric, PlatformError } from "../types";
import type { LiErrorBody, LiShareStatistics, LiVideo } from "./types";

/** Pure request/response mapping for LinkedIn posts (platforms.md §1–2). */

/**
 * "Little text format" (learn.microsoft.com/linkedin/marketing/community-management/shares/little-text-format):
 * reserved characters are backslash-escaped, else LinkedIn truncates or garbles the text — except the `#` that
 * starts a hashtag: an unescaped `#tag` is little's HashtagElement, the hashtag LinkedIn links; an escaped one is
 * plain text. A hashtag `#` follows the start or a non-word character and is followed by a letter or digit.
 */
export function escapeLittleText(text: string): string {
  return text.replace(/[\\|{}@[\]()<>#*_~]/g, (c, offset: number) =>
    c === "#" && startsHashtag(text, offset) ? c : `\\${c}`,
  );
}

function startsHashtag(text: string, at: number): boolean {
  const before = at === 0 ? "" : text[at - 1]!;
  return !/[\p{L}\p{N}_&]/u.test(before) && /^[\p{L}\p{N}]/u.test(text.slice(at + 1, at + 3));
}

/** The post a 422 DUPLICATE_POST names ("Content is a duplicate of urn:li:share:123"), if it names one. */
export function duplicateOf(body: LiErrorBody | null): string | null {
  const codes = body?.errorDetails?.inputErrors?.map((e) => e.code) ?? [];
  if (!codes.includes("DUPLICATE_POST") && !/duplicate/i.test(body?.message ?? "")) return null;
  return /urn:li:(?:share|ugcPost):\d+/.exec(body?.message ?? "")?.[0] ?? null;
}

/** `urn:li:person:<id>` for members, `urn:li:organization:<meta.organization_id or platform id>` for pages. */
export function authorUrn(account: AdapterAccount): string {
  if (account.platform === "linkedin-page") {
    const org =
      typeof account.meta.organization_id === "string" || typeof account.meta.organization_id === "number"
        ? String(account.meta.organization_id)
        : account.platformUserId;
    if (!org) throw new PlatformError("permanent", "The LinkedIn Page account has no organization id.");
    return `urn:li:organization:${org}`;
  }
  if (!account.platformUserId) throw new PlatformError("permanent", "The LinkedIn account has no member id.");
  return `urn:li:person:${account.platformUserId}`;
}

export type LinkedInMediaPlan =
  | { kind: "none" }
  | { kind: "images"; images: AdapterMedia[] }
  | { kind: "video"; video: AdapterMedia };

export function planMedia(contentType: string, media: AdapterMedia[]): LinkedInMediaPlan {
  const carousel = contentType === "linkedin_carousel" || contentType === "linkedin_page_carousel";
  if (media.length === 0) {
    if (carousel) throw new PlatformError("permanent", "LinkedIn carousels need images.");
    return { kind: "none" };
  }
  const videos = media.filter((m) => m.type === "video");
  if (videos.length > 0) {
    if (carousel) throw new PlatformError("permanent", "LinkedIn carousels accept images only.");
    if (media.length > 1) throw new PlatformError("permanent", "LinkedIn posts take one video and nothing else.");
    return { kind: "video", video: videos[0]! };
  }
  return { kind: "images", images: media };
}

/**
 * One image → `content.media`; 2–20 → `content.multiImage`. Issue 29: each image's alt text as `altText`
 * (Posts API, MediaContent / MultiImage `altText`, at most 4,086 characters), left out when there is none.
 */
export function imageContent(imageUrns: string[], alts: (string | null | undefined)[] = []): Record<string, unknown> {
  const item = (id: string | undefined, i: number) => (alts[i] ? { id, altText: alts[i] } : { id });
  if (imageUrns.length === 1) return { media: item(imageUrns[0], 0) };
  return { multiImage: { images: imageUrns.map(item) } };
}

export function videoContent(videoUrn: string, title: string | undefined): Record<string, unknown> {
  return { media: title ? { id: videoUrn, title } : { id: videoUrn } };
}

export function postBody(author: string, content: string, media?: Record<string, unknown>): Record<string, unknown> {
  return {
    author,
    commentary: escapeLittleText(content),
    visibility: "PUBLIC",
    distribution: { feedDistribution: "MAIN_FEED", targetEntities: [], thirdPartyDistributionChannels: [] },
    ...(media ? { content: media } : {}),
    lifecycleState: "PUBLISHED",
    isReshareDisabledByAuthor: false,
  };
}

export const postUrl = (urn: string): string => `https://www.linkedin.com/feed/update/${urn}`;

/** A comment's address: its post's page with `commentUrn`. */
export const commentUrl = (postUrn: string, commentUrn: string): string =>
  `${postUrl(postUrn)}?commentUrn=${encodeURIComponent(commentUrn)}`;

export function videoState(v: LiVideo): "ready" | "pending" | { failed: string } {
  if (v.status === "AVAILABLE") return "ready";
  if (v.status === "PROCESSING_FAILED") {
    return {
      failed: v.processingFailureReason
        ? `LinkedIn could not process the video: ${v.processingFailureReason}`
        : "LinkedIn could not process the video.",
    };
  }
  return "pending";
}

export function errorMessage(body: LiErrorBody | null, status: number): string {
  return body?.message?.trim() || `LinkedIn returned HTTP ${status}.`;
}

/** LinkedIn's daily quotas reset at 00:00 UTC and its 429 carries no header saying so. */
export function secondsUntilUtcMidnight(nowMs: number): number {
  const d = new Date(nowMs);
  const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
  return retryAfterSecondsUntil(next, nowMs);
}

/** `?q=organizationalEntity&organizationalEntity=<org>&shares=List(<urn>)` (or `ugcPosts=` for ugcPost URNs). */
export function shareStatisticsQuery(orgUrn: string, postUrn: string): string {
  const list = postUrn.startsWith("urn:li:ugcPost:") ? "ugcPosts" : "shares";
  return `q=organizationalEntity&organizationalEntity=${encodeURIComponent(orgUrn)}&${list}=List(${encodeURIComponent(postUrn)})`;
}

/** decisions §11 LinkedIn Page: Impressions, Likes, Comments, Shares, Clicks. */
export function pageMetrics(resp: LiShareStatistics | null): Metric[] {
  const s = resp?.elements?.[0]?.totalShareStatistics ?? {};
  return [
    { label: "Impressions", value: s.impressionCount ?? 0 },
    { label: "Likes", value: s.likeCount ?? 0 },
    { label: "Comments", value: s.commentCount ?? 0 },
    { label: "Shares", value: s.shareCount ?? 0 },
    { label: "Clicks", value: s.clickCount ?? 0 },
  ];
}
