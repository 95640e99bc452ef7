// Issue 35, item 3: where a post sits on the calendar and the posts list (web/lib/post-time.ts).
import { describe, expect, it } from "vitest";
import { shownAt } from "../../web/lib/post-time";

const post = (p: Partial<Parameters<typeof shownAt>[0]>) => ({
  status: "draft",
  scheduled_at: null,
  published_at: null,
  platforms: [],
  ...p,
});

describe("shownAt", () => {
  it("a published post sits at published_at, not at its scheduled time", () => {
    expect(
      shownAt(post({ status: "published", scheduled_at: "2026-12-01 10:00:00", published_at: "2026-12-01 19:43:12" })),
    ).toEqual({ at: Date.UTC(2026, 11, 1, 19, 43, 12), kind: "published" });
  });

  it("a partially published post (its own published_at is null) sits at its last network's publish time", () => {
    const p = post({
      status: "partially_published",
      scheduled_at: "2026-12-01 10:00:00",
      platforms: [
        { enabled: true, published_at: "2026-12-01 10:00:05" },
        { enabled: true, published_at: "2026-12-01 10:07:30" },
        { enabled: false, published_at: "2026-12-02 00:00:00" },
        { enabled: true, published_at: null },
      ],
    });
    expect(shownAt(p)).toEqual({ at: Date.UTC(2026, 11, 1, 10, 7, 30), kind: "published" });
  });

  it("a draft without a chosen time has no place (the tray); others sit at scheduled_at", () => {
    expect(shownAt(post({}))).toEqual({ at: null, kind: "undated" });
    expect(shownAt(post({ status: "scheduled", scheduled_at: "2026-12-03 14:00:00" }))).toEqual({
      at: Date.UTC(2026, 11, 3, 14),
      kind: "scheduled",
    });
    expect(shownAt(post({ status: "failed", scheduled_at: "2026-12-03 14:00:00" })).at).toBe(Date.UTC(2026, 11, 3, 14));
    // A published post the API has no publish time for yet falls back to its scheduled time.
    expect(shownAt(post({ status: "published", scheduled_at: "2026-12-03 14:00:00" })).kind).toBe("scheduled");
  });
});
