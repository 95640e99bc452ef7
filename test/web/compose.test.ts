import { describe, expect, it } from "vitest";
import { META_FIELDS } from "../../src/catalog/meta-fields";
import {
  type ComposerRow,
  createBody,
  describeRepeat,
  type MetaFieldInfo,
  metaPatch,
  metaValues,
  repeatDraftOf,
  repeatRequestOf,
  rowOfPath,
  shownFields,
  updateBody,
} from "../../web/lib/compose";
import { mapFieldErrors } from "../../web/lib/field-errors";

const youtube = META_FIELDS.youtube as unknown as MetaFieldInfo[];
const rules = (platform: string) => ({
  thread: ["x", "bluesky", "threads", "mastodon"].includes(platform),
  firstComment: platform !== "pinterest",
  metaFields: (META_FIELDS[platform] ?? []) as unknown as MetaFieldInfo[],
});

const row = (patch: Partial<ComposerRow>): ComposerRow => ({
  accountId: "acc-x",
  platform: "x",
  rowId: null,
  enabled: true,
  contentType: "x_post",
  ownText: false,
  content: "",
  thread: [],
  firstComment: "",
  meta: {},
  ...patch,
});

describe("composer body (the state as PUT /api/posts/{post} takes it)", () => {
  it("sends each row in the post's order: its own text or null, thread, first comment and meta where the network has them", () => {
    const state = {
      content: "Shared",
      mediaIds: ["m1"],
      labelIds: ["l1"],
      scheduledAt: "2030-01-01T09:00:00Z",
      rows: [
        row({ rowId: "r1", ownText: true, content: "For X", thread: [{ content: "2/2" }], firstComment: " " }),
        row({
          accountId: "acc-yt",
          platform: "youtube",
          contentType: "youtube_short",
          meta: { title: "Launch", privacy_status: "unlisted", tags: "a, b,, c", notify_subscribers: "false" },
        }),
        row({ accountId: "acc-pin", platform: "pinterest", rowId: "r3", enabled: false, contentType: "pinterest_pin" }),
      ],
    };
    const body = updateBody(state, "schedule", rules);
    expect(body.status).toBe("scheduled");
    expect(body.content).toBe("Shared");
    expect(body.media).toEqual([{ id: "m1" }]);
    expect(body.label_ids).toEqual(["l1"]);
    expect(body.scheduled_at).toBe("2030-01-01T09:00:00Z");
    expect(body.platforms?.[0]).toEqual({
      id: "r1",
      enabled: true,
      content_type: "x_post",
      content: "For X",
      thread: [{ content: "2/2" }],
      first_comment: null,
    });
    const yt = body.platforms?.[1];
    expect(yt).toMatchObject({
      social_account_id: "acc-yt",
      content_type: "youtube_short",
      content: null,
      first_comment: null,
    });
    expect(yt).not.toHaveProperty("thread");
    expect(yt?.meta).toMatchObject({
      title: "Launch",
      privacy_status: "unlisted",
      tags: ["a", "b", "c"],
      notify_subscribers: false,
    });
    // Fields left blank remove their key (null), so a cleared value is cleared on the server too.
    expect(Object.values(yt?.meta ?? {}).filter((v) => v === null).length).toBeGreaterThan(0);
    expect(body.platforms?.[2]).toMatchObject({ id: "r3", enabled: false, content_type: "pinterest_pin" });
    expect(body.platforms?.[2]).not.toHaveProperty("first_comment");
  });

  it("draft and publish set the status; no time chosen sends null (an undated draft; scheduling names the field)", () => {
    const state = { content: "", mediaIds: [], labelIds: [], rows: [row({})], scheduledAt: null };
    // Issue 35: an undated draft is null, not the API's default of today 09:00 UTC.
    expect(updateBody(state, "draft", rules).scheduled_at).toBeNull();
    expect(updateBody(state, "draft", rules).status).toBe("draft");
    expect(updateBody(state, "publish", rules).status).toBe("publishing");
    expect(updateBody(state, "schedule", rules).scheduled_at).toBeNull();
    // Issue 37: "Add to queue" asks for the queue's slot, with no time of its own.
    const queued = updateBody({ ...state, scheduledAt: "2030-01-01T09:00:00Z" }, "queue", rules, "q1");
    expect({ status: queued.status, queue_id: queued.queue_id, has_time: "scheduled_at" in queued }).toEqual({
      status: "scheduled",
      queue_id: "q1",
      has_time: false,
    });
    // The calendar's free slot: that exact slot, as scheduled_at beside queue_id.
    expect(updateBody(state, "queue", rules, "q1", "2030-01-07 09:00:00")).toMatchObject({
      status: "scheduled",
      queue_id: "q1",
      scheduled_at: "2030-01-07 09:00:00",
    });
    // "Save changes" on a scheduled post keeps it scheduled.
    expect(updateBody({ ...state, scheduledAt: "2030-01-01T09:00:00Z" }, "save", rules)).toMatchObject({
      status: "scheduled",
      scheduled_at: "2030-01-01T09:00:00Z",
    });
    expect(createBody("Hi", [row({})])).toEqual({
      content: "Hi",
      scheduled_at: null,
      platforms: [{ social_account_id: "acc-x", content_type: "x_post" }],
    });
    expect(createBody("Hi", [row({})], "2030-01-01T09:00:00Z").scheduled_at).toBe("2030-01-01T09:00:00Z");
  });

  it("meta values round-trip through the form's strings", () => {
    const meta = { title: "T", tags: ["a", "b"], notify_subscribers: false, category_id: "22" };
    const values = metaValues(youtube, meta);
    expect(values).toMatchObject({ title: "T", tags: "a, b", notify_subscribers: "false", category_id: "22" });
    expect(metaPatch(youtube, values)).toMatchObject(meta);
    expect(metaPatch([{ name: "n", type: "integer", description: "" }], { n: "abc" })).toEqual({ n: "abc" });
  });
});

describe("composer 422 mapping", () => {
  it("puts a row's problem on its tab's field and the post's on the shared ones, first in page order", () => {
    const state = {
      content: "",
      mediaIds: ["m1"],
      labelIds: [],
      scheduledAt: null,
      rows: [
        row({ thread: [{ content: "" }] }),
        row({ accountId: "acc-yt", platform: "youtube", contentType: "youtube_short" }),
      ],
    };
    const error = {
      message: "…",
      errors: {
        scheduled_at: ["The scheduled at field is required when status is scheduled."],
        "platforms.1.meta.privacy_status": ["The selected platforms.1.meta.privacy status is invalid."],
        "platforms.0.thread.0.content": ["Thread item 1 needs text or media."],
        media: ["YouTube: Short requires at least one media item."],
        "media.0.alt": ["too long"],
      },
    };
    const mapped = mapFieldErrors(error, shownFields(state, rules));
    expect(mapped.fields).toEqual({
      scheduled_at: "The scheduled at field is required when status is scheduled.",
      "platforms.1.meta.privacy_status": "The selected platforms.1.meta.privacy status is invalid.",
      "platforms.0.thread.0.content": "Thread item 1 needs text or media.",
      media: "YouTube: Short requires at least one media item.",
      "media.0.alt": "too long",
    });
    expect(mapped.first).toBe("media");
    expect(rowOfPath("platforms.1.meta.privacy_status")).toBe(1);
    expect(rowOfPath("platforms.0")).toBe(0);
    expect(rowOfPath("media")).toBeNull();
    // A row field the page does not show lands on the nearest one it does: the thread, else the row itself.
    expect(
      mapFieldErrors({ errors: { "platforms.0.thread.3.media.0.id": ["x"] } }, shownFields(state, rules)).fields,
    ).toEqual({
      "platforms.0.thread": "x",
    });
    expect(mapFieldErrors({ errors: { "platforms.1.thread": ["y"] } }, shownFields(state, rules)).fields).toEqual({
      "platforms.1": "y",
    });
  });
});

describe("composer repeat settings (issue 37)", () => {
  const untilUtc = (day: string) => `${day}T22:59:00Z`;
  it("off is null; on sends the rule in the composer's zone, the end chosen, blank texts dropped, bad numbers as typed", () => {
    const off = repeatDraftOf(null, (u) => u.slice(0, 10));
    expect(repeatRequestOf(off, "Europe/Paris", untilUtc)).toBeNull();
    const on = { ...off, on: true, every: "2", unit: "day" as const, ends: "until" as const, until: "2027-01-31" };
    expect(repeatRequestOf({ ...on, variations: ["A", " ", "B"] }, "Europe/Paris", untilUtc)).toEqual({
      every: 2,
      unit: "day",
      time_zone: "Europe/Paris",
      until: "2027-01-31T22:59:00Z",
      variations: ["A", "B"],
    });
    expect(repeatRequestOf({ ...on, ends: "count", count: "many" }, "UTC", untilUtc)).toEqual({
      every: 2,
      unit: "day",
      time_zone: "UTC",
      count: "many",
    });
  });

  it("a stored rule reads back into the form and into words", () => {
    const rule = {
      every: 1,
      unit: "week" as const,
      until: null,
      count: 3,
      variations: ["B", "C"],
      time_zone: "UTC",
    };
    expect(repeatDraftOf(rule, (u) => u.slice(0, 10))).toEqual({
      on: true,
      every: "1",
      unit: "week",
      ends: "count",
      count: "3",
      until: "",
      variations: ["B", "C"],
    });
    expect(describeRepeat(rule)).toBe("Repeats every week, 3 times in all (2 texts in turn)");
    expect(
      describeRepeat(
        { ...rule, every: 2, unit: "month", count: null, until: "2027-05-01 00:00:00", variations: null },
        () => "1 May 2027",
      ),
    ).toBe("Repeats every 2 months, until 1 May 2027");
  });
});
