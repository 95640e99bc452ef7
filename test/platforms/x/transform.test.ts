import { describe, expect, it } from "vitest";
import {
  comparableText,
  mediaPlan,
  metricsFromPublic,
  problemText,
  resetSeconds,
  tweetBody,
  tweetUrl,
} from "../../../src/platforms/x/transform";

describe("x transforms", () => {
  it("builds tweet bodies with text and/or media", () => {
    expect(tweetBody("hi", [])).toEqual({ text: "hi" });
    expect(tweetBody("", ["1"])).toEqual({ media: { media_ids: ["1"] } });
    expect(tweetBody("hi", ["1", "2"])).toEqual({ text: "hi", media: { media_ids: ["1", "2"] } });
  });

  it("builds the public URL", () => {
    expect(tweetUrl("@alice", "42")).toBe("https://x.com/alice/status/42");
    expect(tweetUrl("", "42")).toBe("https://x.com/i/web/status/42");
  });

  it("maps public_metrics to the X labels", () => {
    expect(
      metricsFromPublic({
        impression_count: 100,
        like_count: 5,
        retweet_count: 2,
        reply_count: 1,
        quote_count: 3,
        bookmark_count: 4,
      }),
    ).toEqual([
      { label: "Impressions", value: 100 },
      { label: "Likes", value: 5 },
      { label: "Retweets", value: 2 },
      { label: "Replies", value: 1 },
      { label: "Quotes", value: 3 },
      { label: "Bookmarks", value: 4 },
    ]);
  });

  it("reads the reason from problem and v1.1 bodies", () => {
    expect(
      problemText({ title: "Forbidden", detail: "You are not allowed to create a Tweet with duplicate content." }, 403),
    ).toBe("You are not allowed to create a Tweet with duplicate content.");
    expect(problemText({ errors: [{ code: 88, message: "Rate limit exceeded" }] }, 429)).toBe("Rate limit exceeded");
    expect(problemText(null, 502)).toBe("HTTP 502");
  });

  it("chooses upload paths and categories", () => {
    expect(mediaPlan("image", "image/jpeg")).toEqual({ chunked: false, category: "tweet_image" });
    expect(mediaPlan("image", "image/gif")).toEqual({ chunked: true, category: "tweet_gif" });
    expect(mediaPlan("video", "video/mp4")).toEqual({ chunked: true, category: "tweet_video" });
  });

  it("compares texts ignoring links, whitespace and entities", () => {
    expect(comparableText("Tom &amp; Jerry  https://t.co/abc")).toBe("Tom & Jerry");
    expect(comparableText("Tom & Jerry https://example.com/long")).toBe("Tom & Jerry");
  });

  it("turns rate-limit headers into seconds, a spent daily cap first", () => {
    const now = 1_000_000_000_000;
    const window = new Headers({ "x-rate-limit-remaining": "0", "x-rate-limit-reset": String(now / 1000 + 120) });
    expect(resetSeconds(window, now)).toBe(120);
    const daily = new Headers({
      "x-rate-limit-reset": String(now / 1000 + 120),
      "x-user-limit-24hour-remaining": "0",
      "x-user-limit-24hour-reset": String(now / 1000 + 3600),
    });
    expect(resetSeconds(daily, now)).toBe(3600);
    expect(resetSeconds(new Headers(), now)).toBeUndefined();
  });
});
