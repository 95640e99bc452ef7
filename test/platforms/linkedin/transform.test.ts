import { describe, expect, it } from "vitest";
import { byteRanges } from "../../../src/platforms/linkedin/parts";
import {
  authorUrn,
  escapeLittleText,
  imageContent,
  pageMetrics,
  planMedia,
  secondsUntilUtcMidnight,
  shareStatisticsQuery,
  videoContent,
  videoState,
} from "../../../src/platforms/linkedin/transform";
import { refreshedFromTokenResponse } from "../../../src/platforms/oauth";
import type { AdapterMedia } from "../../../src/platforms/types";
import { testAccount } from "../../support/adapter-context";

const media = (type: "image" | "video"): AdapterMedia => ({
  id: crypto.randomUUID(),
  type,
  mimeType: type === "image" ? "image/jpeg" : "video/mp4",
  url: "https://media.test/medias/x",
  path: "medias/x",
  size: 1,
  width: null,
  height: null,
  originalFilename: "x",
});

describe("LinkedIn transform", () => {
  it("escapes every little-text reserved character", () => {
    expect(escapeLittleText("a\\b|c{d}e@f[g]h(i)j<k>l#m*n_o~p plain.")).toBe(
      "a\\\\b\\|c\\{d\\}e\\@f\\[g\\]h\\(i\\)j\\<k\\>l\\#m\\*n\\_o\\~p plain.",
    );
  });

  it("leaves the # of a hashtag unescaped (little's HashtagElement) and escapes every other #", () => {
    expect(escapeLittleText("#launch day: C# and #1, a#b, # alone, (#日本) &#38; #_x")).toBe(
      "#launch day: C\\# and #1, a\\#b, \\# alone, \\(#日本\\) &\\#38; \\#\\_x",
    );
  });

  it("builds author URNs for members and pages", () => {
    expect(authorUrn(testAccount("linkedin", { platformUserId: "yrZCpj2Z12" }))).toBe("urn:li:person:yrZCpj2Z12");
    expect(authorUrn(testAccount("linkedin-page", { platformUserId: "2414183" }))).toBe("urn:li:organization:2414183");
    expect(authorUrn(testAccount("linkedin-page", { platformUserId: "1", meta: { organization_id: 5515715 } }))).toBe(
      "urn:li:organization:5515715",
    );
    expect(() => authorUrn(testAccount("linkedin", { platformUserId: null }))).toThrow("no member id");
  });

  it("plans media per content type", () => {
    const img = media("image");
    const vid = media("video");
    expect(planMedia("linkedin_post", [])).toEqual({ kind: "none" });
    expect(planMedia("linkedin_post", [vid])).toEqual({ kind: "video", video: vid });
    expect(planMedia("linkedin_page_carousel", [img, img])).toEqual({ kind: "images", images: [img, img] });
    expect(() => planMedia("linkedin_carousel", [])).toThrow("LinkedIn carousels need images.");
    expect(() => planMedia("linkedin_post", [vid, img])).toThrow("one video");
  });

  it("shapes image and video content", () => {
    expect(imageContent(["urn:li:image:A"])).toEqual({ media: { id: "urn:li:image:A" } });
    expect(imageContent(["urn:li:image:A", "urn:li:image:B"])).toEqual({
      multiImage: { images: [{ id: "urn:li:image:A" }, { id: "urn:li:image:B" }] },
    });
    expect(videoContent("urn:li:video:V", undefined)).toEqual({ media: { id: "urn:li:video:V" } });
    expect(videoContent("urn:li:video:V", "Title")).toEqual({ media: { id: "urn:li:video:V", title: "Title" } });
  });

  it("reads video processing states", () => {
    expect(videoState({ status: "PROCESSING" })).toBe("pending");
    expect(videoState({ status: "WAITING_UPLOAD" })).toBe("pending");
    expect(videoState({ status: "AVAILABLE" })).toBe("ready");
    expect(videoState({ status: "PROCESSING_FAILED", processingFailureReason: "Video is too short" })).toEqual({
      failed: "LinkedIn could not process the video: Video is too short",
    });
  });

  it("builds the Rest.li share statistics query for shares and ugcPosts", () => {
    expect(shareStatisticsQuery("urn:li:organization:2414183", "urn:li:share:6844785523593134080")).toBe(
      "q=organizationalEntity&organizationalEntity=urn%3Ali%3Aorganization%3A2414183&shares=List(urn%3Ali%3Ashare%3A6844785523593134080)",
    );
    expect(shareStatisticsQuery("urn:li:organization:1", "urn:li:ugcPost:7")).toBe(
      "q=organizationalEntity&organizationalEntity=urn%3Ali%3Aorganization%3A1&ugcPosts=List(urn%3Ali%3AugcPost%3A7)",
    );
  });

  it("maps a real share statistics payload and an empty one", () => {
    const payload = {
      paging: { count: 10, start: 0, links: [] },
      elements: [
        {
          totalShareStatistics: {
            uniqueImpressionsCount: 21,
            shareCount: 1,
            engagement: 0.1282051282051282,
            clickCount: 3,
            likeCount: 1,
            impressionCount: 39,
            commentCount: 0,
          },
          share: "urn:li:share:6844785523593134080",
          organizationalEntity: "urn:li:organization:2414183",
        },
      ],
    };
    expect(pageMetrics(payload)).toEqual([
      { label: "Impressions", value: 39 },
      { label: "Likes", value: 1 },
      { label: "Comments", value: 0 },
      { label: "Shares", value: 1 },
      { label: "Clicks", value: 3 },
    ]);
    expect(pageMetrics({ elements: [] }).map((m) => m.value)).toEqual([0, 0, 0, 0, 0]);
  });

  it("counts seconds to the next 00:00 UTC", () => {
    expect(secondsUntilUtcMidnight(Date.UTC(2026, 5, 30, 23, 59, 30))).toBe(30);
    expect(secondsUntilUtcMidnight(Date.UTC(2026, 0, 1, 0, 0, 0))).toBe(86_400);
  });

  it("keeps the old refresh token when LinkedIn does not return a new one", () => {
    expect(
      refreshedFromTokenResponse(
        { access_token: "new", expires_in: 10 },
        { access_token: "old", refresh_token: "r" },
        1000,
      ),
    ).toEqual({
      credentials: { access_token: "new", refresh_token: "r", expires_at: 11_000 },
      expiresAt: 11_000,
    });
  });
});

describe("byteRanges", () => {
  const streamOf = (chunks: number[][]) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const ch of chunks) c.enqueue(new Uint8Array(ch));
        c.close();
      },
    });

  it("cuts arbitrary chunks into the instructed parts", async () => {
    const parts: number[][] = [];
    const ranges = [
      { firstByte: 0, lastByte: 3 },
      { firstByte: 4, lastByte: 7 },
      { firstByte: 8, lastByte: 9 },
    ];
    for await (const p of byteRanges(streamOf([[0, 1], [2, 3, 4, 5, 6], [], [7, 8, 9]]), ranges)) parts.push([...p]);
    expect(parts).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9],
    ]);
  });

  it("fails when the stream is shorter than the instructions", async () => {
    const run = async () => {
      for await (const _ of byteRanges(streamOf([[1, 2]]), [{ firstByte: 0, lastByte: 3 }])) {
        // drain
      }
    };
    await expect(run()).rejects.toThrow("The media ended before the upload instructions' last byte.");
  });
});
