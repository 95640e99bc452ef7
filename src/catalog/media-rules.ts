import {
  type AccountMediaLimits,
  accountMediaRules,
  type ImageRules,
  type MediaRules,
  type VideoRules,
} from "./media-specs";
import { contentTypeFitsPlatform, contentTypeSpec, platformSpec } from "./platforms";

/**
 * The media a rule looks at. Only `type` is always known; a field that is missing or null (a media row stored
 * before the field existed, or a caller that did not load it) skips the rules that need it — the network then
 * decides at publish time, as before.
 */
export interface RuleMedia {
  type: string;
  mimeType?: string | null;
  size?: number | null;
  width?: number | null;
  height?: number | null;
  durationSeconds?: number | null;
  originalFilename?: string | null;
  /** Issue 29: the item's alt text, checked against each network's limit (src/catalog/alt-text.ts). */
  alt?: string | null;
}

const MB = 1024 * 1024;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** "5 MB" for whole mebibytes (as the networks document them), else the exact count: "1,000,000 bytes". */
export function formatBytes(bytes: number): string {
  return bytes % MB === 0 ? `${bytes / MB} MB` : `${bytes.toLocaleString("en-US")} bytes`;
}

const ratioNames: [number, string][] = [
  [4 / 5, "4:5"],
  [9 / 16, "9:16"],
  [1, "1:1"],
  [1 / 2, "1:2"],
  [1 / 2.4, "1:2.4"],
];
/** 0.8 → "4:5", 1.91 → "1.91:1". */
function formatRatio(r: number): string {
  const named = ratioNames.find(([v]) => Math.abs(v - r) < 1e-9);
  return named ? named[1] : `${Number(r.toFixed(2))}:1`;
}

const formatNames: Record<string, string> = {
  "image/jpeg": "JPEG",
  "image/png": "PNG",
  "image/gif": "GIF",
  "image/webp": "WebP",
  "video/mp4": "MP4",
  "video/quicktime": "MOV",
};
const formatName = (mime: string) => formatNames[mime] ?? mime;
const formatList = (mimes: readonly string[]) => mimes.map(formatName).join(", ");
const seconds = (s: number) => `${Number(s.toFixed(2))} s`;

function rangeText(min: number | null, max: number | null, fmt: (n: number) => string): string {
  if (min !== null && max !== null) return `between ${fmt(min)} and ${fmt(max)}`;
  if (max !== null) return `at most ${fmt(max)}`;
  return `at least ${fmt(min as number)}`;
}

const known = (n: number | null | undefined): n is number => typeof n === "number" && Number.isFinite(n) && n > 0;
const outside = (v: number, min: number | null, max: number | null) =>
  (min !== null && v < min - 1e-9) || (max !== null && v > max + 1e-9);

const fileName = (m: RuleMedia, i: number) => m.originalFilename || `media item ${i + 1}`;

/**
 * Every media problem of one target that fitting cannot repair, worded `<Platform>: <Type> …`, naming the file.
 * Images over a byte or pixel limit are not problems: they are fitted at publish time (src/media/variants.ts).
 * The caller has already checked the total count and the media kinds (src/catalog/rules.ts); kinds the content
 * type refuses are skipped here so each problem is reported once.
 */
export function checkMediaRules(
  what: string,
  contentType: string,
  maxMediaCount: number,
  media: readonly RuleMedia[],
  limits?: AccountMediaLimits,
): string[] {
  const rules = accountMediaRules(contentType, limits);
  if (!rules) return [];
  const problems: string[] = [];
  problems.push(...checkMix(what, rules, maxMediaCount, media));
  media.forEach((m, i) => {
    problems.push(...fileProblems(what, rules, m, fileName(m, i)));
  });
  return problems;
}

/**
 * The rules about one file alone (format, size, duration, ratio, GIF) for one target, with the account's own
 * server limits when it has some (a Mastodon instance's): what the media endpoints check when a file is added to a
 * post (issue 16). Counts and mixes are left to schedule time, when the list is final. Kinds the content type
 * refuses are the endpoints' own acceptance check.
 */
export function checkFileRules(
  platform: string,
  contentType: string,
  m: RuleMedia,
  limits?: AccountMediaLimits,
): string[] {
  const rules = accountMediaRules(contentType, limits);
  if (!rules || !contentTypeFitsPlatform(platform, contentType)) return [];
  const what = `${platformSpec(platform).label}: ${contentTypeSpec(contentType).label}`;
  return fileProblems(what, rules, m, fileName(m, 0));
}

/** One file's problems under one target's rules: the same at schedule time and when the file is added. */
function fileProblems(what: string, rules: MediaRules, m: RuleMedia, name: string): string[] {
  if (m.type === "image") return checkImage(what, rules, m, name);
  if (m.type === "video" && rules.video) return checkVideo(what, rules.video, m, name);
  return [];
}

function checkMix(what: string, rules: MediaRules, maxMediaCount: number, media: readonly RuleMedia[]): string[] {
  const problems: string[] = [];
  const images = media.filter((m) => m.type === "image").length;
  const videos = media.filter((m) => m.type === "video").length;
  const gifs = media.filter((m) => m.type === "image" && m.mimeType === "image/gif").length;
  // With a cap of one item the count rule already says it all.
  const canMix = maxMediaCount > 1 && rules.image !== null && rules.video !== null;
  if (canMix && !rules.mix_images_and_videos && images > 0 && videos > 0) {
    problems.push(
      `${what} cannot combine images and videos (${plural(images, "image")} and ${plural(videos, "video")} attached).`,
    );
  }
  // A per-kind cap equal to the total cap is already reported by the count rule.
  if (rules.video && rules.max_videos < maxMediaCount && videos > rules.max_videos) {
    problems.push(`${what} allows at most ${plural(rules.max_videos, "video")} (${videos} attached).`);
  }
  if (rules.image && rules.max_images < maxMediaCount && images > rules.max_images) {
    problems.push(`${what} allows at most ${plural(rules.max_images, "image")} (${images} attached).`);
  }
  if (rules.gif?.alone && gifs > 0 && media.length > 1) {
    problems.push(`${what} allows a GIF only on its own (${plural(media.length, "media item")} attached).`);
  }
  return problems;
}

function checkImage(what: string, rules: MediaRules, m: RuleMedia, name: string): string[] {
  if (m.mimeType === "image/gif") {
    if (!rules.gif) return rules.image ? [`${what} does not accept GIF images (${name}).`] : [];
    const max = rules.gif.max_bytes;
    if (max !== null && known(m.size) && m.size > max) {
      return [
        `${what} accepts GIFs of at most ${formatBytes(max)}; ${name} is ${formatBytes(m.size)} (GIFs are not re-encoded).`,
      ];
    }
    return [];
  }
  if (!rules.image) return [];
  return checkImageAspect(what, rules.image, m, name);
}

function checkImageAspect(what: string, rules: ImageRules, m: RuleMedia, name: string): string[] {
  if (!known(m.width) || !known(m.height)) return [];
  const ratio = m.width / m.height;
  if (!outside(ratio, rules.min_aspect_ratio, rules.max_aspect_ratio)) return [];
  const range = rangeText(rules.min_aspect_ratio, rules.max_aspect_ratio, formatRatio);
  return [`${what} needs images with an aspect ratio ${range}; ${name} is ${m.width}×${m.height}.`];
}

function checkVideo(what: string, rules: VideoRules, m: RuleMedia, name: string): string[] {
  const problems: string[] = [];
  if (m.mimeType && !rules.formats.includes(m.mimeType)) {
    problems.push(`${what} accepts only ${formatList(rules.formats)} video; ${name} is ${formatName(m.mimeType)}.`);
  }
  if (rules.max_bytes !== null && known(m.size) && m.size > rules.max_bytes) {
    problems.push(
      `${what} accepts videos of at most ${formatBytes(rules.max_bytes)}; ${name} is ${formatBytes(m.size)}.`,
    );
  }
  if (rules.min_bytes !== null && known(m.size) && m.size < rules.min_bytes) {
    problems.push(
      `${what} accepts videos of at least ${formatBytes(rules.min_bytes)}; ${name} is ${formatBytes(m.size)}.`,
    );
  }
  if (known(m.durationSeconds) && outside(m.durationSeconds, rules.min_duration_seconds, rules.max_duration_seconds)) {
    const range = rangeText(rules.min_duration_seconds, rules.max_duration_seconds, seconds);
    problems.push(`${what} needs a video ${range} long; ${name} is ${seconds(m.durationSeconds)}.`);
  }
  if (known(m.width) && known(m.height)) {
    const ratio = m.width / m.height;
    if (outside(ratio, rules.min_aspect_ratio, rules.max_aspect_ratio)) {
      const range = rangeText(rules.min_aspect_ratio, rules.max_aspect_ratio, formatRatio);
      problems.push(`${what} needs a video aspect ratio ${range}; ${name} is ${m.width}×${m.height}.`);
    }
    // Videos are never transcoded, so a pixel limit (Mastodon's `video_matrix_limit`) refuses.
    if (rules.max_pixels !== null && m.width * m.height > rules.max_pixels) {
      problems.push(
        `${what} accepts videos of at most ${rules.max_pixels.toLocaleString("en-US")} pixels (width × height); ${name} is ${m.width}×${m.height}.`,
      );
    }
    const short = Math.min(m.width, m.height);
    const long = Math.max(m.width, m.height);
    if (rules.min_short_side !== null && short < rules.min_short_side) {
      problems.push(
        `${what} needs a video at least ${rules.min_short_side} pixels on its shorter side; ${name} is ${m.width}×${m.height}.`,
      );
    }
    if (rules.min_long_side !== null && long < rules.min_long_side) {
      problems.push(
        `${what} needs a video at least ${rules.min_long_side} pixels on its longer side; ${name} is ${m.width}×${m.height}.`,
      );
    }
    if (rules.max_long_side !== null && long > rules.max_long_side) {
      problems.push(
        `${what} needs a video at most ${rules.max_long_side} pixels on its longer side; ${name} is ${m.width}×${m.height}.`,
      );
    }
  }
  return problems;
}
