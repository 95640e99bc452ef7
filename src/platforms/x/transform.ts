import type { Metric } from "../types";
import type { PublicMetrics, XProblem } from "./types";

/** Pure X transforms: tweet bodies, URLs, metrics, error text, media categories. */

export interface TweetBody {
  text?: string;
  media?: { media_ids: string[] };
  /** A reply (thread item or first comment, issue 20): the post it answers. */
  reply?: { in_reply_to_tweet_id: string };
}

export function tweetBody(content: string, mediaIds: string[], inReplyTo?: string): TweetBody {
  const body: TweetBody = {};
  if (content.length > 0) body.text = content;
  if (mediaIds.length > 0) body.media = { media_ids: mediaIds };
  if (inReplyTo) body.reply = { in_reply_to_tweet_id: inReplyTo };
  return body;
}

/** `https://x.com/{username}/status/{id}`; without a username the `i/web` form resolves too. */
export function tweetUrl(username: string, id: string): string {
  const handle = username.replace(/^@/, "").trim();
  return handle ? `https://x.com/${handle}/status/${id}` : `https://x.com/i/web/status/${id}`;
}

/** Labels of decisions §11: Impressions, Likes, Retweets, Replies, Quotes, Bookmarks. */
export function metricsFromPublic(m: PublicMetrics): Metric[] {
  return [
    { label: "Impressions", value: m.impression_count ?? 0 },
    { label: "Likes", value: m.like_count ?? 0 },
    { label: "Retweets", value: m.retweet_count ?? 0 },
    { label: "Replies", value: m.reply_count ?? 0 },
    { label: "Quotes", value: m.quote_count ?? 0 },
    { label: "Bookmarks", value: m.bookmark_count ?? 0 },
  ];
}

/** The platform's reason in plain words from a problem body (v2) or an `errors` list (v1.1 style). */
export function problemText(body: XProblem | null, status: number): string {
  const detail = body?.errors?.[0]?.message ?? body?.detail ?? body?.title;
  return detail ? detail : `HTTP ${status}`;
}

/** Which upload path and category a media item takes: small images in one request, GIF and video chunked. */
export function mediaPlan(type: "image" | "video", mimeType: string): { chunked: boolean; category: string } {
  if (type === "video") return { chunked: true, category: "tweet_video" };
  if (mimeType === "image/gif") return { chunked: true, category: "tweet_gif" };
  return { chunked: false, category: "tweet_image" };
}

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };

/**
 * Text compared when looking for a tweet an earlier attempt may have created: X rewrites links to t.co and
 * appends a media link, and escapes a few entities, so links and whitespace are ignored.
 */
export function comparableText(text: string): string {
  return text
    .replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] ?? e)
    .replace(/https?:\/\/\S+/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** Seconds to wait from X's rate-limit headers: a spent daily cap wins over the 15-minute window. */
export function resetSeconds(headers: Headers, now: number): number | undefined {
  const pick = (prefix: string) => (headers.get(`${prefix}-remaining`) === "0" ? headers.get(`${prefix}-reset`) : null);
  const reset = pick("x-user-limit-24hour") ?? pick("x-app-limit-24hour") ?? headers.get("x-rate-limit-reset");
  if (!reset) return undefined;
  const n = Number(reset);
  return Number.isFinite(n) ? Math.max(0, Math.ceil(n - now / 1000)) : undefined;
}
