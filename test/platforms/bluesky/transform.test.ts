import { describe, expect, it } from "vitest";
import {
  buildFacets,
  detectFacets,
  imagesEmbed,
  jwtExpiresAt,
  metricsFromPostView,
  postRecord,
  postUrl,
  TID_RE,
  tidFromRowId,
  videoEmbed,
} from "../../../src/platforms/bluesky/transform";

const blob = (cid: string, mimeType = "image/jpeg") => ({
  $type: "blob" as const,
  ref: { $link: cid },
  mimeType,
  size: 10,
});

describe("tidFromRowId", () => {
  it("derives a valid TID, the same for the same row and different across rows", () => {
    const id = "0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a";
    const tid = tidFromRowId(id);
    expect(tid).toMatch(TID_RE);
    expect(tid).toHaveLength(13);
    expect(tidFromRowId(id)).toBe(tid);
    expect(tidFromRowId(id.toUpperCase())).toBe(tid);
    const many = new Set(Array.from({ length: 500 }, () => tidFromRowId(crypto.randomUUID())));
    expect(many.size).toBe(500);
    for (const t of many) expect(t).toMatch(TID_RE);
  });

  it("encodes a plausible microsecond timestamp (2023 onwards)", () => {
    const S32 = "234567abcdefghijklmnopqrstuvwxyz";
    const tid = tidFromRowId(crypto.randomUUID());
    let v = 0n;
    for (const ch of tid.slice(0, 11)) v = v * 32n + BigInt(S32.indexOf(ch));
    const ms = Number(v / 1000n);
    expect(ms).toBeGreaterThanOrEqual(Date.UTC(2023, 0, 1));
    expect(ms).toBeLessThan(Date.UTC(2028, 0, 1));
  });
});

describe("detectFacets", () => {
  it("finds links, mentions and hashtags with UTF-8 byte offsets", () => {
    const text = "Héllo 👋 @bob.test, see https://example.com/a?b=1. #launch #2024 #café!";
    const facets = detectFacets(text);
    const bytes = new TextEncoder().encode(text);
    const slice = (s: number, e: number) => new TextDecoder().decode(bytes.slice(s, e));
    expect(facets.map((f) => ({ ...f, text: slice(f.byteStart, f.byteEnd) }))).toEqual([
      { byteStart: 12, byteEnd: 21, kind: "mention", handle: "bob.test", text: "@bob.test" },
      { byteStart: 27, byteEnd: 52, kind: "link", uri: "https://example.com/a?b=1", text: "https://example.com/a?b=1" },
      { byteStart: 54, byteEnd: 61, kind: "tag", tag: "launch", text: "#launch" },
      { byteStart: 68, byteEnd: 74, kind: "tag", tag: "café", text: "#café" },
    ]);
  });

  it("covers a full-width ＃ hashtag with its 3-byte sign", () => {
    const text = "日本 ＃東京 and #tokyo";
    const bytes = new TextEncoder().encode(text);
    const slice = (s: number, e: number) => new TextDecoder().decode(bytes.slice(s, e));
    const facets = detectFacets(text);
    expect(facets.map((f) => ({ ...f, text: slice(f.byteStart, f.byteEnd) }))).toEqual([
      { byteStart: 7, byteEnd: 16, kind: "tag", tag: "東京", text: "＃東京" },
      { byteStart: 21, byteEnd: 27, kind: "tag", tag: "tokyo", text: "#tokyo" },
    ]);
  });

  it("ignores e-mail addresses, bare words and handles without a domain", () => {
    expect(detectFacets("mail me at alice@example.com or @alice")).toEqual([]);
  });

  it("drops a closing parenthesis that is not part of the link", () => {
    const [link] = detectFacets("(see https://example.com/x)");
    expect(link).toMatchObject({ kind: "link", uri: "https://example.com/x" });
  });
});

describe("buildFacets", () => {
  it("keeps resolved mentions and drops unresolved ones", () => {
    const detected = detectFacets("@bob.test @nobody.test #tag https://a.example");
    expect(buildFacets(detected, new Map([["bob.test", "did:plc:bob"]]))).toEqual([
      {
        index: { byteStart: 0, byteEnd: 9 },
        features: [{ $type: "app.bsky.richtext.facet#mention", did: "did:plc:bob" }],
      },
      { index: { byteStart: 23, byteEnd: 27 }, features: [{ $type: "app.bsky.richtext.facet#tag", tag: "tag" }] },
      {
        index: { byteStart: 28, byteEnd: 45 },
        features: [{ $type: "app.bsky.richtext.facet#link", uri: "https://a.example" }],
      },
    ]);
  });
});

describe("records and embeds", () => {
  it("builds a post record with facets and an images embed", () => {
    const embed = imagesEmbed([
      { blob: blob("bafk1"), width: 1200, height: 800 },
      { blob: blob("bafk2"), width: null, height: null },
    ]);
    expect(postRecord("hi", Date.UTC(2026, 10, 22, 10), [], embed)).toEqual({
      $type: "app.bsky.feed.post",
      text: "hi",
      createdAt: "2026-11-22T10:00:00.000Z",
      embed: {
        $type: "app.bsky.embed.images",
        images: [
          { image: blob("bafk1"), alt: "", aspectRatio: { width: 1200, height: 800 } },
          { image: blob("bafk2"), alt: "" },
        ],
      },
    });
  });

  it("builds a video embed", () => {
    expect(videoEmbed(blob("bafv", "video/mp4"), 1080, 1920)).toEqual({
      $type: "app.bsky.embed.video",
      video: blob("bafv", "video/mp4"),
      aspectRatio: { width: 1080, height: 1920 },
    });
  });

  it("builds the public URL from the at-uri's record key", () => {
    expect(postUrl("alice.test", "at://did:plc:a/app.bsky.feed.post/3kabcdefghij2")).toBe(
      "https://bsky.app/profile/alice.test/post/3kabcdefghij2",
    );
  });
});

describe("metrics and tokens", () => {
  it("maps getPosts counts to the Bluesky labels", () => {
    expect(
      metricsFromPostView({ uri: "at://x", cid: "c", likeCount: 5, repostCount: 2, quoteCount: 1, replyCount: 3 }),
    ).toEqual([
      { label: "Likes", value: 5 },
      { label: "Reposts", value: 2 },
      { label: "Quotes", value: 1 },
      { label: "Replies", value: 3 },
    ]);
  });

  it("reads the expiry of an access JWT", () => {
    const payload = btoa(JSON.stringify({ exp: 1_800_000_000 })).replace(/=+$/, "");
    expect(jwtExpiresAt(`eyJhbGciOiJIUzI1NiJ9.${payload}.sig`)).toBe(1_800_000_000_000);
    expect(jwtExpiresAt("not-a-jwt")).toBeNull();
    expect(jwtExpiresAt(undefined)).toBeNull();
  });
});
