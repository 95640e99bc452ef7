import { describe, expect, it } from "vitest";
import {
  contentLength,
  extractUrls,
  graphemeLength,
  mastodonLength,
  xWeightedLength,
} from "../../src/catalog/text-length";

/** Expected values computed with the npm package twitter-text 3.1.0 (`parseTweet(text).weightedLength`). */
const TWITTER_TEXT_3_1_0: [string, number][] = [
  ["Hello world", 11],
  ["a".repeat(280), 280],
  ["a".repeat(281), 281],
  ["日本語のテキスト", 16],
  ["Check https://example.com/path?q=1.", 30],
  ["see example.com and foo.co.uk/x, ok", 59],
  ["emoji 😀👍🏽🇫🇷🏳️‍🌈 done", 19],
  ["cafe\u0301", 4],
  ["http://t.co/abc123xyz?x=1 trailing", 32],
  ["mail me@example.com", 19],
  ["#hashtag @user $CASH", 20],
  ["(https://en.wikipedia.org/wiki/Rust_(programming_language))", 25],
  ["www.example.org!", 24],
  ["https://example.com:8080/a/b/", 23],
  ["ftp://example.com", 17],
  ["Привет мир", 10],
  ["한국어 텍스트 https://한국.kr", 37],
  ["…—–“quotes”", 12],
  ["x.com", 23],
  ["1️⃣ #️⃣ ©️ © ®", 12],
  ["https://example.com/foo.bar,baz", 23],
  ["go to https://a.b.example.io/?utm=1&x=2#frag now", 33],
  ["_example.com", 12],
  ["test.example.com/@user/", 23],
  ["😀".repeat(141), 282],
  ["ｆｕｌｌ", 8],
  [`https://${"a".repeat(300)}.com is long`, 320],
  ["two links https://a.com https://b.org/x?y=z end", 61],
  ["Ω≈ç√∫˜µ≤≥÷", 15],
  ["नमस्ते दुनिया", 13],
];

describe("X weighted length (twitter-text v3)", () => {
  it.each(TWITTER_TEXT_3_1_0)("%j counts %i", (text, expected) => {
    expect(xWeightedLength(text)).toBe(expected);
  });

  it("counts a modern ZWJ sequence as one emoji (twitter-text 3.1.0's Emoji 11 parser splits it: 7)", () => {
    expect(xWeightedLength("💻🧑‍💻")).toBe(4);
  });

  it("finds URLs with and without a protocol, trailing punctuation excluded", () => {
    expect(extractUrls("see https://example.com/a. and www.test.org, then foo.bar").map((u) => u.url)).toEqual([
      "https://example.com/a",
      "www.test.org",
      "foo.bar",
    ]);
    expect(
      extractUrls("only https://example.com/x here and example.com", { withoutProtocol: false }).map((u) => u.url),
    ).toEqual(["https://example.com/x"]);
  });
});

describe("Bluesky graphemes", () => {
  it("counts grapheme clusters", () => {
    expect(graphemeLength("🏳️‍🌈👍🏽e\u0301")).toBe(3);
    expect(graphemeLength("https://example.com/a/very/long/path")).toBe(36);
    expect(contentLength("bluesky", "नमस्ते")).toBe(3);
  });
});

describe("Mastodon", () => {
  it("counts each http(s) URL as 23 and remote mentions without their domain", () => {
    expect(mastodonLength(`read https://example.com/${"x".repeat(100)} now`)).toBe(5 + 23 + 4);
    expect(mastodonLength("hi @alice@mastodon.social and @bob")).toBe("hi @alice and @bob".length);
    expect(mastodonLength("bare example.com stays")).toBe(22);
    expect(contentLength("mastodon", "😀😀")).toBe(2);
  });

  it("counts grapheme clusters, as StatusLengthValidator's each_grapheme_cluster does", () => {
    // A family ZWJ sequence, a flag and a combining accent: one character each (code points would say 7 + 2 + 2).
    expect(mastodonLength("👨‍👩‍👧🇫🇷e\u0301")).toBe(3);
    expect(contentLength("mastodon", `${"👍🏽".repeat(500)}`)).toBe(500);
  });

  it("counts URLs as the instance's characters_reserved_per_url", () => {
    const text = `see https://example.com/${"p".repeat(60)}`;
    expect(contentLength("mastodon", text)).toBe(4 + 23);
    expect(contentLength("mastodon", text, { urlLength: 30 })).toBe(4 + 30);
  });
});

describe("Threads (emoji count their UTF-8 bytes)", () => {
  it("counts code points, and each emoji as its UTF-8 byte length", () => {
    expect(contentLength("threads", "hello")).toBe(5);
    expect(contentLength("threads", "😀")).toBe(4);
    expect(contentLength("threads", "👍🏽")).toBe(8);
    expect(contentLength("threads", "👨‍👩‍👧")).toBe(18);
    expect(contentLength("threads", "é 日本")).toBe(4);
    // 125 emoji of 4 bytes fill the 500 limit; one more character is over.
    expect(contentLength("threads", "😀".repeat(125))).toBe(500);
    expect(contentLength("threads", `${"😀".repeat(125)}!`)).toBe(501);
  });
});

describe("TikTok (UTF-16 code units)", () => {
  it("counts UTF-16 units: an astral emoji is 2", () => {
    expect(contentLength("tiktok", "hi 😀")).toBe(5);
    expect(contentLength("tiktok", "👍🏽")).toBe(4);
    expect(contentLength("tiktok", "é")).toBe(1);
    expect(contentLength("tiktok", "😀".repeat(1100))).toBe(2200);
  });
});

describe("other platforms", () => {
  it("count Unicode code points", () => {
    expect(contentLength("linkedin", "😀😀 https://example.com")).toBe(22);
    expect(contentLength("pinterest", "e\u0301")).toBe(2);
    expect(contentLength("facebook", "")).toBe(0);
  });
});
