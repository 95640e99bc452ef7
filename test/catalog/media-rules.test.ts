import { describe, expect, it } from "vitest";
import { checkPlatformRules } from "../../src/catalog/rules";

/**
 * Issue 16: per platform, a file at each limit passes, one past it is refused when fitting cannot repair it, and
 * an image over a byte or pixel limit is not a problem (it is fitted at publish time).
 */
const MB = 1024 * 1024;
const jpeg = (size: number, width = 4032, height = 3024, name = "photo.jpg") => ({
  type: "image",
  mimeType: "image/jpeg",
  size,
  width,
  height,
  originalFilename: name,
});
const gif = (size: number, name = "party.gif") => ({
  type: "image",
  mimeType: "image/gif",
  size,
  width: 480,
  height: 270,
  originalFilename: name,
});
const mp4 = (
  seconds: number,
  width = 1080,
  height = 1920,
  size = 20 * MB,
  name = "clip.mp4",
  mimeType = "video/mp4",
) => ({
  type: "video",
  mimeType,
  size,
  width,
  height,
  durationSeconds: seconds,
  originalFilename: name,
});
const problems = (platform: string, contentType: string, media: object[]) =>
  checkPlatformRules({ platform, contentType, content: "", media: media as never }).map((p) => p.message);

describe("media rules: images are fitted, not refused", () => {
  it("a 9 MB 12 MP photo is no problem anywhere images go (fitted for each network's limits)", () => {
    const photo = jpeg(9 * MB);
    for (const [platform, type] of [
      ["x", "x_post"],
      ["bluesky", "bluesky_post"],
      ["mastodon", "mastodon_post"],
      ["instagram", "instagram_feed"],
      ["instagram", "instagram_story"],
      ["threads", "threads_post"],
      ["tiktok", "tiktok_photo"],
      ["facebook", "facebook_post"],
      ["pinterest", "pinterest_pin"],
      ["linkedin", "linkedin_post"],
      ["linkedin-page", "linkedin_page_carousel"],
    ]) {
      expect([type, problems(platform!, type!, [photo])]).toEqual([type, []]);
    }
  });

  it("Instagram: aspect ratio 4:5 .. 1.91:1 passes at each limit and is refused past it (fitting never crops)", () => {
    expect(problems("instagram", "instagram_feed", [jpeg(MB, 1080, 1350)])).toEqual([]);
    expect(problems("instagram", "instagram_feed", [jpeg(MB, 1910, 1000)])).toEqual([]);
    expect(problems("instagram", "instagram_feed", [jpeg(MB, 1080, 1351, "tall.jpg")])).toEqual([
      "Instagram: Feed Post needs images with an aspect ratio between 4:5 and 1.91:1; tall.jpg is 1080×1351.",
    ]);
    expect(problems("instagram-facebook", "instagram_carousel", [jpeg(MB, 1920, 1000, "wide.jpg")])).toEqual([
      "Instagram (Facebook Business): Carousel needs images with an aspect ratio between 4:5 and 1.91:1; wide.jpg is 1920×1000.",
    ]);
    // Stories take any ratio.
    expect(problems("instagram", "instagram_story", [jpeg(MB, 1080, 1920)])).toEqual([]);
  });

  it("GIFs: refused where only JPEG/PNG/WebP go, and past the GIF limit where they go (never re-encoded)", () => {
    expect(problems("instagram", "instagram_feed", [gif(MB)])).toEqual([
      "Instagram: Feed Post does not accept GIF images (party.gif).",
    ]);
    expect(problems("threads", "threads_post", [gif(MB)])).toEqual([
      "Threads: Post does not accept GIF images (party.gif).",
    ]);
    expect(problems("tiktok", "tiktok_photo", [gif(MB)])).toEqual([
      "TikTok: Photo carousel does not accept GIF images (party.gif).",
    ]);
    expect(problems("bluesky", "bluesky_post", [gif(1_000_000)])).toEqual([]);
    expect(problems("bluesky", "bluesky_post", [gif(1_000_001)])).toEqual([
      "Bluesky: Post accepts GIFs of at most 1,000,000 bytes; party.gif is 1,000,001 bytes (GIFs are not re-encoded).",
    ]);
    expect(problems("x", "x_post", [gif(10 * MB)])).toEqual([]);
    expect(problems("facebook", "facebook_post", [gif(4 * MB + 1)])).toEqual([
      "Facebook Page: Post accepts GIFs of at most 4 MB; party.gif is 4,194,305 bytes (GIFs are not re-encoded).",
    ]);
  });
});

describe("media rules: mixing and counts", () => {
  it("X: up to 4 photos, or 1 GIF, or 1 video", () => {
    expect(problems("x", "x_post", [jpeg(MB), jpeg(MB), jpeg(MB), jpeg(MB)])).toEqual([]);
    expect(problems("x", "x_post", [mp4(30)])).toEqual([]);
    expect(problems("x", "x_post", [gif(MB)])).toEqual([]);
    expect(problems("x", "x_post", [jpeg(MB), mp4(30)])).toEqual([
      "X: Post cannot combine images and videos (1 image and 1 video attached).",
    ]);
    expect(problems("x", "x_post", [mp4(30), mp4(30, 1080, 1920, MB, "b.mp4")])).toEqual([
      "X: Post allows at most 1 video (2 attached).",
    ]);
    expect(problems("x", "x_post", [gif(MB), jpeg(MB)])).toEqual([
      "X: Post allows a GIF only on its own (2 media items attached).",
    ]);
  });

  it("Bluesky: 4 images or 1 video, never both", () => {
    expect(problems("bluesky", "bluesky_post", [jpeg(MB), jpeg(MB), jpeg(MB), jpeg(MB)])).toEqual([]);
    expect(problems("bluesky", "bluesky_post", [jpeg(MB), mp4(30)])).toEqual([
      "Bluesky: Post cannot combine images and videos (1 image and 1 video attached).",
    ]);
  });

  it("Mastodon: a video cannot go with other attachments, nor a second video", () => {
    expect(problems("mastodon", "mastodon_post", [mp4(30), jpeg(MB)])).toEqual([
      "Mastodon: Post cannot combine images and videos (1 image and 1 video attached).",
    ]);
    expect(problems("mastodon", "mastodon_post", [mp4(30), mp4(40)])).toEqual([
      "Mastodon: Post allows at most 1 video (2 attached).",
    ]);
  });

  it("Threads and Instagram carousels may mix; Facebook posts may not", () => {
    expect(problems("threads", "threads_post", [jpeg(MB), mp4(30)])).toEqual([]);
    expect(problems("instagram", "instagram_carousel", [jpeg(MB), mp4(30)])).toEqual([]);
    expect(problems("facebook", "facebook_post", [jpeg(MB), mp4(30)])).toEqual([
      "Facebook Page: Post cannot combine images and videos (1 image and 1 video attached).",
    ]);
  });
});

describe("media rules: videos (never transcoded, so refused past a limit)", () => {
  it("durations: at each limit passes, one past is refused", () => {
    const cases: [string, string, number, number | null, string][] = [
      ["x", "x_post", 140, 0.5, "X: Post needs a video between 0.5 s and 140 s long"],
      ["facebook", "facebook_reel", 90, 3, "Facebook Page: Reel needs a video between 3 s and 90 s long"],
      ["facebook", "facebook_story", 60, 3, "Facebook Page: Story needs a video between 3 s and 60 s long"],
      ["instagram", "instagram_reel", 900, 3, "Instagram: Reel needs a video between 3 s and 900 s long"],
      ["instagram", "instagram_story", 60, 3, "Instagram: Story needs a video between 3 s and 60 s long"],
      ["threads", "threads_post", 300, null, "Threads: Post needs a video at most 300 s long"],
      ["tiktok", "tiktok_video", 600, null, "TikTok: Video needs a video at most 600 s long"],
      ["youtube", "youtube_short", 180, null, "YouTube Shorts: Short needs a video at most 180 s long"],
      ["pinterest", "pinterest_video_pin", 900, 4, "Pinterest: Video Pin needs a video between 4 s and 900 s long"],
      ["bluesky", "bluesky_post", 180, null, "Bluesky: Post needs a video at most 180 s long"],
      ["linkedin", "linkedin_post", 1800, 3, "LinkedIn: Post needs a video between 3 s and 1800 s long"],
    ];
    for (const [platform, type, max, min, message] of cases) {
      expect([type, problems(platform, type, [mp4(max)])]).toEqual([type, []]);
      expect(problems(platform, type, [mp4(max + 0.5)])).toEqual([`${message}; clip.mp4 is ${max + 0.5} s.`]);
      if (min !== null) {
        expect([type, problems(platform, type, [mp4(min)])]).toEqual([type, []]);
        expect(problems(platform, type, [mp4(min - 0.25)])).toEqual([`${message}; clip.mp4 is ${min - 0.25} s.`]);
      }
    }
  });

  it("ratios: Facebook reels 9:16, YouTube Shorts square or vertical, Pinterest 1:2 .. 1.91:1", () => {
    expect(problems("facebook", "facebook_reel", [mp4(30, 1080, 1920)])).toEqual([]);
    expect(problems("facebook", "facebook_reel", [mp4(30, 1920, 1080)])).toEqual([
      "Facebook Page: Reel needs a video aspect ratio between 0.55:1 and 0.57:1; clip.mp4 is 1920×1080.",
    ]);
    expect(problems("facebook", "facebook_reel", [mp4(30, 360, 640)])).toEqual([
      "Facebook Page: Reel needs a video at least 540 pixels on its shorter side; clip.mp4 is 360×640.",
      "Facebook Page: Reel needs a video at least 960 pixels on its longer side; clip.mp4 is 360×640.",
    ]);
    // "Minimum is 540 x 960 pixels": a 9:16-ish frame with 540 px but 959 px is still too small.
    expect(problems("facebook", "facebook_reel", [mp4(30, 540, 960)])).toEqual([]);
    expect(problems("facebook", "facebook_reel", [mp4(30, 540, 959)])).toEqual([
      "Facebook Page: Reel needs a video at least 960 pixels on its longer side; clip.mp4 is 540×959.",
    ]);
    expect(problems("youtube", "youtube_short", [mp4(30, 1080, 1080)])).toEqual([]);
    expect(problems("youtube", "youtube_short", [mp4(30, 1920, 1080)])).toEqual([
      "YouTube Shorts: Short needs a video aspect ratio at most 1:1; clip.mp4 is 1920×1080.",
    ]);
    expect(problems("pinterest", "pinterest_video_pin", [mp4(30, 1000, 2000)])).toEqual([]);
    expect(problems("pinterest", "pinterest_video_pin", [mp4(30, 1000, 2001)])).toEqual([
      "Pinterest: Video Pin needs a video aspect ratio between 1:2 and 1.91:1; clip.mp4 is 1000×2001.",
    ]);
  });

  it("sizes and formats: Bluesky takes MP4 up to 100,000,000 bytes, Mastodon 99 MB, LinkedIn MP4 only", () => {
    expect(problems("bluesky", "bluesky_post", [mp4(30, 1080, 1920, 100_000_000)])).toEqual([]);
    expect(problems("bluesky", "bluesky_post", [mp4(30, 1080, 1920, 100_000_001)])).toEqual([
      "Bluesky: Post accepts videos of at most 100,000,000 bytes; clip.mp4 is 100,000,001 bytes.",
    ]);
    expect(problems("bluesky", "bluesky_post", [mp4(30, 1080, 1920, MB, "clip.mov", "video/quicktime")])).toEqual([
      "Bluesky: Post accepts only MP4 video; clip.mov is MOV.",
    ]);
    expect(problems("mastodon", "mastodon_post", [mp4(30, 1080, 1920, 99 * MB)])).toEqual([]);
    expect(problems("mastodon", "mastodon_post", [mp4(30, 1080, 1920, 99 * MB + 1)])).toEqual([
      "Mastodon: Post accepts videos of at most 99 MB; clip.mp4 is 103,809,025 bytes.",
    ]);
    expect(problems("linkedin", "linkedin_post", [mp4(30, 1080, 1920, MB, "clip.mov", "video/quicktime")])).toEqual([
      "LinkedIn: Post accepts only MP4 video; clip.mov is MOV.",
    ]);
    expect(problems("tiktok", "tiktok_video", [mp4(30, 1080, 1920, MB, "clip.mov", "video/quicktime")])).toEqual([]);
  });

  it("unknown duration or dimensions (media stored before they were read) skip those rules", () => {
    expect(problems("facebook", "facebook_reel", [{ type: "video", mimeType: "video/mp4", size: MB }])).toEqual([]);
  });
});
