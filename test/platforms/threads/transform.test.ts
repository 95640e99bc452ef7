import { describe, expect, it } from "vitest";
import {
  carouselParent,
  containerState,
  humanizeErrorCode,
  planThreads,
  threadsMetrics,
  threadsUrl,
} from "../../../src/platforms/threads/transform";
import { mediaItem } from "../../support/adapter-context";

const m = mediaItem;

describe("Threads transform", () => {
  it("plans text, image, video and carousel containers", () => {
    expect(planThreads("Hi", [])).toEqual({
      kind: "single",
      container: { media_type: "TEXT", text: "Hi" },
      poll: false,
    });
    expect(planThreads("Hi", [m("image")])).toEqual({
      kind: "single",
      container: { media_type: "IMAGE", image_url: "https://media.test/medias/1.jpg", text: "Hi" },
      poll: true,
    });
    expect(planThreads("", [m("video")])).toEqual({
      kind: "single",
      container: { media_type: "VIDEO", video_url: "https://media.test/medias/1.mp4", text: undefined },
      poll: true,
    });
    expect(planThreads("C", [m("image", 1), m("video", 2)])).toEqual({
      kind: "carousel",
      text: "C",
      children: [
        { media_type: "IMAGE", image_url: "https://media.test/medias/1.jpg", is_carousel_item: true },
        { media_type: "VIDEO", video_url: "https://media.test/medias/2.mp4", is_carousel_item: true },
      ],
    });
    expect(carouselParent(["1", "2"], undefined)).toEqual({ media_type: "CAROUSEL", children: "1,2", text: undefined });
    expect(() => planThreads(" ", [])).toThrow("Threads posts need text or media.");
  });

  it("reads container states and error codes", () => {
    expect(containerState({ status: "IN_PROGRESS", id: "1" })).toEqual({ state: "pending" });
    expect(containerState({ status: "FINISHED", id: "1" })).toEqual({ state: "ready" });
    expect(containerState({ status: "ERROR", error_message: "FAILED_PROCESSING_VIDEO", id: "1" })).toEqual({
      state: "failed",
      reason: "Threads could not process the media: Failed processing video.",
    });
    expect(containerState({ status: "EXPIRED" })).toEqual({
      state: "failed",
      reason: "Threads media container expired before it was published.",
    });
    expect(humanizeErrorCode("THREADS_API__LINK_LIMIT_EXCEEDED")).toBe("Link limit exceeded");
  });

  it("builds URLs", () => {
    // threads.com is the canonical domain: a threads.net permalink is moved there.
    expect(threadsUrl({ permalink: "https://www.threads.net/@zuck/post/C1x", shortcode: "C1x" }, "zuck")).toBe(
      "https://www.threads.com/@zuck/post/C1x",
    );
    expect(threadsUrl({ permalink: "https://www.threads.com/@zuck/post/C1x" }, "zuck")).toBe(
      "https://www.threads.com/@zuck/post/C1x",
    );
    expect(threadsUrl({ shortcode: "C1x" }, "zuck")).toBe("https://www.threads.com/@zuck/post/C1x");
    expect(threadsUrl({}, "zuck")).toBeNull();
  });

  it("maps insights with values and total_value", () => {
    const payload = {
      data: [
        {
          name: "views",
          period: "lifetime",
          values: [{ value: 1544 }],
          title: "Views",
          description: "…",
          id: "1/insights/views/lifetime",
        },
        { name: "likes", period: "lifetime", values: [{ value: 87 }], title: "Likes", id: "1/insights/likes/lifetime" },
        {
          name: "replies",
          period: "lifetime",
          total_value: { value: 12 },
          title: "Replies",
          id: "1/insights/replies/lifetime",
        },
        {
          name: "reposts",
          period: "lifetime",
          values: [{ value: 5 }],
          title: "Reposts",
          id: "1/insights/reposts/lifetime",
        },
        {
          name: "quotes",
          period: "lifetime",
          values: [{ value: 2 }],
          title: "Quotes",
          id: "1/insights/quotes/lifetime",
        },
      ],
    };
    expect(threadsMetrics(payload)).toEqual([
      { label: "Views", value: 1544 },
      { label: "Likes", value: 87 },
      { label: "Replies", value: 12 },
      { label: "Reposts", value: 5 },
      { label: "Quotes", value: 2 },
    ]);
  });
});
