import { altTextProblem } from "./alt-text";
import { checkMediaRules, type RuleMedia } from "./media-rules";
import type { AccountMediaLimits } from "./media-specs";
import { contentTypeFitsPlatform, contentTypeSpec, isContentType, type MediaKind, platformSpec } from "./platforms";
import { contentLength } from "./text-length";

/**
 * THE one place for per-platform length and media rules. Schedule validation (PUT status=scheduled), the preview
 * endpoint and the publish job all call `checkPlatformRules`; only the wording of the length problem differs:
 * - `schedule`: `X: too long by 15 characters (max 280).` (422 `errors.content`, decisions §6)
 * - `publish`:  `Content exceeds X limit of 280 characters (295 provided).` (row `error_message`, decisions §7)
 */
export type RulePhase = "schedule" | "publish";

export interface RuleInput {
  platform: string;
  contentType: string;
  content: string | null | undefined;
  /** Each item's type at least; the media rules use the format, size, dimensions and duration when given. */
  media: readonly RuleMedia[];
  /** What the account's own server says (a Mastodon instance's limits); the catalog's values otherwise. */
  limits?: AccountTextLimits;
}

/**
 * A Mastodon instance's `configuration.statuses` (docs/text-counting.md) and `configuration.media_attachments`
 * byte and pixel limits (docs/media-rules.md) as stored on the account.
 */
export interface AccountTextLimits extends AccountMediaLimits {
  maxContentLength?: number;
  urlLength?: number;
  /** `configuration.statuses.max_media_attachments`: lowers the content type's `max_media_count`, never raises it. */
  maxMediaCount?: number;
  /** `configuration.media_attachments.description_limit`: the alt text's length on this instance. */
  altTextMax?: number;
}

const positiveInt = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isInteger(v) && v > 0 ? v : undefined;

/**
 * The limits stored on an account's `meta` by the Mastodon instance check (`max_characters`,
 * `characters_reserved_per_url`, `max_media_attachments`, `image_size_limit`, `image_matrix_limit`, `video_size_limit`,
 * `video_matrix_limit`, `description_limit`); undefined for other platforms or when never read.
 */
export function accountTextLimits(platform: string, meta: Record<string, unknown> | null | undefined) {
  if (platform !== "mastodon" || !meta) return undefined;
  const limits: AccountTextLimits = {
    maxContentLength: positiveInt(meta.max_characters),
    urlLength: positiveInt(meta.characters_reserved_per_url),
    maxMediaCount: positiveInt(meta.max_media_attachments),
    imageMaxBytes: positiveInt(meta.image_size_limit),
    imageMaxPixels: positiveInt(meta.image_matrix_limit),
    videoMaxBytes: positiveInt(meta.video_size_limit),
    videoMaxPixels: positiveInt(meta.video_matrix_limit),
    altTextMax: positiveInt(meta.description_limit),
  };
  return Object.values(limits).some((v) => v !== undefined) ? limits : undefined;
}

const maxLength = (input: RuleInput) =>
  input.limits?.maxContentLength ?? platformSpec(input.platform).max_content_length;
/**
 * The content type's media cap, lowered to what the account's server takes (a Mastodon instance's
 * `max_media_attachments`); the catalog's cap is the contract, so a larger instance value does not raise it.
 */
const maxMediaCount = (input: RuleInput) =>
  isContentType(input.contentType)
    ? Math.min(
        contentTypeSpec(input.contentType).max_media_count,
        input.limits?.maxMediaCount ?? Number.POSITIVE_INFINITY,
      )
    : 0;
const lengthOf = (input: RuleInput) =>
  contentLength(input.platform, input.content ?? "", { urlLength: input.limits?.urlLength });

export interface RuleProblem {
  field: "content" | "media";
  message: string;
}

export interface RuleMeasure {
  content_length: number;
  max_content_length: number;
  media_count: number;
  max_media_count: number;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

const kindList = (kinds: readonly string[]) => (kinds.length === 1 ? `${kinds[0]}` : kinds.join(" or "));

/** Lengths and caps of one target, counted the way its platform counts. */
export function measurePlatform(input: RuleInput): RuleMeasure {
  return {
    content_length: lengthOf(input),
    max_content_length: maxLength(input),
    media_count: input.media.length,
    max_media_count: maxMediaCount(input),
  };
}

export function contentTooLongMessage(phase: RulePhase, label: string, max: number, length: number): string {
  return phase === "schedule"
    ? `${label}: too long by ${plural(length - max, "character")} (max ${max}).`
    : `Content exceeds ${label} limit of ${max} characters (${length} provided).`;
}

/**
 * Byte caps beside the length a network counts, where it states one. Bluesky's `app.bsky.feed.post` lexicon caps
 * `text` at 300 graphemes (`maxGraphemes`) **and** 3,000 UTF-8 bytes (`maxLength`); the PDS refuses the record past
 * either (`string too big (maximum 3000, got 3761) at $.record.text`): 151 graphemes of 25-byte emoji sequences fit
 * the first and not the second.
 */
export const MAX_CONTENT_BYTES: Readonly<Record<string, number>> = { bluesky: 3000 };

const utf8 = new TextEncoder();
export const utf8Length = (s: string) => utf8.encode(s).byteLength;
const thousands = (n: number) => n.toLocaleString("en-US");

export function contentTooManyBytesMessage(phase: RulePhase, label: string, max: number, bytes: number): string {
  return phase === "schedule"
    ? `${label}: ${thousands(bytes)} bytes exceed ${label}'s ${thousands(max)}-byte limit (UTF-8; too long by ${thousands(bytes - max)} byte${bytes - max === 1 ? "" : "s"}).`
    : `Content exceeds ${label}'s ${thousands(max)}-byte limit (${thousands(bytes)} bytes as UTF-8).`;
}

/**
 * Links per post, where a network caps them: Threads refuses a post with more than 5 unique links at container
 * creation (THREADS_API__LINK_LIMIT_EXCEEDED, since 2025-12-22), so it is refused at schedule time instead.
 */
const MAX_LINKS: Readonly<Record<string, number>> = { threads: 5 };
const LINK_RE = /\b(?:https?:\/\/|www\.)[^\s<>"]+/gi;

/** Unique links in a text (trailing punctuation is not part of a link). */
export function countLinks(text: string): number {
  const links = (text.match(LINK_RE) ?? []).map((l) => l.replace(/[.,;:!?)\]'"]+$/, "").toLowerCase());
  return new Set(links).size;
}

/** Every length and media problem of one target; empty when it fits. */
export function checkPlatformRules(input: RuleInput, phase: RulePhase = "schedule"): RuleProblem[] {
  const problems: RuleProblem[] = [];
  const spec = platformSpec(input.platform);
  const length = lengthOf(input);
  const max = maxLength(input);
  if (length > max) {
    problems.push({ field: "content", message: contentTooLongMessage(phase, spec.label, max, length) });
  }
  const maxBytes = MAX_CONTENT_BYTES[input.platform];
  const bytes = maxBytes === undefined ? 0 : utf8Length(input.content ?? "");
  if (maxBytes !== undefined && bytes > maxBytes) {
    problems.push({ field: "content", message: contentTooManyBytesMessage(phase, spec.label, maxBytes, bytes) });
  }
  const maxLinks = MAX_LINKS[input.platform];
  const links = maxLinks === undefined ? 0 : countLinks(input.content ?? "");
  if (maxLinks !== undefined && links > maxLinks) {
    problems.push({
      field: "content",
      message:
        phase === "schedule"
          ? `${spec.label}: too many links (${links}, max ${maxLinks}).`
          : `Content exceeds ${spec.label} limit of ${maxLinks} links (${links} provided).`,
    });
  }
  if (!isContentType(input.contentType) || !contentTypeFitsPlatform(input.platform, input.contentType)) {
    problems.push({
      field: "media",
      message: `${spec.label}: ${input.contentType} is not a content type of this platform.`,
    });
    return problems;
  }
  const type = contentTypeSpec(input.contentType);
  const what = `${spec.label}: ${type.label}`;
  const count = input.media.length;
  const maxCount = maxMediaCount(input);
  if (type.requires_media && count === 0) {
    problems.push({ field: "media", message: `${what} requires at least one media item.` });
  }
  if (count > maxCount) {
    problems.push({
      field: "media",
      message: `${what} allows at most ${plural(maxCount, "media item")} (${count} attached).`,
    });
  }
  const refused = [
    ...new Set(input.media.map((m) => m.type).filter((t) => !type.allowed_media_types.includes(t as MediaKind))),
  ];
  if (refused.length > 0) {
    problems.push({
      field: "media",
      message: `${what} accepts only ${kindList(type.allowed_media_types)} media (${kindList(refused)} attached).`,
    });
  }
  for (const message of checkMediaRules(what, type.value, maxCount, input.media, input.limits)) {
    problems.push({ field: "media", message });
  }
  input.media.forEach((m, i) => {
    const message = altTextProblem(input.platform, spec.label, i + 1, m.alt, input.limits?.altTextMax);
    if (message) problems.push({ field: "media", message });
  });
  return problems;
}
