import { describe, expect, it } from "vitest";
import { CONTENT_TYPES } from "../../src/catalog/platforms";
import { describeAuth } from "../support/auth-cases";
import { createTestWorkspace } from "../support/harness";

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
  instagram_feed: ["Feed Post", 1, false, ["image", "video"]],
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
        };
      }),
    }));
    expect(res.body).toEqual({ platforms: expected });
  });

  it("covers all 21 content types", () => {
    expect(CONTENT_TYPES).toHaveLength(21);
    expect(Object.keys(TYPE_TABLE).sort()).toEqual([...CONTENT_TYPES].sort());
  });
});
