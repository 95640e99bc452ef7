import { describe, expect, it } from "vitest";
import { checkRowTexts } from "../../src/catalog/follow-ups";
import { rowCounters, rowProblems } from "../../web/lib/counters";

const row = {
  platform: "x",
  contentType: "x_post",
  postContent: "",
  postMedia: [],
  content: null,
  thread: [],
  firstComment: null,
};

describe("composer counters (the server's catalog rules, one module)", () => {
  it("counts each network its own way: X weighs URLs and emoji, Bluesky graphemes", () => {
    const text = "Launch 🚀 https://example.com/a/very/long/path/that/is/long";
    expect(rowCounters({ ...row, postContent: text })).toEqual([
      { field: "content", length: 7 + 2 + 1 + 23, max: 280, over: false },
    ]);
    expect(rowCounters({ ...row, platform: "bluesky", contentType: "bluesky_post", postContent: text })[0]).toEqual({
      field: "content",
      length: [...new Intl.Segmenter().segment(text)].length,
      max: 300,
      over: false,
    });
  });

  it("counts the row's own text, each thread item and the first comment, and flags what is over", () => {
    expect(
      rowCounters({
        ...row,
        postContent: "shared",
        content: "a".repeat(281),
        thread: [{ content: "b" }, { content: "c".repeat(300) }],
        firstComment: "thanks",
      }),
    ).toEqual([
      { field: "content", length: 281, max: 280, over: true },
      { field: "thread.0.content", length: 1, max: 280, over: false },
      { field: "thread.1.content", length: 300, max: 280, over: true },
      { field: "first_comment", length: 6, max: 280, over: false },
    ]);
    // LinkedIn's first comment has its own cap (1250); no thread on LinkedIn.
    expect(
      rowCounters({ ...row, platform: "linkedin", contentType: "linkedin_post", firstComment: "x".repeat(1300) }),
    ).toEqual([
      { field: "content", length: 0, max: 3000, over: false },
      { field: "first_comment", length: 1300, max: 1250, over: true },
    ]);
  });

  it("words a problem as the server's schedule check does", () => {
    const draft = { ...row, postContent: "a".repeat(295), thread: [{ content: "ok" }] };
    expect(rowProblems(draft)).toEqual([
      { field: "content", message: "X: too long by 15 characters (max 280).", shared: true },
    ]);
    expect(rowProblems(draft)).toEqual(
      checkRowTexts({ ...draft, thread: [{ content: "ok", media: [] }], firstComment: null }),
    );
  });
});
