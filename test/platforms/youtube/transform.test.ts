import { describe, expect, it } from "vitest";
import { refreshedFromTokenResponse } from "../../../src/platforms/oauth";
import {
  insertMetadata,
  metricsFromStatistics,
  nextOffsetFromRange,
  planChunks,
  processingOutcome,
  secondsUntilQuotaReset,
  youtubeError,
} from "../../../src/platforms/youtube/transform";

const media = [
  {
    id: "m1",
    type: "video" as const,
    mimeType: "video/mp4",
    url: "https://media.test/medias/m1.mp4",
    path: "medias/m1.mp4",
    size: 10,
    width: null,
    height: null,
    originalFilename: "beach day.final.mp4",
  },
];

describe("youtube insertMetadata", () => {
  it("title from content, defaults public / not for kids / category 22", () => {
    expect(insertMetadata({ content: " Sunset #Shorts ", meta: {}, media })).toEqual({
      snippet: { title: "Sunset #Shorts", description: "", categoryId: "22" },
      status: { privacyStatus: "public", selfDeclaredMadeForKids: false },
    });
  });

  it("falls back to meta.title, then the file name", () => {
    expect(insertMetadata({ content: "", meta: { title: "From meta" }, media }).snippet.title).toBe("From meta");
    expect(insertMetadata({ content: "", meta: {}, media }).snippet.title).toBe("beach day.final");
  });

  it("takes description, tags, category, privacy and made-for-kids from meta", () => {
    expect(
      insertMetadata({
        content: "t",
        meta: {
          description: "d",
          tags: ["a", 3, "", "b"],
          category_id: "10",
          privacy_status: "private",
          made_for_kids: true,
        },
        media,
      }),
    ).toEqual({
      snippet: { title: "t", description: "d", tags: ["a", "b"], categoryId: "10" },
      status: { privacyStatus: "private", selfDeclaredMadeForKids: true },
    });
  });

  it("refuses an unknown privacy status", () => {
    expect(() => insertMetadata({ content: "t", meta: { privacy_status: "secret" }, media })).toThrow(
      "YouTube privacy_status must be public, unlisted or private.",
    );
  });
});

describe("youtube chunks and ranges", () => {
  it("plans 8 MiB chunks with a short last one", () => {
    expect(planChunks(20 * 1024 * 1024)).toEqual([
      { first: 0, last: 8388607 },
      { first: 8388608, last: 16777215 },
      { first: 16777216, last: 20971519 },
    ]);
    expect(planChunks(5)).toEqual([{ first: 0, last: 4 }]);
  });

  it("refuses chunk sizes that are not multiples of 256 KiB", () => {
    expect(() => planChunks(10, 1000)).toThrow();
  });

  it("reads the 308 Range header", () => {
    expect(nextOffsetFromRange("bytes=0-262143")).toBe(262144);
    expect(nextOffsetFromRange(null)).toBe(0);
    expect(nextOffsetFromRange("garbage")).toBe(0);
  });
});

describe("youtube quota reset", () => {
  it("counts to midnight Pacific, in winter (PST) and summer (PDT)", () => {
    expect(secondsUntilQuotaReset(Date.parse("2026-01-15T20:00:00Z"))).toBe(12 * 3600); // 12:00 PST
    expect(secondsUntilQuotaReset(Date.parse("2026-07-01T06:59:59Z"))).toBe(1); // 23:59:59 PDT
    expect(secondsUntilQuotaReset(Date.parse("2026-07-01T07:00:00Z"))).toBe(86_400); // 00:00 PDT
  });
});

describe("youtubeError", () => {
  const google = (code: number, reason: string, message: string) => ({
    error: { code, message, errors: [{ message, domain: "youtube.quota", reason }], status: "PERMISSION_DENIED" },
  });
  const noHeaders = new Headers();
  const noon = Date.parse("2026-01-15T20:00:00Z");

  it("quotaExceeded → transient until the reset; the HTML in Google's message is never shown", () => {
    const err = youtubeError(
      403,
      google(
        403,
        "quotaExceeded",
        'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.',
      ),
      noHeaders,
      noon,
    );
    expect([err.kind, err.message, err.retryAfterSeconds]).toEqual([
      "transient",
      "The YouTube API daily quota is used up.",
      43_200,
    ]);
  });

  it.each([
    [403, "rateLimitExceeded", "transient", "YouTube rate limit reached."],
    [429, "userRateLimitExceeded", "transient", "YouTube rate limit reached."],
    [401, "authError", "auth", "The YouTube access token is invalid or expired."],
    [
      401,
      "youtubeSignupRequired",
      "permanent",
      "This Google account has no YouTube channel: create one, then reconnect the account.",
    ],
    [400, "invalidTitle", "permanent", "YouTube: The request metadata specifies an invalid video title."],
    [403, "forbidden", "permanent", "YouTube: The request metadata specifies an invalid video title."],
    [500, "backendError", "transient", "YouTube: The request metadata specifies an invalid video title."],
  ])("%i %s → %s", (status, reason, kind, message) => {
    const err = youtubeError(
      status,
      google(status, reason, "The request metadata specifies an invalid video title."),
      noHeaders,
      noon,
    );
    expect([err.kind, err.message, err.status]).toEqual([kind, message, status]);
  });

  it("strips HTML from other messages and handles an empty body", () => {
    expect(youtubeError(400, google(400, "x", "Bad <b>thing</b>"), noHeaders, 0).message).toBe("YouTube: Bad thing.");
    expect(youtubeError(502, null, noHeaders, 0).message).toBe("YouTube answered HTTP 502.");
  });
});

describe("youtube processingOutcome", () => {
  it.each([
    [{ uploadStatus: "uploaded" }, { processingStatus: "processing" }, { state: "processing" }],
    [{ uploadStatus: "processed" }, { processingStatus: "succeeded" }, { state: "done" }],
    [{ uploadStatus: "uploaded" }, { processingStatus: "succeeded" }, { state: "done" }],
    [
      { uploadStatus: "rejected", rejectionReason: "copyright" },
      undefined,
      { state: "failed", message: "YouTube rejected the video for copyright infringement." },
    ],
    [
      { uploadStatus: "failed", failureReason: "tooSmall" },
      { processingStatus: "failed" },
      { state: "failed", message: "YouTube could not process the video: the file is too small." },
    ],
    [
      { uploadStatus: "deleted" },
      undefined,
      { state: "failed", message: "The YouTube video was deleted during processing." },
    ],
  ])("%o %o", (status, processingDetails, outcome) => {
    expect(processingOutcome({ id: "x", status, processingDetails })).toEqual(outcome);
  });
});

describe("youtube metrics and refresh", () => {
  it("maps statistics strings; hidden counts read as 0", () => {
    expect(
      metricsFromStatistics({ viewCount: "1200345", likeCount: "4501", favoriteCount: "0", commentCount: "88" }),
    ).toEqual([
      { label: "Views", value: 1200345 },
      { label: "Likes", value: 4501 },
      { label: "Comments", value: 88 },
    ]);
    expect(metricsFromStatistics({ viewCount: "10", favoriteCount: "0" })).toEqual([
      { label: "Views", value: 10 },
      { label: "Likes", value: 0 },
      { label: "Comments", value: 0 },
    ]);
  });

  it("keeps the old refresh token unless Google sends a new one", () => {
    expect(refreshedFromTokenResponse({ access_token: "a", expires_in: 3599 }, { refresh_token: "old" }, 1000)).toEqual(
      {
        credentials: { access_token: "a", refresh_token: "old", expires_at: 3_600_000 },
        expiresAt: 3_600_000,
      },
    );
    expect(
      refreshedFromTokenResponse({ access_token: "a", refresh_token: "new" }, { refresh_token: "old" }, 0).credentials
        .refresh_token,
    ).toBe("new");
  });

  it("keeps the refresh token's own end where the answer gives it (Google: time-based access), else the previous one", () => {
    // developers.google.com/identity/protocols/oauth2/web-server: `refresh_token_expires_in` is set only when the
    // user granted time-based access.
    const timed = refreshedFromTokenResponse(
      { access_token: "a", expires_in: 3599, refresh_token_expires_in: 604_800 },
      { refresh_token: "old" },
      1000,
    );
    expect(timed.credentials.refresh_expires_at).toBe(1000 + 604_800_000);
    const later = refreshedFromTokenResponse({ access_token: "b", expires_in: 3599 }, timed.credentials, 5000);
    expect(later.credentials.refresh_expires_at).toBe(1000 + 604_800_000);
  });
});
