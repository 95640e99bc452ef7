import { describe, expect, it } from "vitest";
import { checkPlatformRules, countLinks, measurePlatform } from "../../src/catalog/rules";

const image = { type: "image" as const };
const video = { type: "video" as const };

describe("checkPlatformRules", () => {
  it("passes content within the cap", () => {
    expect(checkPlatformRules({ platform: "x", contentType: "x_post", content: "a".repeat(280), media: [] })).toEqual(
      [],
    );
  });

  it("words the length problem for scheduling and for publishing", () => {
    const input = { platform: "x", contentType: "x_post", content: "a".repeat(295), media: [] };
    expect(checkPlatformRules(input)).toEqual([
      { field: "content", message: "X: too long by 15 characters (max 280)." },
    ]);
    expect(checkPlatformRules(input, "publish")).toEqual([
      { field: "content", message: "Content exceeds X limit of 280 characters (295 provided)." },
    ]);
    expect(checkPlatformRules({ ...input, content: "a".repeat(281) })[0]?.message).toBe(
      "X: too long by 1 character (max 280).",
    );
  });

  it("counts as the platform counts (X: CJK weighs 2)", () => {
    expect(checkPlatformRules({ platform: "x", contentType: "x_post", content: "日".repeat(141), media: [] })).toEqual([
      { field: "content", message: "X: too long by 2 characters (max 280)." },
    ]);
    expect(
      checkPlatformRules({ platform: "bluesky", contentType: "bluesky_post", content: "é".repeat(300), media: [] }),
    ).toEqual([]);
    // Issue 29: 300 graphemes fit the grapheme cap, but 300 rainbow flags (14 bytes each) do not fit 3,000 bytes.
    expect(
      checkPlatformRules({ platform: "bluesky", contentType: "bluesky_post", content: "🏳️‍🌈".repeat(300), media: [] }),
    ).toEqual([
      {
        field: "content",
        message: "Bluesky: 4,200 bytes exceed Bluesky's 3,000-byte limit (UTF-8; too long by 1,200 bytes).",
      },
    ]);
  });

  it("Threads: at most 5 unique links (repeats count once), in both wordings", () => {
    const links = (n: number) => Array.from({ length: n }, (_, i) => `https://example.com/${i}`).join(" ");
    const five = `${links(5)} https://example.com/0 www.example.com/0.`;
    expect(countLinks(five)).toBe(6);
    expect(
      checkPlatformRules({ platform: "threads", contentType: "threads_post", content: links(5), media: [] }),
    ).toEqual([]);
    const six = { platform: "threads", contentType: "threads_post", content: links(6), media: [] };
    expect(checkPlatformRules(six)).toEqual([{ field: "content", message: "Threads: too many links (6, max 5)." }]);
    expect(checkPlatformRules(six, "publish")).toEqual([
      { field: "content", message: "Content exceeds Threads limit of 5 links (6 provided)." },
    ]);
    // Other networks have no link cap.
    expect(
      checkPlatformRules({ platform: "mastodon", contentType: "mastodon_post", content: links(6), media: [] }),
    ).toEqual([]);
  });

  it("requires media, caps the count and checks kinds", () => {
    expect(checkPlatformRules({ platform: "tiktok", contentType: "tiktok_video", content: "", media: [] })).toEqual([
      { field: "media", message: "TikTok: Video requires at least one media item." },
    ]);
    expect(
      checkPlatformRules({
        platform: "x",
        contentType: "x_post",
        content: "",
        media: [image, image, image, image, image],
      }),
    ).toEqual([{ field: "media", message: "X: Post allows at most 4 media items (5 attached)." }]);
    expect(
      checkPlatformRules({ platform: "instagram", contentType: "instagram_reel", content: "", media: [image] }),
    ).toEqual([{ field: "media", message: "Instagram: Reel accepts only video media (image attached)." }]);
    expect(
      checkPlatformRules({ platform: "linkedin", contentType: "linkedin_post", content: "", media: [image, video] }),
    ).toEqual([{ field: "media", message: "LinkedIn: Post allows at most 1 media item (2 attached)." }]);
    expect(
      checkPlatformRules({
        platform: "instagram-facebook",
        contentType: "instagram_carousel",
        content: "",
        media: [image, video],
      }),
    ).toEqual([]);
  });

  it("measures", () => {
    expect(
      measurePlatform({ platform: "youtube", contentType: "youtube_short", content: "hi", media: [video] }),
    ).toEqual({
      content_length: 2,
      max_content_length: 100,
      media_count: 1,
      max_media_count: 1,
    });
  });
});
