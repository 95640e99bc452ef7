/**
 * The one source of truth for platforms and content types (decisions §5). `GET /api/content-types`, post
 * validation, upload acceptance and the publish job all read from here.
 */
export const PLATFORMS = [
  "linkedin",
  "linkedin-page",
  "x",
  "tiktok",
  "youtube",
  "facebook",
  "instagram",
  "instagram-facebook",
  "threads",
  "pinterest",
  "bluesky",
  "mastodon",
] as const;
export type Platform = (typeof PLATFORMS)[number];

export const CONTENT_TYPES = [
  "linkedin_post",
  "linkedin_carousel",
  "linkedin_page_post",
  "linkedin_page_carousel",
  "x_post",
  "facebook_post",
  "facebook_reel",
  "facebook_story",
  "instagram_feed",
  "instagram_carousel",
  "instagram_reel",
  "instagram_story",
  "tiktok_video",
  "tiktok_photo",
  "youtube_short",
  "threads_post",
  "pinterest_pin",
  "pinterest_video_pin",
  "pinterest_carousel",
  "bluesky_post",
  "mastodon_post",
] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

export type MediaKind = "image" | "video";

export interface ContentTypeSpec {
  value: ContentType;
  label: string;
  description: string;
  max_media_count: number;
  requires_media: boolean;
  allowed_media_types: MediaKind[];
}

export interface PlatformSpec {
  platform: Platform;
  label: string;
  max_content_length: number;
  recommended_content_length: number;
  allowed_media_types: MediaKind[];
  default_content_type: ContentType;
  content_types: ContentTypeSpec[];
}

const IMAGE_VIDEO: MediaKind[] = ["image", "video"];
const ct = (
  value: ContentType,
  label: string,
  max_media_count: number,
  requires_media: boolean,
  allowed_media_types: MediaKind[],
  description: string,
): ContentTypeSpec => ({ value, label, description, max_media_count, requires_media, allowed_media_types });

const INSTAGRAM_TYPES: ContentTypeSpec[] = [
  // decisions §13: Instagram publishes no text-only feed post.
  ct(
    "instagram_feed",
    "Feed Post",
    1,
    true,
    IMAGE_VIDEO,
    "A single image or video on the profile grid and in followers' feeds.",
  ),
  ct(
    "instagram_carousel",
    "Carousel",
    10,
    true,
    IMAGE_VIDEO,
    "Up to 10 images or videos that people swipe through in one post.",
  ),
  ct("instagram_reel", "Reel", 1, true, ["video"], "A short vertical video shown in the Reels tab and feed."),
  ct("instagram_story", "Story", 1, true, IMAGE_VIDEO, "A full-screen image or video that disappears after 24 hours."),
];

export const CATALOG: readonly PlatformSpec[] = [
  {
    platform: "linkedin",
    label: "LinkedIn",
    max_content_length: 3000,
    recommended_content_length: 1200,
    allowed_media_types: IMAGE_VIDEO,
    default_content_type: "linkedin_post",
    content_types: [
      ct(
        "linkedin_post",
        "Post",
        1,
        false,
        IMAGE_VIDEO,
        "A post on the member's profile with optional image or video.",
      ),
      ct(
        "linkedin_carousel",
        "Carousel",
        20,
        true,
        ["image"],
        "A multi-image post of up to 20 images on the member's profile.",
      ),
    ],
  },
  {
    platform: "linkedin-page",
    label: "LinkedIn Page",
    max_content_length: 3000,
    recommended_content_length: 1200,
    allowed_media_types: IMAGE_VIDEO,
    default_content_type: "linkedin_page_post",
    content_types: [
      ct(
        "linkedin_page_post",
        "Post",
        1,
        false,
        IMAGE_VIDEO,
        "A post on the company page with optional image or video.",
      ),
      ct(
        "linkedin_page_carousel",
        "Carousel",
        20,
        true,
        ["image"],
        "A multi-image post of up to 20 images on the company page.",
      ),
    ],
  },
  {
    platform: "x",
    label: "X",
    max_content_length: 280,
    recommended_content_length: 220,
    allowed_media_types: IMAGE_VIDEO,
    default_content_type: "x_post",
    content_types: [ct("x_post", "Post", 4, false, IMAGE_VIDEO, "A post with up to four images or one video.")],
  },
  {
    platform: "tiktok",
    label: "TikTok",
    max_content_length: 2200,
    recommended_content_length: 150,
    allowed_media_types: IMAGE_VIDEO,
    default_content_type: "tiktok_video",
    content_types: [
      ct("tiktok_video", "Video", 1, true, ["video"], "A single video posted to the creator's TikTok profile."),
      ct("tiktok_photo", "Photo carousel", 35, true, ["image"], "A swipeable photo post of up to 35 images."),
    ],
  },
  {
    platform: "youtube",
    label: "YouTube Shorts",
    max_content_length: 100,
    recommended_content_length: 80,
    allowed_media_types: ["video"],
    default_content_type: "youtube_short",
    content_types: [
      ct("youtube_short", "Short", 1, true, ["video"], "A vertical video of up to three minutes published as a Short."),
    ],
  },
  {
    platform: "facebook",
    label: "Facebook Page",
    max_content_length: 10000,
    recommended_content_length: 280,
    allowed_media_types: IMAGE_VIDEO,
    default_content_type: "facebook_post",
    content_types: [
      ct("facebook_post", "Post", 10, false, IMAGE_VIDEO, "A page post with text and up to 10 photos or one video."),
      ct("facebook_reel", "Reel", 1, true, ["video"], "A short vertical video published as a page Reel."),
      ct(
        "facebook_story",
        "Story",
        1,
        true,
        IMAGE_VIDEO,
        "A page story with one image or video, visible for 24 hours.",
      ),
    ],
  },
  {
    platform: "instagram",
    label: "Instagram",
    max_content_length: 2200,
    recommended_content_length: 600,
    allowed_media_types: IMAGE_VIDEO,
    default_content_type: "instagram_feed",
    content_types: INSTAGRAM_TYPES,
  },
  {
    platform: "instagram-facebook",
    label: "Instagram (Facebook Business)",
    max_content_length: 2200,
    recommended_content_length: 600,
    allowed_media_types: IMAGE_VIDEO,
    default_content_type: "instagram_feed",
    content_types: INSTAGRAM_TYPES,
  },
  {
    platform: "threads",
    label: "Threads",
    max_content_length: 500,
    recommended_content_length: 300,
    allowed_media_types: IMAGE_VIDEO,
    default_content_type: "threads_post",
    content_types: [
      ct("threads_post", "Post", 10, false, IMAGE_VIDEO, "A text post with up to 10 images or videos as a carousel."),
    ],
  },
  {
    platform: "pinterest",
    label: "Pinterest",
    max_content_length: 800,
    recommended_content_length: 200,
    allowed_media_types: IMAGE_VIDEO,
    default_content_type: "pinterest_pin",
    content_types: [
      ct("pinterest_pin", "Pin", 1, true, ["image"], "A single-image Pin saved to a board."),
      ct("pinterest_video_pin", "Video Pin", 1, true, ["video"], "A video Pin saved to a board."),
      ct(
        "pinterest_carousel",
        "Carousel",
        5,
        true,
        ["image"],
        "A Pin of two to five swipeable images saved to a board.",
      ),
    ],
  },
  {
    platform: "bluesky",
    label: "Bluesky",
    max_content_length: 300,
    recommended_content_length: 220,
    allowed_media_types: IMAGE_VIDEO,
    default_content_type: "bluesky_post",
    content_types: [ct("bluesky_post", "Post", 4, false, IMAGE_VIDEO, "A post with up to four images or one video.")],
  },
  {
    platform: "mastodon",
    label: "Mastodon",
    max_content_length: 500,
    recommended_content_length: 300,
    allowed_media_types: IMAGE_VIDEO,
    default_content_type: "mastodon_post",
    content_types: [ct("mastodon_post", "Post", 4, false, IMAGE_VIDEO, "A status with up to four images or videos.")],
  },
];

const BY_PLATFORM = new Map<string, PlatformSpec>(CATALOG.map((p) => [p.platform, p]));
const BY_CONTENT_TYPE = new Map<string, ContentTypeSpec>(
  CATALOG.flatMap((p) => p.content_types.map((t) => [t.value, t])),
);

export const isPlatform = (v: string): v is Platform => BY_PLATFORM.has(v);
export const isContentType = (v: string): v is ContentType => BY_CONTENT_TYPE.has(v);

export function platformSpec(platform: Platform | string): PlatformSpec {
  const spec = BY_PLATFORM.get(platform);
  if (!spec) throw new Error(`Unknown platform ${platform}`);
  return spec;
}

export function contentTypeSpec(contentType: ContentType | string): ContentTypeSpec {
  const spec = BY_CONTENT_TYPE.get(contentType);
  if (!spec) throw new Error(`Unknown content type ${contentType}`);
  return spec;
}

/** Whether a content type may be used with an account of `platform` (instagram_* for both Instagram routes). */
export function contentTypeFitsPlatform(platform: string, contentType: string): boolean {
  return BY_PLATFORM.get(platform)?.content_types.some((t) => t.value === contentType) ?? false;
}
