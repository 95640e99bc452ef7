import { describe, expect, it } from "vitest";
import {
  choosePrivacyLevel,
  parseStatusBody,
  planChunks,
  postUrl,
  statusOutcome,
  tiktokError,
  videoInitBody,
} from "../../../src/platforms/tiktok/transform";

const MIB = 1024 * 1024;

describe("tiktok planChunks (TikTok media transfer rules)", () => {
  it.each([
    [1, 1, 1],
    [4 * MIB, 4 * MIB, 1],
    [15 * MIB, 15 * MIB, 1],
    [20 * MIB, 10 * MIB, 2],
    [25 * MIB + 123, 10 * MIB, 2],
    [1024 * MIB, 10 * MIB, 102],
  ])("size %i → chunk_size %i, total_chunk_count %i", (size, chunk, count) => {
    const plan = planChunks(size);
    expect(plan.source).toEqual({
      source: "FILE_UPLOAD",
      video_size: size,
      chunk_size: chunk,
      total_chunk_count: count,
    });
    expect(plan.ranges).toHaveLength(count);
    expect(plan.ranges[0]!.first).toBe(0);
    expect(plan.ranges.at(-1)!.last).toBe(size - 1);
    for (let i = 1; i < plan.ranges.length; i++) expect(plan.ranges[i]!.first).toBe(plan.ranges[i - 1]!.last + 1);
    // every chunk but the last is exactly chunk_size; the last holds the remainder and stays ≤ 128 MB
    for (const r of plan.ranges.slice(0, -1)) expect(r.last - r.first + 1).toBe(chunk);
    const last = plan.ranges.at(-1)!;
    expect(last.last - last.first + 1).toBeLessThanOrEqual(128 * MIB);
    if (size >= 5 * MIB && count > 1) expect(chunk).toBeGreaterThanOrEqual(5 * MIB);
  });

  it("the last chunk of a 1 GiB file takes the remainder (14 MiB)", () => {
    const last = planChunks(1024 * MIB).ranges.at(-1)!;
    expect(last).toEqual({ first: 1010 * MIB, last: 1024 * MIB - 1 });
  });
});

describe("tiktok choosePrivacyLevel", () => {
  const all = ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY"];
  it("defaults to the most private level offered (no visibility is chosen for the creator)", () => {
    expect(choosePrivacyLevel(undefined, all)).toEqual({ ok: true, level: "SELF_ONLY" });
    expect(choosePrivacyLevel(undefined, ["PUBLIC_TO_EVERYONE", "FOLLOWER_OF_CREATOR"])).toEqual({
      ok: true,
      level: "FOLLOWER_OF_CREATOR",
    });
    expect(choosePrivacyLevel(undefined, ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS"])).toEqual({
      ok: true,
      level: "MUTUAL_FOLLOW_FRIENDS",
    });
    expect(choosePrivacyLevel(undefined, undefined)).toEqual({ ok: true, level: "SELF_ONLY" });
  });

  it("keeps an offered requested level and refuses another", () => {
    expect(choosePrivacyLevel("SELF_ONLY", all)).toEqual({ ok: true, level: "SELF_ONLY" });
    expect(choosePrivacyLevel("PUBLIC_TO_EVERYONE", ["SELF_ONLY"])).toEqual({
      ok: false,
      message: "TikTok privacy level PUBLIC_TO_EVERYONE is not available for this account (allowed: SELF_ONLY).",
    });
  });
});

describe("tiktok videoInitBody", () => {
  it("interactions are off unless meta turns them on, and a creator's disabled ones stay off", () => {
    const body = videoInitBody(
      {
        content: "caption",
        meta: {
          disable_comment: true,
          disable_duet: false,
          disable_stitch: false,
          video_cover_timestamp_ms: 1500,
          brand_content_toggle: true,
        },
      },
      "SELF_ONLY",
      { duet_disabled: true, stitch_disabled: false, comment_disabled: false },
      { source: "PULL_FROM_URL", video_url: "https://media.test/medias/a.mp4" },
    );
    expect(body).toEqual({
      post_info: {
        title: "caption",
        privacy_level: "SELF_ONLY",
        disable_duet: true,
        disable_comment: true,
        disable_stitch: false,
        video_cover_timestamp_ms: 1500,
        brand_content_toggle: true,
        brand_organic_toggle: false,
        is_aigc: false,
      },
      source_info: { source: "PULL_FROM_URL", video_url: "https://media.test/medias/a.mp4" },
    });
  });
});

describe("tiktok status parsing", () => {
  it("keeps int64 post ids exact (JSON.parse would round them)", () => {
    const text =
      '{"data":{"status":"PUBLISH_COMPLETE","publicaly_available_post_id":[7351234567890123457],"uploaded_bytes":10485760},' +
      '"error":{"code":"ok","message":"","log_id":"20240101000000ABCDEF"}}';
    expect(String(JSON.parse(text).data.publicaly_available_post_id[0])).not.toBe("7351234567890123457");
    const parsed = parseStatusBody(text)!;
    expect(parsed.data).toEqual({
      status: "PUBLISH_COMPLETE",
      publicaly_available_post_id: ["7351234567890123457"],
      uploaded_bytes: 10485760,
    });
    expect(statusOutcome(parsed.data!)).toEqual({ state: "complete", postId: "7351234567890123457" });
  });

  it("reads processing, private completion and failure", () => {
    expect(statusOutcome({ status: "PROCESSING_DOWNLOAD", downloaded_bytes: 100 })).toEqual({ state: "processing" });
    expect(statusOutcome({ status: "SEND_TO_USER_INBOX" })).toEqual({ state: "processing" });
    expect(statusOutcome({ status: "PUBLISH_COMPLETE", publicaly_available_post_id: [] })).toEqual({
      state: "complete",
      postId: null,
    });
    expect(statusOutcome({ status: "FAILED", fail_reason: "file_format_check_failed" })).toEqual({
      state: "failed",
      message: "TikTok rejected the video format.",
    });
    expect(statusOutcome({ status: "FAILED", fail_reason: "some_new_reason" })).toEqual({
      state: "failed",
      message: "TikTok failed the post: Some new reason.",
    });
  });

  it("returns null for a body that is not JSON", () => {
    expect(parseStatusBody("<html>502</html>")).toBeNull();
  });
});

describe("tiktokError", () => {
  const headers = new Headers();
  const env = (code: string, message: string) => ({ data: {}, error: { code, message, log_id: "LOG" } });

  it.each([
    [429, "rate_limit_exceeded", "Api rate limit exceeded", "transient", "TikTok rate limit reached.", 60],
    [
      401,
      "access_token_invalid",
      "The access token is invalid",
      "auth",
      "The TikTok access token is invalid or expired.",
      undefined,
    ],
    [
      401,
      "scope_not_authorized",
      "scope",
      // A refresh keeps the scopes: a reconnect (docs/account-health.md), in TikTok's words.
      "permanent",
      "TikTok: scope.",
      undefined,
    ],
    [500, "internal_error", "Something went wrong", "transient", "TikTok had an internal error.", undefined],
    [400, "invalid_params", "video_size is required", "permanent", "TikTok: video_size is required.", undefined],
    [403, "spam_risk_text", "", "permanent", "TikTok flagged the caption as spam.", undefined],
    [403, "brand_new_code", "", "permanent", "TikTok error: Brand new code.", undefined],
  ])("%i %s → %s", (status, code, message, kind, text, retry) => {
    const err = tiktokError(status, env(code, message), headers, 0);
    expect([err.kind, err.message, err.retryAfterSeconds, err.status]).toEqual([kind, text, retry, status]);
  });

  it("treats code rate_limit_exceeded inside HTTP 200 as throttling too", () => {
    const err = tiktokError(200, env("rate_limit_exceeded", "slow down"), headers, 0);
    expect([err.kind, err.retryAfterSeconds]).toEqual(["transient", 60]);
  });

  it("a 502 without a body", () => {
    const err = tiktokError(502, null, headers, 0);
    expect([err.kind, err.message]).toEqual(["transient", "TikTok answered HTTP 502."]);
  });
});

describe("tiktok postUrl", () => {
  it("builds video and photo URLs", () => {
    expect(postUrl("tester_tt", "7351234567890123456", "video")).toBe(
      "https://www.tiktok.com/@tester_tt/video/7351234567890123456",
    );
    expect(postUrl("tester.tt", "1", "photo")).toBe("https://www.tiktok.com/@tester.tt/photo/1");
  });
});
