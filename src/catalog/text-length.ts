import type { Platform } from "./platforms";
import { COUNTRY_TLDS, GENERIC_TLDS } from "./tlds";

/**
 * Content length counted the way each platform counts it (decisions §5):
 * - X: twitter-text v3 weighted length — NFC, every URL 23, each emoji sequence 2, code points in
 *   U+0000–U+10FF, U+2000–U+200D, U+2010–U+201F, U+2032–U+2037 weigh 1, everything else 2.
 * - Bluesky: grapheme clusters (Intl.Segmenter), as its lexicon validates `maxGraphemes`.
 * - Mastodon: grapheme clusters, with each http(s) URL counted as the instance's `characters_reserved_per_url`
 *   (23) and a remote mention `@user@domain` as `@user` (Mastodon's StatusLengthValidator: `each_grapheme_cluster`).
 * - Threads: code points, except that each emoji counts its UTF-8 bytes (Threads API "Posts": "Emojis are counted
 *   as the number of UTF-8 bytes").
 * - TikTok: UTF-16 code units (Content Posting API: "2200 UTF-16 runes").
 * - Everyone else: Unicode code points.
 *
 * Why not the npm `twitter-text` package: it pulls core-js 2 (global polyfills), punycode and twemoji-parser
 * (an Emoji 11 regex that splits newer ZWJ sequences), ≈600 KB unbundled. The URL grammar below is a port of its
 * `extractUrl` regex (Apache-2.0, Copyright 2018 Twitter, Inc.) and emoji use the engine's `\p{RGI_Emoji}`.
 * test/catalog/text-length.test.ts checks the port against values computed with twitter-text 3.1.0.
 */

// --- URL grammar (twitter-text regexp/*.js) ---
const PUNCT = String.raw`\!'#%&'\(\)*\+,\\\-\.\/:;<=>\?@\[\]\^_{|}~\$`;
const SPACES = String.raw`\x09-\x0D\x20\x85\xA0\u1680\u180E\u2000-\u200A\u2028\u2029\u202F\u205F\u3000`;
const INVALID_CHARS = String.raw`\uFFFE\uFEFF\uFFFF`;
const DIRECTIONAL = String.raw`\u202A-\u202E\u061C\u200E\u200F\u2066\u2067\u2068\u2069`;
const CYRILLIC = String.raw`\u0400-\u04FF`;
const LATIN_ACCENTS = String.raw`\xC0-\xD6\xD8-\xF6\xF8-\xFF\u0100-\u024F\u0253\u0254\u0256\u0257\u0259\u025B\u0263\u0268\u026F\u0272\u0289\u028B\u02BB\u0300-\u036F\u1E00-\u1EFF`;

const TLD_END = "(?=[^0-9a-zA-Z@+-]|$)";
const GTLD = `(?:(?:${GENERIC_TLDS})${TLD_END})`;
const CCTLD = `(?:(?:${COUNTRY_TLDS})${TLD_END})`;
const PUNYCODE = String.raw`(?:xn--[\-0-9a-z]+)`;

const PRECEDING = `(?:[^A-Za-z0-9@＠$#＃${INVALID_CHARS}]|[${DIRECTIONAL}]|^)`;
const DOMAIN_CHAR = `[^${PUNCT}${SPACES}${INVALID_CHARS}${DIRECTIONAL}]`;
// Bounded to what DNS allows (RFC 1035: labels of at most 63 octets, at most 127 labels). twitter-text's unbounded
// `*` here made the scan quadratic: every start inside a long run of label characters re-scanned the run
// (10,000 "é" + "." cost ≈ 270 ms). With the bounds each start scans at most one host name. A match that starts
// inside a longer run is dropped in `extractUrls` (twitter-text would have matched from the run's start and then
// refused the over-long label), so counts stay those of twitter-text for every valid host name.
const MAX_LABEL_CHARS = 63;
const MAX_LABELS = 127;
const SUBDOMAIN = `(?:(?:${DOMAIN_CHAR}(?:[_-]|${DOMAIN_CHAR}){0,${MAX_LABEL_CHARS - 2}})?${DOMAIN_CHAR}\\.)`;
const DOMAIN_NAME = `(?:(?:${DOMAIN_CHAR}(?:-|${DOMAIN_CHAR}){0,${MAX_LABEL_CHARS - 2}})?${DOMAIN_CHAR}\\.)`;
const DOMAIN = `(?:${SUBDOMAIN}{0,${MAX_LABELS - 2}}${DOMAIN_NAME}(?:${GTLD}|${CCTLD}|${PUNYCODE}))`;
const PATH_CHAR = `[a-z${CYRILLIC}0-9!\\*';:=\\+,\\.\\$\\/%#\\[\\]\\-\\u2013_~@\\|&${LATIN_ACCENTS}]`;
const BALANCED_PARENS = `\\((?:${PATH_CHAR}+|(?:${PATH_CHAR}*\\(${PATH_CHAR}+\\)${PATH_CHAR}*))\\)`;
const PATH_END = `(?:[\\+\\-a-z${CYRILLIC}0-9=_#\\/${LATIN_ACCENTS}]|(?:${BALANCED_PARENS}))`;
const PATH = `(?:(?:${PATH_CHAR}*(?:${BALANCED_PARENS}${PATH_CHAR}*)*${PATH_END})|(?:@${PATH_CHAR}+\\/))`;
const QUERY_CHAR = String.raw`[a-z0-9!?\*'@\(\);:&=\+\$\/%#\[\]\-_\.,~|]`;
const QUERY_END = String.raw`[a-z0-9\-_&=#\/]`;

/** $1 preceding char, $2 URL, $3 protocol, $4 domain, $5 port, $6 path, $7 query. */
const EXTRACT_URL_SOURCE = `(${PRECEDING})((https?:\\/\\/)?(${DOMAIN})(?::([0-9]+))?(\\/${PATH}*)?(\\?${QUERY_CHAR}*${QUERY_END})?)`;
const ASCII_DOMAIN_SOURCE = `(?:(?:[\\-a-z0-9${LATIN_ACCENTS}]+)\\.)+(?:${GTLD}|${CCTLD}|${PUNYCODE})`;
const TCO_URL = new RegExp(`^https?:\\/\\/t\\.co\\/([a-z0-9]+)(?:\\?${QUERY_CHAR}*${QUERY_END})?`, "i");
const INVALID_BEFORE_BARE_URL = /[-_./]$/;
const MAX_URL_LENGTH = 4096;
const MAX_TCO_SLUG_LENGTH = 40;

let extractUrlRe: RegExp | null = null;
let asciiDomainRe: RegExp | null = null;

export interface UrlSpan {
  url: string;
  /** UTF-16 offsets, end exclusive. */
  start: number;
  end: number;
}

/** Length of the domain in punycode, or null when it is not a valid IDNA name (twitter-text's idna.toAscii). */
function punycodeLength(domain: string): number | null {
  let ascii = domain;
  if ([...domain].some((ch) => ch.charCodeAt(0) > 0x7f)) {
    try {
      ascii = new URL(`http://${domain}`).hostname;
    } catch {
      return null;
    }
  }
  // DNS labels are 1–63 octets.
  if (ascii.split(".").some((label) => label.length > 63)) return null;
  return ascii.length;
}

let domainCharRe: RegExp | null = null;
let precedingRe: RegExp | null = null;

/**
 * Whether the host starting at `hostStart` is the tail of a longer run of host characters (labels and dots) in which
 * twitter-text's unbounded pattern would have started earlier: at a host character whose preceding character the
 * pattern accepts. That earlier match had a label over 63 characters or over 127 labels — not a host name — so the
 * bounded match is not a URL either. Linear in the run, and runs are only walked for matches.
 */
function startsInsideLongerHost(text: string, hostStart: number): boolean {
  domainCharRe ??= new RegExp(`^${DOMAIN_CHAR}$`);
  precedingRe ??= new RegExp(`^${PRECEDING.replace("|^)", ")")}$`);
  for (let i = hostStart - 1; i >= 0; i--) {
    const ch = text[i] as string;
    if (ch !== "." && ch !== "-" && ch !== "_" && !domainCharRe.test(ch)) return false;
    if (domainCharRe.test(ch) && (i === 0 || precedingRe.test(text[i - 1] as string))) return true;
  }
  return false;
}

/** URLs in `text` as twitter-text's extractUrlsWithIndices finds them (with or without a protocol). */
export function extractUrls(text: string, opts: { withoutProtocol?: boolean } = {}): UrlSpan[] {
  const withoutProtocol = opts.withoutProtocol ?? true;
  if (!text || (withoutProtocol ? !text.includes(".") : !text.includes(":"))) return [];
  // Compiled on first use: the TLD alternation is large and most requests never count text.
  extractUrlRe ??= new RegExp(EXTRACT_URL_SOURCE, "gi");
  asciiDomainRe ??= new RegExp(ASCII_DOMAIN_SOURCE, "gi");
  const re = new RegExp(extractUrlRe.source, "gi");
  const spans: UrlSpan[] = [];
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const before = m[1] ?? "";
    let url = m[2] ?? "";
    const protocol = m[3];
    const domain = m[4] ?? "";
    const path = m[6];
    let end = re.lastIndex;
    const start = end - url.length;
    if (startsInsideLongerHost(text, end - url.length + (protocol?.length ?? 0))) continue;
    const asciiLength = punycodeLength(domain);
    if (asciiLength === null || asciiLength === 0) continue;
    if ((protocol ?? "https://").length + url.length + asciiLength - domain.length > MAX_URL_LENGTH) continue;
    if (!protocol) {
      if (!withoutProtocol || INVALID_BEFORE_BARE_URL.test(before)) continue;
      let last: UrlSpan | null = null;
      let asciiEnd = 0;
      for (const d of domain.matchAll(new RegExp(asciiDomainRe.source, "gi"))) {
        const asciiStart = domain.indexOf(d[0], asciiEnd);
        asciiEnd = asciiStart + d[0].length;
        last = { url: d[0], start: start + asciiStart, end: start + asciiEnd };
        spans.push(last);
      }
      if (!last) continue;
      if (path) {
        last.url = url.replace(domain, last.url);
        last.end = end;
      }
    } else {
      const tco = TCO_URL.exec(url);
      if (tco) {
        if (tco[1] && tco[1].length > MAX_TCO_SLUG_LENGTH) continue;
        url = tco[0];
        end = start + url.length;
      }
      spans.push({ url, start, end });
    }
  }
  return spans;
}

// --- Weighted counting ---
export const URL_LENGTH = 23;
const X_SCALE = 100;
const X_DEFAULT_WEIGHT = 200;
const X_LIGHT_RANGES: readonly [number, number][] = [
  [0, 4351],
  [8192, 8205],
  [8208, 8223],
  [8242, 8247],
];
const EMOJI = /\p{RGI_Emoji}/gv;

const codePointLength = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** X's weighted length (twitter-text v3 `parseTweet(...).weightedLength`). */
export function xWeightedLength(text: string): number {
  const normalized = text.normalize("NFC");
  const urlAt = new Map<number, number>();
  for (const u of extractUrls(normalized)) urlAt.set(u.start, u.end);
  const emojiAt = new Map<number, number>();
  for (const e of normalized.matchAll(EMOJI)) emojiAt.set(e.index, e.index + e[0].length);
  let weighted = 0;
  for (let i = 0; i < normalized.length; ) {
    const urlEnd = urlAt.get(i);
    if (urlEnd !== undefined) {
      weighted += URL_LENGTH * X_SCALE;
      i = urlEnd;
      continue;
    }
    const emojiEnd = emojiAt.get(i);
    if (emojiEnd !== undefined) {
      weighted += X_DEFAULT_WEIGHT;
      i = emojiEnd;
      continue;
    }
    const cp = normalized.codePointAt(i) ?? 0;
    const light = X_LIGHT_RANGES.some(([lo, hi]) => cp >= lo && cp <= hi);
    weighted += light ? X_SCALE : X_DEFAULT_WEIGHT;
    i += cp > 0xffff ? 2 : 1;
  }
  return weighted / X_SCALE;
}

let segmenter: Intl.Segmenter | null = null;
/** Grapheme clusters, as Bluesky counts `maxGraphemes`. */
export function graphemeLength(text: string): number {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  let n = 0;
  for (const _ of segmenter.segment(text)) n++;
  return n;
}

const REMOTE_MENTION = /(^|[^\p{L}\p{N}_/])@([a-z0-9_]+(?:[a-z0-9_.-]+[a-z0-9_]+)?)@[a-z0-9.-]+[a-z0-9]/giu;

/**
 * Mastodon: grapheme clusters, each http(s) URL as `urlLength` (the instance's `characters_reserved_per_url`,
 * 23 on Mastodon) and `@user@domain` as `@user`.
 */
export function mastodonLength(text: string, urlLength = URL_LENGTH): number {
  let countable = "";
  let last = 0;
  for (const u of extractUrls(text, { withoutProtocol: false })) {
    countable += text.slice(last, u.start) + "x".repeat(urlLength);
    last = u.end;
  }
  countable += text.slice(last);
  return graphemeLength(countable.replace(REMOTE_MENTION, "$1@$2"));
}

const utf8 = new TextEncoder();

/** Threads: code points, each emoji (a whole RGI sequence) counting its UTF-8 bytes. */
export function threadsLength(text: string): number {
  let n = 0;
  let last = 0;
  for (const e of text.matchAll(EMOJI)) {
    n += codePointLength(text.slice(last, e.index)) + utf8.encode(e[0]).byteLength;
    last = e.index + e[0].length;
  }
  return n + codePointLength(text.slice(last));
}

/** What an account's own server says about lengths (Mastodon's instance configuration). */
export interface TextCountOptions {
  /** Characters each URL counts for (Mastodon `characters_reserved_per_url`). */
  urlLength?: number;
}

/** Length of `text` as `platform` counts it. */
export function contentLength(platform: Platform | string, text: string, opts: TextCountOptions = {}): number {
  switch (platform) {
    case "x":
      return xWeightedLength(text);
    case "bluesky":
      return graphemeLength(text);
    case "mastodon":
      return mastodonLength(text, opts.urlLength);
    case "threads":
      return threadsLength(text);
    case "tiktok":
      // UTF-16 code units: what JavaScript's length counts.
      return text.length;
    default:
      return codePointLength(text);
  }
}
