import { describe, expect, it } from "vitest";
import {
  carouselParent,
  containerState,
  instagramMetricNames,
  instagramMetrics,
  instagramUrl,
  planInstagram,
} from "../../../src/platforms/instagram/transform";
import { mediaItem } from "../../support/adapter-context";

const m = mediaItem;

describe("Instagram transform", () => {
  it("plans containers per content type", () => {
    expect(planInstagram("instagram_feed", "Hi", [m("image")])).toEqual({
      kind: "single",
      container: { image_url: "https://media.test/medias/1.jpg", caption: "Hi" },
    });
    expect(planInstagram("instagram_reel", "", [m("video")])).toEqual({
      kind: "single",
      container: {
        media_type: "REELS",
        video_url: "https://media.test/medias/1.mp4",
        caption: undefined,
        share_to_feed: true,
      },
    });
    expect(planInstagram("instagram_story", "dropped", [m("image")])).toEqual({
      kind: "single",
      container: { media_type: "STORIES", image_url: "https://media.test/medias/1.jpg" },
    });
    expect(planInstagram("instagram_carousel", "C", [m("image", 1), m("video", 2)])).toEqual({
      kind: "carousel",
      caption: "C",
      children: [
        { image_url: "https://media.test/medias/1.jpg", is_carousel_item: true },
        { media_type: "VIDEO", video_url: "https://media.test/medias/2.mp4", is_carousel_item: true },
      ],
    });
    // One item cannot be a carousel on Instagram: it goes out as a single post.
    expect(planInstagram("instagram_carousel", "C", [m("image")])).toEqual({
      kind: "single",
      container: { image_url: "https://media.test/medias/1.jpg", caption: "C" },
    });
    expect(() => planInstagram("instagram_reel", "", [m("image")])).toThrow("Instagram reels need a video.");
    expect(carouselParent(["1", "2"], "C")).toEqual({ media_type: "CAROUSEL", children: "1,2", caption: "C" });
  });

  it("reads container states", () => {
    expect(containerState({ status_code: "IN_PROGRESS", status: "In Progress", id: "1" }, "Instagram")).toEqual({
      state: "pending",
    });
    expect(containerState({ status_code: "FINISHED" }, "Instagram")).toEqual({ state: "ready" });
    expect(
      containerState(
        { status_code: "ERROR", status: "Error: Media upload has failed with error code 2207003" },
        "Instagram",
      ),
    ).toEqual({
      state: "failed",
      reason: "Instagram timed out downloading the media.",
    });
    expect(containerState({ status_code: "EXPIRED" }, "Instagram")).toEqual({
      state: "failed",
      reason: "Instagram media container expired before it was published.",
    });
  });

  it("builds URLs from permalink or shortcode", () => {
    expect(instagramUrl({ permalink: "https://www.instagram.com/p/DB1x/", shortcode: "DB1x" }, "instagram_feed")).toBe(
      "https://www.instagram.com/p/DB1x/",
    );
    expect(instagramUrl({ shortcode: "DB1x" }, "instagram_reel")).toBe("https://www.instagram.com/reel/DB1x/");
    expect(instagramUrl(null, "instagram_feed")).toBeNull();
  });

  it("maps a real insights payload to the §11 labels", () => {
    const payload = {
      data: [
        {
          name: "reach",
          period: "lifetime",
          values: [{ value: 4032 }],
          title: "Accounts reached",
          description: "…",
          id: "1/insights/reach/lifetime",
        },
        {
          name: "likes",
          period: "lifetime",
          values: [{ value: 312 }],
          title: "Likes",
          id: "1/insights/likes/lifetime",
        },
        {
          name: "comments",
          period: "lifetime",
          values: [{ value: 18 }],
          title: "Comments",
          id: "1/insights/comments/lifetime",
        },
        {
          name: "shares",
          period: "lifetime",
          values: [{ value: 7 }],
          title: "Shares",
          id: "1/insights/shares/lifetime",
        },
        { name: "saved", period: "lifetime", values: [{ value: 25 }], title: "Saved", id: "1/insights/saved/lifetime" },
        {
          name: "views",
          period: "lifetime",
          values: [{ value: 9120 }],
          title: "Views",
          id: "1/insights/views/lifetime",
        },
      ],
    };
    expect(instagramMetricNames("instagram_reel")).toBe("reach,likes,comments,shares,saved,views");
    expect(instagramMetrics("instagram_reel", payload)).toEqual([
      { label: "Reach", value: 4032 },
      { label: "Likes", value: 312 },
      { label: "Comments", value: 18 },
      { label: "Shares", value: 7 },
      { label: "Saved", value: 25 },
      { label: "Plays", value: 9120 },
    ]);
    expect(instagramMetrics("instagram_carousel", payload).map((x) => x.label)).toEqual([
      "Reach",
      "Likes",
      "Comments",
      "Shares",
      "Saved",
      "Total interactions",
    ]);
    expect(instagramMetrics("instagram_story", payload)).toEqual([
      { label: "Reach", value: 4032 },
      { label: "Impressions", value: 9120 },
      { label: "Replies", value: 0 },
    ]);
  });
});
