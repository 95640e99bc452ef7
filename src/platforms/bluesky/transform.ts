import type { Metric } from "../types";
import type { AspectRatio, BlobRef, Embed, Facet, PostRecord, PostView, ReplyRef } from "./types";

/** Pure Bluesky request/response transforms: record keys, facets, embeds, URLs and metrics. */

const S32 = "234567abcdefghijklmnopqrstuvwxyz";
/** TIDs derived from row ids fall in [2023-01-01, +2^47 µs ≈ 4.5 years): plausible timestamps, never negative. */
const TID_EPOCH_US = BigInt(Date.UTC(2023, 0, 1)) * 1000n;
const TID_SPAN_BITS = 47n;

function s32(n: bigint, length: number): string {
  let out = "";
  let v = n;
  for (let i = 0; i < length; i++) {
    out = S32[Number(v & 31n)] + out;
    v >>= 5n;
  }
  return out;
}

/** 64-bit FNV-1a: a small, stable, synchronous hash (the key only needs to be deterministic and spread out). */
function fnv1a64(input: string): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(input)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash;
}

/**
 * The record key of a row's post: a valid TID (13 base32-sortable characters: 53-bit microsecond timestamp and
 * 10-bit clock id) derived only from the row id, so every retry targets the same record and `getRecord` can tell
 * whether an earlier attempt already created it.
 */
export function tidFromRowId(rowId: string): string {
  const hash = fnv1a64(rowId.toLowerCase());
  const micros = TID_EPOCH_US + (hash & ((1n << TID_SPAN_BITS) - 1n));
  const clockId = (hash >> 54n) & 1023n;
  return s32(micros, 11) + s32(clockId, 2);
}

export const TID_RE = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/;

const encoder = new TextEncoder();
const utf8Length = (s: string) => encoder.encode(s).byteLength;

export type DetectedFacet =
  | { byteStart: number; byteEnd: number; kind: "link"; uri: string }
  | { byteStart: number; byteEnd: number; kind: "mention"; handle: string }
  | { byteStart: number; byteEnd: number; kind: "tag"; tag: string };

const HANDLE_RE = /^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;
const MENTION_RE = /(^|\s|\()@([a-zA-Z0-9.-]+)(\b)/g;
const URL_RE = /(^|\s|\()(https?:\/\/\S+)/gi;
/** Characters that end a hashtag besides whitespace: soft hyphen, word joiner, zero-width spaces/joiners. */
const TAG_SEPARATORS = "\\u00AD\\u2060\\u200A\\u200B\\u200C\\u200D\\u20e2";
/** The official client's tag pattern: at least one character that is not a digit, space or punctuation. */
const TAG_RE = new RegExp(
  `(^|\\s)[#＃]((?!\\ufe0f)[^\\s${TAG_SEPARATORS}]*[^\\d\\s\\p{P}${TAG_SEPARATORS}]+[^\\s${TAG_SEPARATORS}]*)?`,
  "gu",
);
const MAX_TAG_LENGTH = 64;

/**
 * Finds links, @mentions and #hashtags the way the official client does (the server detects nothing), with
 * UTF-8 byte offsets over the text. Mentions still need their handle resolved to a DID.
 */
export function detectFacets(text: string): DetectedFacet[] {
  const found: DetectedFacet[] = [];
  const range = (start: number, value: string) => {
    const byteStart = utf8Length(text.slice(0, start));
    return { byteStart, byteEnd: byteStart + utf8Length(value) };
  };

  for (const m of text.matchAll(MENTION_RE)) {
    const handle = m[2]!.replace(/[.-]+$/, "");
    if (!HANDLE_RE.test(handle)) continue;
    const start = m.index! + m[1]!.length;
    found.push({ ...range(start, `@${handle}`), kind: "mention", handle: handle.toLowerCase() });
  }

  for (const m of text.matchAll(URL_RE)) {
    let uri = m[2]!;
    uri = uri.replace(/[.,;:!?'"]+$/, "");
    if (uri.endsWith(")") && !uri.includes("(")) uri = uri.slice(0, -1);
    try {
      new URL(uri);
    } catch {
      continue;
    }
    const start = m.index! + m[1]!.length;
    found.push({ ...range(start, uri), kind: "link", uri });
  }

  for (const m of text.matchAll(TAG_RE)) {
    if (!m[2]) continue;
    const tag = m[2].trim().replace(/\p{P}+$/u, "");
    if (tag.length === 0 || tag.length > MAX_TAG_LENGTH) continue;
    const start = m.index! + m[1]!.length;
    // The facet covers the sign as written: the full-width ＃ is 3 UTF-8 bytes, not 1.
    found.push({ ...range(start, `${text[start]}${tag}`), kind: "tag", tag });
  }

  return found.sort((a, b) => a.byteStart - b.byteStart);
}

/** Facets for the record; mentions whose handle did not resolve are left as plain text. */
export function buildFacets(detected: DetectedFacet[], dids: Map<string, string>): Facet[] {
  const facets: Facet[] = [];
  for (const d of detected) {
    const index = { byteStart: d.byteStart, byteEnd: d.byteEnd };
    if (d.kind === "link") facets.push({ index, features: [{ $type: "app.bsky.richtext.facet#link", uri: d.uri }] });
    else if (d.kind === "tag") facets.push({ index, features: [{ $type: "app.bsky.richtext.facet#tag", tag: d.tag }] });
    else {
      const did = dids.get(d.handle);
      if (did) facets.push({ index, features: [{ $type: "app.bsky.richtext.facet#mention", did }] });
    }
  }
  return facets;
}

export function aspectRatio(width: number | null, height: number | null): AspectRatio | undefined {
  return width && height && width > 0 && height > 0 ? { width, height } : undefined;
}

/** Images with their alt text (issue 29: `app.bsky.embed.images#image.alt`, required, "" when there is none). */
export function imagesEmbed(
  images: { blob: BlobRef; width: number | null; height: number | null; alt?: string | null }[],
): Embed {
  return {
    $type: "app.bsky.embed.images",
    images: images.map((i) => {
      const ratio = aspectRatio(i.width, i.height);
      const alt = i.alt ?? "";
      return ratio ? { image: i.blob, alt, aspectRatio: ratio } : { image: i.blob, alt };
    }),
  };
}

/** A video with its alt text when it has one (`app.bsky.embed.video.alt`, optional). */
export function videoEmbed(blob: BlobRef, width: number | null, height: number | null, alt?: string | null): Embed {
  const ratio = aspectRatio(width, height);
  const embed: Embed = ratio
    ? { $type: "app.bsky.embed.video", video: blob, aspectRatio: ratio }
    : { $type: "app.bsky.embed.video", video: blob };
  return alt ? { ...embed, alt } : embed;
}

export function postRecord(
  text: string,
  createdAt: number,
  facets: Facet[],
  embed?: Embed,
  reply?: ReplyRef,
): PostRecord {
  const record: PostRecord = { $type: "app.bsky.feed.post", text, createdAt: new Date(createdAt).toISOString() };
  if (facets.length > 0) record.facets = facets;
  if (embed) record.embed = embed;
  if (reply) record.reply = reply;
  return record;
}

/** `at://<did>/<collection>/<rkey>` → its parts, or null for anything else. */
export function parseAtUri(uri: string): { repo: string; collection: string; rkey: string } | null {
  const m = /^at:\/\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(uri);
  return m ? { repo: m[1]!, collection: m[2]!, rkey: m[3]! } : null;
}

export const rkeyFromUri = (uri: string) => uri.slice(uri.lastIndexOf("/") + 1);

/** `https://bsky.app/profile/{handle-or-did}/post/{rkey}`. */
export function postUrl(actor: string, uri: string): string {
  return `https://bsky.app/profile/${actor}/post/${rkeyFromUri(uri)}`;
}

export const atUri = (did: string, rkey: string) => `at://${did}/app.bsky.feed.post/${rkey}`;

/** Labels of decisions §11: Likes, Reposts, Quotes, Replies. */
export function metricsFromPostView(post: PostView): Metric[] {
  return [
    { label: "Likes", value: post.likeCount ?? 0 },
    { label: "Reposts", value: post.repostCount ?? 0 },
    { label: "Quotes", value: post.quoteCount ?? 0 },
    { label: "Replies", value: post.replyCount ?? 0 },
  ];
}

/** `exp` of a JWT in epoch ms, or null (the access JWT's lifetime drives proactive refresh). */
export function jwtExpiresAt(jwt: string | undefined): number | null {
  const payload = jwt?.split(".")[1];
  if (!payload) return null;
  try {
    const json = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/"))) as { exp?: unknown };
    return typeof json.exp === "number" ? json.exp * 1000 : null;
  } catch {
    return null;
  }
}
