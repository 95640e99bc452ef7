/**
 * What a network that pulls images by URL (Instagram, Threads, Facebook photos, Pinterest, TikTok photos) finds at
 * the URL it was given, and whether it takes it (issue 16). In tests MEDIA_URL is https://media.test, so the file
 * behind `https://media.test/<key>` is the R2 object `<key>` — what the network's own fetch of our public URL
 * would download. The limits are each network's documented ones (docs/media-rules.md, "Sources"):
 * the fakes refuse a file past them with the network's own error, so a test proves the fitted variant was sent.
 *
 * Lenient where nothing can be judged: a URL with no object behind it, or bytes whose type or size cannot be read
 * (the adapter tests use placeholder bytes), is taken as before. Whatever can be measured is checked.
 */
import { env } from "cloudflare:workers";
import { InvalidVideoError, r2RangeReader, readMp4Info } from "../../../src/media/mp4-info";
import { detectType, readDimensions } from "../../../src/media/sniff";

const MB = 1024 * 1024;

export interface PullLimits {
  /** Accepted types (by the bytes, not the name). */
  formats: readonly string[];
  maxBytes: number;
  maxWidth?: number;
  maxHeight?: number;
  maxPixels?: number;
  /** Width / height, inclusive. */
  minAspect?: number;
  maxAspect?: number;
}

export const PULL_LIMITS = {
  // JPEG only, < 8 MiB, aspect 4:5 – 1.91:1 (feed and carousel images; stories take any ratio).
  instagram: { formats: ["image/jpeg"], maxBytes: 8 * MB, minAspect: 0.8, maxAspect: 1.91 },
  instagramStory: { formats: ["image/jpeg"], maxBytes: 8 * MB },
  // JPEG/PNG, 8 MB, aspect up to 10:1, width 320–1440 (larger is scaled down, not refused).
  threads: { formats: ["image/jpeg", "image/png"], maxBytes: 8 * MB, minAspect: 0.1, maxAspect: 10 },
  // Page photos: JPEG, BMP, PNG, GIF, TIFF; 4 MB.
  facebook: { formats: ["image/jpeg", "image/png", "image/gif"], maxBytes: 4 * MB },
  // Image Pins: 20 MB.
  pinterest: { formats: ["image/jpeg", "image/png", "image/webp", "image/gif"], maxBytes: 20 * MB },
  // Photo posts: WebP or JPEG, at most 1080p, 20 MB.
  tiktok: {
    formats: ["image/jpeg", "image/webp"],
    maxBytes: 20 * MB,
    maxWidth: 1920,
    maxHeight: 1920,
    maxPixels: 1920 * 1080,
  },
} as const satisfies Record<string, PullLimits>;

export interface PulledImage {
  key: string;
  size: number;
  mime: string | null;
  width: number | null;
  height: number | null;
}

/** The file behind a media URL, as the network downloads it; null when there is none. */
export async function pullImage(url: unknown): Promise<PulledImage | null> {
  if (typeof url !== "string" || !url.startsWith("https://media.test/")) return null;
  const key = decodeURIComponent(new URL(url).pathname.slice(1));
  const object = await env.MEDIA_BUCKET.get(key);
  if (!object) return null;
  const bytes = new Uint8Array(await object.arrayBuffer());
  const type = detectType(bytes.subarray(0, 64));
  const dims = type?.kind === "image" ? readDimensions(type.mime, bytes) : null;
  return {
    key,
    size: bytes.length,
    mime: type?.mime ?? null,
    width: dims?.width ?? null,
    height: dims?.height ?? null,
  };
}

export type PullRefusal = "format" | "size" | "dimensions" | "aspect";

/** Why the network refuses the file behind `url` (null when it takes it, or when nothing can be judged). */
export async function pulledImageRefusal(url: unknown, limits: PullLimits): Promise<PullRefusal | null> {
  const file = await pullImage(url);
  if (!file) return null;
  if (file.mime && !limits.formats.includes(file.mime)) return "format";
  if (file.size > limits.maxBytes) return "size";
  if (file.width === null || file.height === null) return null;
  const [w, h] = [file.width, file.height];
  if (w > (limits.maxWidth ?? Infinity) || h > (limits.maxHeight ?? Infinity) || w * h > (limits.maxPixels ?? Infinity))
    return "dimensions";
  const aspect = w / h;
  if (aspect < (limits.minAspect ?? 0) - 1e-3 || aspect > (limits.maxAspect ?? Infinity) + 1e-3) return "aspect";
  return null;
}

// --- Videos pulled by URL ------------------------------------------------------------------------------------

/**
 * What a network that pulls videos by URL (Instagram reels/stories/carousel videos, Threads, Facebook videos, reels
 * and video stories, TikTok PULL_FROM_URL) refuses, from each network's own documentation (docs/media-rules.md,
 * "What the fakes check"). Kept apart from src/catalog/media-specs.ts on purpose: the fakes are the networks, and
 * test/publishing/url-pull-video-limits.test.ts shows that the catalog refuses at schedule time every file these
 * refuse.
 */
export interface VideoPullLimits {
  formats: readonly string[];
  maxBytes: number;
  minBytes?: number;
  minSeconds?: number;
  maxSeconds?: number;
  /** Width / height as displayed, inclusive. */
  minAspect?: number;
  maxAspect?: number;
  /** Pixels, whatever the orientation: the shorter side at least, the longer side at least / at most. */
  minShortSide?: number;
  minLongSide?: number;
  maxLongSide?: number;
}

const MP4_MOV = ["video/mp4", "video/quicktime"] as const;
const GB = 1024 * MB;

/** Facebook reels and video stories: 1 GB, 3 s to `maxSeconds`, 9:16, at least 540 × 960. */
const facebookVertical = (maxSeconds: number): VideoPullLimits => ({
  formats: MP4_MOV,
  maxBytes: GB,
  minSeconds: 3,
  maxSeconds,
  minAspect: 9 / 16 - 0.0125,
  maxAspect: 9 / 16 + 0.0125,
  minShortSide: 540,
  minLongSide: 960,
});

export const VIDEO_PULL_LIMITS = {
  // Instagram `POST /{ig-user-id}/media`, reel specifications (feed and carousel videos publish as reels):
  // MOV/MP4, 3 s – 15 min, aspect 0.01:1 – 10:1, 300 MB.
  instagramReel: {
    formats: MP4_MOV,
    maxBytes: 300 * MB,
    minSeconds: 3,
    maxSeconds: 900,
    minAspect: 0.01,
    maxAspect: 10,
  },
  // Story videos: 3 – 60 s, 100 MB.
  instagramStory: {
    formats: MP4_MOV,
    maxBytes: 100 * MB,
    minSeconds: 3,
    maxSeconds: 60,
    minAspect: 0.01,
    maxAspect: 10,
  },
  // Threads media specifications: MOV/MP4, 1 GB, at most 5 minutes, aspect 0.01:1 – 10:1.
  threads: { formats: MP4_MOV, maxBytes: GB, maxSeconds: 300, minAspect: 0.01, maxAspect: 10 },
  // Facebook Page videos (`POST /{page-id}/videos` with `file_url`): 10 GB, 240 minutes.
  facebookVideo: { formats: MP4_MOV, maxBytes: 10 * GB, maxSeconds: 240 * 60 },
  // Reels Publishing API: 9:16, at least 540 × 960, 3 – 90 s (Meta names no tolerance on 9:16; ±0.0125 here).
  facebookReel: facebookVertical(90),
  // Page video stories: as reels, at most 60 s.
  facebookStory: facebookVertical(60),
  // TikTok media transfer guide, video restrictions: MP4/WebM/MOV, 360 – 4096 px per side, 4 GB; the duration is
  // the creator's `max_video_post_duration_sec` (the fake's creator: 600 s).
  tiktok: { formats: MP4_MOV, maxBytes: 4 * GB, maxSeconds: 600, minShortSide: 360, maxLongSide: 4096 },
} as const satisfies Record<string, VideoPullLimits>;

/** A downloaded video as the network measures it; null fields could not be read. */
export interface PulledVideo {
  size: number;
  mime: string | null;
  width: number | null;
  height: number | null;
  durationSeconds: number | null;
}

export type VideoRefusal = "format" | "size" | "duration" | "aspect" | "dimensions";

/** Videos the URL-pull fakes downloaded while `recordPulls` is on: the URL and the whole file, in order. */
let pulls: Array<{ url: string; bytes: Uint8Array }> | null = null;

/**
 * Keeps every video a URL-pull fake (Facebook, Instagram, Threads, TikTok PULL_FROM_URL) downloads from now on,
 * whole, so a test can compare what the network got with the file; `stop()` ends it.
 */
export function recordPulls(): { pulls: Array<{ url: string; bytes: Uint8Array }>; stop: () => void } {
  const list: Array<{ url: string; bytes: Uint8Array }> = [];
  pulls = list;
  return {
    pulls: list,
    stop: () => {
      if (pulls === list) pulls = null;
    },
  };
}

/** The file behind a media URL, measured from its container by ranged reads; null when there is none. */
export async function pullVideo(url: unknown): Promise<PulledVideo | null> {
  if (typeof url !== "string" || !url.startsWith("https://media.test/")) return null;
  const key = decodeURIComponent(new URL(url).pathname.slice(1));
  if (pulls) {
    const whole = await env.MEDIA_BUCKET.get(key);
    if (whole) pulls.push({ url, bytes: new Uint8Array(await whole.arrayBuffer()) });
  }
  const head = await env.MEDIA_BUCKET.get(key, { range: { offset: 0, length: 64 } });
  if (!head) return null;
  const size = head.size;
  const type = detectType(new Uint8Array(await head.arrayBuffer()));
  const file: PulledVideo = { size, mime: type?.mime ?? null, width: null, height: null, durationSeconds: null };
  if (type?.kind !== "video") return file;
  try {
    const info = await readMp4Info(r2RangeReader(env.MEDIA_BUCKET, key), size);
    return { ...file, width: info.width, height: info.height, durationSeconds: info.durationSeconds };
  } catch (e) {
    if (e instanceof InvalidVideoError) return file;
    throw e;
  }
}

/** Why a network with these limits refuses this video (null when it takes it). Unknown values are not judged. */
export function videoRefusal(file: PulledVideo, limits: VideoPullLimits): VideoRefusal | null {
  if (file.mime && !limits.formats.includes(file.mime)) return "format";
  if (file.size > limits.maxBytes || file.size < (limits.minBytes ?? 0)) return "size";
  const s = file.durationSeconds;
  if (s !== null && (s < (limits.minSeconds ?? 0) || s > (limits.maxSeconds ?? Infinity))) return "duration";
  if (file.width === null || file.height === null) return null;
  const [short, long] = [Math.min(file.width, file.height), Math.max(file.width, file.height)];
  if (short < (limits.minShortSide ?? 0) || long < (limits.minLongSide ?? 0) || long > (limits.maxLongSide ?? Infinity))
    return "dimensions";
  const aspect = file.width / file.height;
  if (aspect < (limits.minAspect ?? 0) || aspect > (limits.maxAspect ?? Infinity)) return "aspect";
  return null;
}

/**
 * Why the network refuses the video behind `url` (null when it takes it). Lenient where nothing can be judged, as
 * for images: no object behind the URL (adapter tests with made-up URLs) or bytes that are no video container
 * (adapter tests store a few placeholder bytes as "video"). Every stored video is MP4 or MOV, which every one of
 * these networks takes, so the format rule can only catch a container this list does not name.
 */
export async function pulledVideoRefusal(url: unknown, limits: VideoPullLimits): Promise<VideoRefusal | null> {
  const file = await pullVideo(url);
  if (!file?.mime?.startsWith("video/")) return null;
  return videoRefusal(file, limits);
}

/**
 * Videos uploaded as bytes whose fake measures them too. LinkedIn Videos API: MP4, 3 s – 30 min, 75 KB – 500 MB,
 * aspect 1:2.4 – 2.4:1 (the 75 KB taken as 75 × 1024 bytes).
 */
export const VIDEO_UPLOAD_LIMITS = {
  linkedin: {
    formats: ["video/mp4"],
    maxBytes: 500 * MB,
    minBytes: 75 * 1024,
    minSeconds: 3,
    maxSeconds: 30 * 60,
    minAspect: 1 / 2.4,
    maxAspect: 2.4,
  },
} as const satisfies Record<string, VideoPullLimits>;

/** A video held in memory (uploaded bytes), measured as pullVideo measures a stored one. */
export async function measureVideo(bytes: Uint8Array): Promise<PulledVideo> {
  const type = detectType(bytes.subarray(0, 64));
  const file: PulledVideo = {
    size: bytes.length,
    mime: type?.mime ?? null,
    width: null,
    height: null,
    durationSeconds: null,
  };
  if (type?.kind !== "video") return file;
  try {
    const info = await readMp4Info(async (offset, length) => bytes.subarray(offset, offset + length), bytes.length);
    return { ...file, width: info.width, height: info.height, durationSeconds: info.durationSeconds };
  } catch (e) {
    if (e instanceof InvalidVideoError) return file;
    throw e;
  }
}
