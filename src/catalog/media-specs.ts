import { CATALOG, type ContentType } from "./platforms";

/**
 * What each network accepts as media, per content type: the one source for schedule-time checks
 * (src/catalog/media-rules.ts, called by the shared rules), the preview's problems, `GET /api/content-types`
 * (`media_rules` of each content type) and publishing (the image variants of src/media/variants.ts).
 * Every number comes from the network's own documentation; docs/media-rules.md lists them with their sources.
 *
 * Wire names are snake_case because the object is returned as it is by `GET /api/content-types`.
 * `null` means "the network sets no limit here" (our own upload caps still apply).
 */

/** Still images other than GIF. Ours are always stored as JPEG (PNG and WebP are transcoded at upload). */
export interface ImageRules {
  /** Image types the network takes as they are. An image of another type is re-encoded to the first one. */
  formats: string[];
  max_bytes: number | null;
  /** width × height. */
  max_pixels: number | null;
  /** The longer and the shorter side, whatever the orientation ("at most 1080p" = 1920 × 1080). */
  max_long_side: number | null;
  max_short_side: number | null;
  /** width / height; images outside the range are refused (fitting scales, it never crops). */
  min_aspect_ratio: number | null;
  max_aspect_ratio: number | null;
  /** Always true: an image over a byte or pixel limit is downscaled / re-encoded for this network, not refused. */
  fitted: true;
}

/** GIFs are published as they are (never re-encoded, so animation survives) — or refused. */
export interface GifRules {
  max_bytes: number | null;
  /** X: "up to 4 photos, or 1 GIF, or 1 video" — a GIF goes alone. */
  alone: boolean;
}

/** Videos are never transcoded: one that breaks a rule is refused at schedule time. */
export interface VideoRules {
  formats: string[];
  max_bytes: number | null;
  /** The smallest file (LinkedIn: 75 KB). */
  min_bytes: number | null;
  min_duration_seconds: number | null;
  max_duration_seconds: number | null;
  /** width / height as displayed (after the track's rotation). */
  min_aspect_ratio: number | null;
  max_aspect_ratio: number | null;
  /** The shorter side, in pixels. */
  min_short_side: number | null;
  /** The longer side, in pixels (Facebook reels: "minimum is 540 x 960 pixels"). */
  min_long_side: number | null;
  /** The longer side, in pixels. */
  max_long_side: number | null;
  /** width × height (Mastodon's `video_matrix_limit`). */
  max_pixels: number | null;
}

/** The byte and pixel limits an account's own server sets (a Mastodon instance's), over the catalog's. */
export interface AccountMediaLimits {
  imageMaxBytes?: number;
  imageMaxPixels?: number;
  videoMaxBytes?: number;
  videoMaxPixels?: number;
}

export interface MediaRules {
  /** Images (GIFs included) and videos per post; the total stays capped by `max_media_count`. */
  max_images: number;
  max_videos: number;
  /** Whether images and videos may be attached together. */
  mix_images_and_videos: boolean;
  image: ImageRules | null;
  gif: GifRules | null;
  video: VideoRules | null;
}

const MB = 1024 * 1024;
const JPEG = "image/jpeg";
const PNG = "image/png";
const WEBP = "image/webp";
const MP4 = "video/mp4";
const MOV = "video/quicktime";

const image = (r: Partial<ImageRules> & Pick<ImageRules, "formats">): ImageRules => ({
  max_bytes: null,
  max_pixels: null,
  max_long_side: null,
  max_short_side: null,
  min_aspect_ratio: null,
  max_aspect_ratio: null,
  ...r,
  fitted: true,
});

const video = (r: Partial<VideoRules> & Pick<VideoRules, "formats">): VideoRules => ({
  max_bytes: null,
  min_bytes: null,
  min_duration_seconds: null,
  max_duration_seconds: null,
  min_aspect_ratio: null,
  max_aspect_ratio: null,
  min_short_side: null,
  min_long_side: null,
  max_long_side: null,
  max_pixels: null,
  ...r,
});

/**
 * A content type's rules: what it takes, over a base that takes nothing (no images, no videos, no GIFs, no mixing).
 * Key order is the base's, so `GET /api/content-types` lists every content type's fields in the same order.
 */
const NOTHING: MediaRules = {
  max_images: 0,
  max_videos: 0,
  mix_images_and_videos: false,
  image: null,
  gif: null,
  video: null,
};
const rules = (r: Partial<MediaRules>): MediaRules => ({ ...NOTHING, ...r });

// LinkedIn Images API / Videos API: JPG, GIF, PNG below 36,152,320 pixels; MP4, 3 s – 30 min, 75 KB – 500 MB.
const LINKEDIN_IMAGES = {
  image: image({ formats: [JPEG, PNG], max_pixels: 36_152_319 }),
  gif: { max_bytes: null, alone: false },
} satisfies Partial<MediaRules>;
const LINKEDIN_POST = rules({
  max_images: 1,
  max_videos: 1,
  ...LINKEDIN_IMAGES,
  video: video({
    formats: [MP4],
    max_bytes: 500 * MB,
    min_bytes: 75 * 1024,
    min_duration_seconds: 3,
    max_duration_seconds: 30 * 60,
    min_aspect_ratio: 1 / 2.4,
    max_aspect_ratio: 2.4,
  }),
});
const LINKEDIN_CAROUSEL = rules({ max_images: 20, ...LINKEDIN_IMAGES });

// Instagram Graph API, POST /{ig-user-id}/media: images JPEG only, 8 MB, aspect 4:5 – 1.91:1; reels MOV/MP4,
// 3 s – 15 min, 0.01:1 – 10:1, 300 MB; stories video 3 – 60 s, 100 MB. Videos in feed and carousel posts are
// published as reels, so they follow the reel rules.
const INSTAGRAM_IMAGE = image({ formats: [JPEG], max_bytes: 8 * MB, min_aspect_ratio: 4 / 5, max_aspect_ratio: 1.91 });
const INSTAGRAM_VIDEO_ASPECT = { min_aspect_ratio: 0.01, max_aspect_ratio: 10 };
const INSTAGRAM_REEL_VIDEO = video({
  formats: [MP4, MOV],
  max_bytes: 300 * MB,
  min_duration_seconds: 3,
  max_duration_seconds: 15 * 60,
  ...INSTAGRAM_VIDEO_ASPECT,
});
const INSTAGRAM_STORY_VIDEO = video({
  formats: [MP4, MOV],
  max_bytes: 100 * MB,
  min_duration_seconds: 3,
  max_duration_seconds: 60,
  ...INSTAGRAM_VIDEO_ASPECT,
});

// Facebook Pages: photos JPEG/BMP/PNG/GIF/TIFF up to 4 MB (Graph API /{page-id}/photos); a post holds several
// photos or one video; reels 3 – 90 s, 9:16, at least 540 × 960 (Reels Publishing API); stories video 3 – 60 s,
// 9:16 (Page Stories API).
const FACEBOOK_IMAGE = image({ formats: [JPEG, PNG], max_bytes: 4 * MB });
/** Reels and stories: 1 GB, 3 s up to `maxSeconds`, 9:16, at least 540 × 960 pixels. */
const facebookVerticalVideo = (maxSeconds: number) =>
  video({
    formats: [MP4, MOV],
    max_bytes: 1024 * MB,
    min_duration_seconds: 3,
    max_duration_seconds: maxSeconds,
    min_aspect_ratio: 0.55,
    max_aspect_ratio: 0.57,
    min_short_side: 540,
    min_long_side: 960,
  });

// Threads API: images JPEG/PNG up to 8 MB, aspect up to 10:1; videos MOV/MP4 up to 1 GB and 5 minutes,
// aspect 0.01:1 – 10:1; a carousel may mix both.
const THREADS_POST = rules({
  max_images: 10,
  max_videos: 10,
  mix_images_and_videos: true,
  image: image({ formats: [JPEG, PNG], max_bytes: 8 * MB, min_aspect_ratio: 0.1, max_aspect_ratio: 10 }),
  video: video({
    formats: [MP4, MOV],
    max_bytes: 1024 * MB,
    max_duration_seconds: 300,
    min_aspect_ratio: 0.01,
    max_aspect_ratio: 10,
  }),
});

// TikTok Content Posting API (media transfer guide): photos WebP/JPEG, at most 1080p, 20 MB each; videos
// MP4/WebM/MOV, 360 – 4096 px per side, up to 4 GB and 10 minutes (the creator's own maximum may be lower).
const TIKTOK_PHOTO = rules({
  max_images: 35,
  image: image({ formats: [JPEG, WEBP], max_bytes: 20 * MB, max_long_side: 1920, max_short_side: 1080 }),
});
const TIKTOK_VIDEO = rules({
  max_videos: 1,
  video: video({
    formats: [MP4, MOV],
    max_bytes: 4096 * MB,
    max_duration_seconds: 600,
    min_short_side: 360,
    max_long_side: 4096,
  }),
});

// YouTube: an upload is a Short when it is square or vertical and at most three minutes long.
const YOUTUBE_SHORT = rules({
  max_videos: 1,
  video: video({ formats: [MP4, MOV], max_duration_seconds: 180, max_aspect_ratio: 1 }),
});

// Pinterest: images BMP/JPEG/PNG/TIFF/GIF/WebP up to 20 MB; video pins MP4/MOV/M4V up to 2 GB, 4 s – 15 min,
// aspect between 1:2 and 1.91:1; carousels of 2 – 5 images.
const PINTEREST_IMAGES = {
  image: image({ formats: [JPEG, PNG, WEBP], max_bytes: 20 * MB }),
  gif: { max_bytes: 20 * MB, alone: false },
} satisfies Partial<MediaRules>;

// Bluesky lexicons: app.bsky.embed.images — up to 4 image blobs of at most 1,000,000 bytes; app.bsky.embed.video —
// one video/mp4 blob of at most 100,000,000 bytes; a post has one embed, so images or a video, never both.
// Videos up to 3 minutes.
const BLUESKY_POST = rules({
  max_images: 4,
  max_videos: 1,
  image: image({ formats: [JPEG, PNG, WEBP], max_bytes: 1_000_000 }),
  gif: { max_bytes: 1_000_000, alone: false },
  video: video({ formats: [MP4], max_bytes: 100_000_000, max_duration_seconds: 180 }),
});

// Mastodon defaults (GET /api/v2/instance configuration.media_attachments): images 16 MB and 33,177,600 pixels,
// videos 99 MB and 8,294,400 pixels; at most 4 attachments; a video cannot be combined with other attachments.
const MASTODON_POST = rules({
  max_images: 4,
  max_videos: 1,
  image: image({ formats: [JPEG, PNG, WEBP], max_bytes: 16 * MB, max_pixels: 33_177_600 }),
  gif: { max_bytes: 16 * MB, alone: false },
  video: video({ formats: [MP4, MOV], max_bytes: 99 * MB, max_pixels: 8_294_400 }),
});

// X: images 5 MB, GIFs 15 MB, videos 512 MB and 0.5 – 140 s; "up to 4 photos, 1 animated GIF or 1 video".
const X_POST = rules({
  max_images: 4,
  max_videos: 1,
  image: image({ formats: [JPEG, PNG, WEBP], max_bytes: 5 * MB }),
  gif: { max_bytes: 15 * MB, alone: true },
  video: video({
    formats: [MP4, MOV],
    max_bytes: 512 * MB,
    min_duration_seconds: 0.5,
    max_duration_seconds: 140,
  }),
});

export const MEDIA_RULES: Record<ContentType, MediaRules> = {
  linkedin_post: LINKEDIN_POST,
  linkedin_carousel: LINKEDIN_CAROUSEL,
  linkedin_page_post: LINKEDIN_POST,
  linkedin_page_carousel: LINKEDIN_CAROUSEL,
  x_post: X_POST,
  facebook_post: rules({
    max_images: 10,
    max_videos: 1,
    image: FACEBOOK_IMAGE,
    gif: { max_bytes: 4 * MB, alone: false },
    video: video({ formats: [MP4, MOV], max_bytes: 10 * 1024 * MB, max_duration_seconds: 240 * 60 }),
  }),
  facebook_reel: rules({ max_videos: 1, video: facebookVerticalVideo(90) }),
  facebook_story: rules({ max_images: 1, max_videos: 1, image: FACEBOOK_IMAGE, video: facebookVerticalVideo(60) }),
  instagram_feed: rules({ max_images: 1, max_videos: 1, image: INSTAGRAM_IMAGE, video: INSTAGRAM_REEL_VIDEO }),
  instagram_carousel: rules({
    max_images: 10,
    max_videos: 10,
    mix_images_and_videos: true,
    image: INSTAGRAM_IMAGE,
    video: INSTAGRAM_REEL_VIDEO,
  }),
  instagram_reel: rules({ max_videos: 1, video: INSTAGRAM_REEL_VIDEO }),
  instagram_story: rules({
    max_images: 1,
    max_videos: 1,
    image: image({ formats: [JPEG], max_bytes: 8 * MB }),
    video: INSTAGRAM_STORY_VIDEO,
  }),
  tiktok_video: TIKTOK_VIDEO,
  tiktok_photo: TIKTOK_PHOTO,
  youtube_short: YOUTUBE_SHORT,
  threads_post: THREADS_POST,
  pinterest_pin: rules({ max_images: 1, ...PINTEREST_IMAGES }),
  pinterest_video_pin: rules({
    max_videos: 1,
    video: video({
      formats: [MP4, MOV],
      max_bytes: 2048 * MB,
      min_duration_seconds: 4,
      max_duration_seconds: 15 * 60,
      min_aspect_ratio: 1 / 2,
      max_aspect_ratio: 1.91,
    }),
  }),
  pinterest_carousel: rules({ max_images: 5, ...PINTEREST_IMAGES }),
  bluesky_post: BLUESKY_POST,
  mastodon_post: MASTODON_POST,
};

export const mediaRulesOf = (contentType: string): MediaRules | undefined =>
  (MEDIA_RULES as Record<string, MediaRules>)[contentType];

/**
 * A content type's rules for one account: the byte and pixel limits its own server reports (a Mastodon instance's
 * `configuration.media_attachments`, stored on the account) replace the catalog's defaults; everything else is the
 * catalog's. `GET /api/content-types` keeps showing the defaults (it is not per account).
 */
export function accountMediaRules(contentType: string, limits?: AccountMediaLimits): MediaRules | undefined {
  const rules = mediaRulesOf(contentType);
  if (!rules || !limits) return rules;
  const { imageMaxBytes, imageMaxPixels, videoMaxBytes, videoMaxPixels } = limits;
  return {
    ...rules,
    image: rules.image && {
      ...rules.image,
      max_bytes: imageMaxBytes ?? rules.image.max_bytes,
      max_pixels: imageMaxPixels ?? rules.image.max_pixels,
    },
    // Mastodon's `image_size_limit` covers GIFs too (they are images there).
    gif: rules.gif && { ...rules.gif, max_bytes: imageMaxBytes ?? rules.gif.max_bytes },
    video: rules.video && {
      ...rules.video,
      max_bytes: videoMaxBytes ?? rules.video.max_bytes,
      max_pixels: videoMaxPixels ?? rules.video.max_pixels,
    },
  };
}

/**
 * The catalog as `GET /api/content-types` and the MCP list-content-types-tool return it: each content type gains
 * `media_rules` (an addition, decisions §13); every existing field is unchanged.
 */
export const CATALOG_WITH_MEDIA_RULES = CATALOG.map((p) => ({
  ...p,
  content_types: p.content_types.map((t) => ({ ...t, media_rules: MEDIA_RULES[t.value] })),
}));
