import { checkMediaRules, type RuleMedia } from "./media-rules";
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
}

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
  const spec = platformSpec(input.platform);
  return {
    content_length: contentLength(input.platform, input.content ?? ""),
    max_content_length: spec.max_content_length,
    media_count: input.media.length,
    max_media_count: isContentType(input.contentType) ? contentTypeSpec(input.contentType).max_media_count : 0,
  };
}

export function contentTooLongMessage(phase: RulePhase, label: string, max: number, length: number): string {
  return phase === "schedule"
    ? `${label}: too long by ${plural(length - max, "character")} (max ${max}).`
    : `Content exceeds ${label} limit of ${max} characters (${length} provided).`;
}

/** Every length and media problem of one target; empty when it fits. */
export function checkPlatformRules(input: RuleInput, phase: RulePhase = "schedule"): RuleProblem[] {
  const problems: RuleProblem[] = [];
  const spec = platformSpec(input.platform);
  const length = contentLength(input.platform, input.content ?? "");
  if (length > spec.max_content_length) {
    problems.push({
      field: "content",
      message: contentTooLongMessage(phase, spec.label, spec.max_content_length, length),
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
  if (type.requires_media && count === 0) {
    problems.push({ field: "media", message: `${what} requires at least one media item.` });
  }
  if (count > type.max_media_count) {
    problems.push({
      field: "media",
      message: `${what} allows at most ${plural(type.max_media_count, "media item")} (${count} attached).`,
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
  for (const message of checkMediaRules(what, type.value, type.max_media_count, input.media)) {
    problems.push({ field: "media", message });
  }
  return problems;
}
