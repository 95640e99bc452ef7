import { describe, expect, it } from "vitest";
import { MEDIA_RULES } from "../../src/catalog/media-specs";
import { META_FIELDS } from "../../src/catalog/meta-fields";
import { CONTENT_TYPES, type ContentType } from "../../src/catalog/platforms";

import { describeAuth } from "../support/auth-cases";
import { createTestWorkspace } from "../support/harness";

/** Issue 20: the first comment's cap per network (a reply's is the post's own). */
const FIRST_COMMENT_LENGTH: Record<string, number> = {
  x: 280,
  bluesky: 300,
  threads: 500,
  mastodon: 500,
  facebook: 8000,
  instagram: 2200,
  "instagram-facebook": 2200,
  linkedin: 1250,
  "linkedin-page": 1250,
  youtube: 10000,
};

type Row = [string, string, number, number, string[], string, string[]];
// decisions §5, first table: platform, label, max, recommended, allowed_media_types, default, content types.
const PLATFORM_TABLE: Row[] = [
  ["linkedin", "LinkedIn", 3000, 1200, ["image", "video"], "linkedin_post", ["linkedin_post", "linkedin_carousel"]],
  [
    "linkedin-page",
    "LinkedIn Page",
    3000,
    1200,
    ["image", "video"],
    "linkedin_page_post",
    ["linkedin_page_post", "linkedin_page_carousel"],
  ],
  ["x", "X", 280, 220, ["image", "video"], "x_post", ["x_post"]],
  ["tiktok", "TikTok", 2200, 150, ["image", "video"], "tiktok_video", ["tiktok_video", "tiktok_photo"]],
  ["youtube", "YouTube Shorts", 100, 80, ["video"], "youtube_short", ["youtube_short"]],
  [
    "facebook",
    "Facebook Page",
    10000,
    280,
    ["image", "video"],
    "facebook_post",
    ["facebook_post", "facebook_reel", "facebook_story"],
  ],
  [
    "instagram",
    "Instagram",
    2200,
    600,
    ["image", "video"],
    "instagram_feed",
    ["instagram_feed", "instagram_carousel", "instagram_reel", "instagram_story"],
  ],
  [
    "instagram-facebook",
    "Instagram (Facebook Business)",
    2200,
    600,
    ["image", "video"],
    "instagram_feed",
    ["instagram_feed", "instagram_carousel", "instagram_reel", "instagram_story"],
  ],
  ["threads", "Threads", 500, 300, ["image", "video"], "threads_post", ["threads_post"]],
  [
    "pinterest",
    "Pinterest",
    800,
    200,
    ["image", "video"],
    "pinterest_pin",
    ["pinterest_pin", "pinterest_video_pin", "pinterest_carousel"],
  ],
  ["bluesky", "Bluesky", 300, 220, ["image", "video"], "bluesky_post", ["bluesky_post"]],
  ["mastodon", "Mastodon", 500, 300, ["image", "video"], "mastodon_post", ["mastodon_post"]],
];

// decisions §5, second table: label, max_media_count, requires_media, media kinds.
const TYPE_TABLE: Record<string, [string, number, boolean, string[]]> = {
  linkedin_post: ["Post", 1, false, ["image", "video"]],
  linkedin_page_post: ["Post", 1, false, ["image", "video"]],
  linkedin_carousel: ["Carousel", 20, true, ["image"]],
  linkedin_page_carousel: ["Carousel", 20, true, ["image"]],
  x_post: ["Post", 4, false, ["image", "video"]],
  facebook_post: ["Post", 10, false, ["image", "video"]],
  facebook_reel: ["Reel", 1, true, ["video"]],
  facebook_story: ["Story", 1, true, ["image", "video"]],
  // decisions §13: instagram_feed requires media (was false in the first version).
  instagram_feed: ["Feed Post", 1, true, ["image", "video"]],
  instagram_carousel: ["Carousel", 10, true, ["image", "video"]],
  instagram_reel: ["Reel", 1, true, ["video"]],
  instagram_story: ["Story", 1, true, ["image", "video"]],
  tiktok_video: ["Video", 1, true, ["video"]],
  tiktok_photo: ["Photo carousel", 35, true, ["image"]],
  youtube_short: ["Short", 1, true, ["video"]],
  threads_post: ["Post", 10, false, ["image", "video"]],
  pinterest_pin: ["Pin", 1, true, ["image"]],
  pinterest_video_pin: ["Video Pin", 1, true, ["video"]],
  pinterest_carousel: ["Carousel", 5, true, ["image"]],
  bluesky_post: ["Post", 4, false, ["image", "video"]],
  mastodon_post: ["Post", 4, false, ["image", "video"]],
};

describe("GET /api/content-types", () => {
  describeAuth("GET", "/api/content-types");

  it("returns exactly the catalog of decisions §5, in order", async () => {
    const ws = await createTestWorkspace();
    const res = await ws.api("GET", "/api/content-types");
    expect(res.status).toBe(200);
    const expected = PLATFORM_TABLE.map(([platform, label, max, rec, kinds, def, types]) => ({
      platform,
      label,
      max_content_length: max,
      recommended_content_length: rec,
      allowed_media_types: kinds,
      default_content_type: def,
      content_types: types.map((value) => {
        const [tLabel, maxMedia, requires, tKinds] = TYPE_TABLE[value]!;
        return {
          value,
          label: tLabel,
          description: expect.stringMatching(/^[A-Z].{10,}\.$/),
          max_media_count: maxMedia,
          requires_media: requires,
          allowed_media_types: tKinds,
          media_rules: MEDIA_RULES[value as ContentType],
        };
      }),
      // Issue 20 additions: threads, first comments and the row meta each network reads.
      thread_max_items: ["x", "bluesky", "threads", "mastodon"].includes(platform) ? 25 : null,
      first_comment_max_length: FIRST_COMMENT_LENGTH[platform] ?? null,
      meta_fields: META_FIELDS[platform] ?? [],
    }));
    expect(res.body).toEqual({ platforms: expected });
  });

  it("covers all 21 content types", () => {
    expect(CONTENT_TYPES).toHaveLength(21);
    expect(Object.keys(TYPE_TABLE).sort()).toEqual([...CONTENT_TYPES].sort());
  });
});

// Issue 16: the documented media limits of each network (docs/media-rules.md), as the catalog returns them.
describe("GET /api/content-types media_rules", () => {
  it("carries each network's documented limits", async () => {
    const ws = await createTestWorkspace();
    const res = await ws.api("GET", "/api/content-types");
    const rules = Object.fromEntries(
      (res.body as { platforms: { content_types: { value: string; media_rules: unknown }[] }[] }).platforms.flatMap(
        (p) => p.content_types.map((t) => [t.value, t.media_rules]),
      ),
    ) as Record<string, (typeof MEDIA_RULES)[ContentType]>;
    const MB = 1024 * 1024;
    // [image formats, image max bytes, gif accepted, video max seconds, max images, max videos, mix]
    const table: Record<string, [string[] | null, number | null, boolean, number | null, number, number, boolean]> = {
      x_post: [["image/jpeg", "image/png", "image/webp"], 5 * MB, true, 140, 4, 1, false],
      bluesky_post: [["image/jpeg", "image/png", "image/webp"], 1_000_000, true, 180, 4, 1, false],
      mastodon_post: [["image/jpeg", "image/png", "image/webp"], 16 * MB, true, null, 4, 1, false],
      instagram_feed: [["image/jpeg"], 8 * MB, false, 900, 1, 1, false],
      instagram_carousel: [["image/jpeg"], 8 * MB, false, 900, 10, 10, true],
      instagram_reel: [null, null, false, 900, 0, 1, false],
      instagram_story: [["image/jpeg"], 8 * MB, false, 60, 1, 1, false],
      threads_post: [["image/jpeg", "image/png"], 8 * MB, false, 300, 10, 10, true],
      tiktok_photo: [["image/jpeg", "image/webp"], 20 * MB, false, null, 35, 0, false],
      tiktok_video: [null, null, false, 600, 0, 1, false],
      youtube_short: [null, null, false, 180, 0, 1, false],
      facebook_post: [["image/jpeg", "image/png"], 4 * MB, true, 14400, 10, 1, false],
      facebook_reel: [null, null, false, 90, 0, 1, false],
      facebook_story: [["image/jpeg", "image/png"], 4 * MB, false, 60, 1, 1, false],
      pinterest_pin: [["image/jpeg", "image/png", "image/webp"], 20 * MB, true, null, 1, 0, false],
      pinterest_video_pin: [null, null, false, 900, 0, 1, false],
      pinterest_carousel: [["image/jpeg", "image/png", "image/webp"], 20 * MB, true, null, 5, 0, false],
      linkedin_post: [["image/jpeg", "image/png"], null, true, 1800, 1, 1, false],
      linkedin_carousel: [["image/jpeg", "image/png"], null, true, null, 20, 0, false],
    };
    for (const [type, [formats, maxBytes, gif, maxSeconds, maxImages, maxVideos, mix]] of Object.entries(table)) {
      const r = rules[type]!;
      expect([type, r.image?.formats ?? null, r.image?.max_bytes ?? null, r.gif !== null]).toEqual([
        type,
        formats,
        maxBytes,
        gif,
      ]);
      expect([
        type,
        r.video?.max_duration_seconds ?? null,
        r.max_images,
        r.max_videos,
        r.mix_images_and_videos,
      ]).toEqual([type, maxSeconds, maxImages, maxVideos, mix]);
    }
    expect(rules.instagram_feed!.image).toMatchObject({ min_aspect_ratio: 0.8, max_aspect_ratio: 1.91 });
    expect(rules.tiktok_photo!.image).toMatchObject({ max_long_side: 1920, max_short_side: 1080 });
    expect(rules.facebook_reel!.video).toMatchObject({ min_duration_seconds: 3, min_aspect_ratio: 0.55 });
    expect(rules.bluesky_post!.video).toMatchObject({ formats: ["video/mp4"], max_bytes: 100_000_000 });
    expect(rules.mastodon_post!.video).toMatchObject({ max_bytes: 99 * MB });
  });
});
