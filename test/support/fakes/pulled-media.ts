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
