import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { backgroundContext } from "../../src/publishing/context";
import { continueRepeats, dueOccurrences } from "../../src/publishing/repeats";
import { REPEAT_SAME_TEXT } from "../../src/services/posts/preview-post";
import { nextOccurrence, stepFrom } from "../../src/services/posts/repeat-rule";
import { connectAccount, createLabel, DAY, HOUR, insertAccount, insertMedia, ymdHis } from "../routes/posts-fixtures";
import { createTestWorkspace, queryPlan, type TestWorkspace, UUID } from "../support/harness";

/**
 * Issue 37, repeating posts (docs/queues.md, "Repeating posts"): `repeat` on a post; when an occurrence settles the
 * cron's step (`continueRepeats`, scoped here to the test's workspace) creates the next one as its own scheduled
 * post. An occurrence is settled here by writing its final state into D1, as the publish job does; the cron's own
 * call of the step is in test/publishing/scheduler.test.ts.
 */

const step = (ws: TestWorkspace) =>
  continueRepeats(backgroundContext(env, createExecutionContext(), crypto.randomUUID()), {
    workspaceId: ws.workspaceId,
  });

/** What the publish job leaves on a post that published (its rows too). */
async function settle(postId: string, status = "published") {
  const now = Date.now();
  await env.DB.batch([
    env.DB.prepare("UPDATE post_platforms SET status = 'published', published_at = ? WHERE post_id = ?").bind(
      now,
      postId,
    ),
    env.DB.prepare("UPDATE posts SET status = ?, published_at = ? WHERE id = ?").bind(status, now, postId),
  ]);
}

/** The posts of a series, first to last, as GET shows them. */
async function series(ws: TestWorkspace, firstId: string) {
  const list = await ws.api("GET", "/api/posts?per_page=100");
  expect(list.status, list.text).toBe(200);
  const ids = (list.body.data as { id: string; repeat_of: string | null }[])
    .filter((p) => p.id === firstId || p.repeat_of === firstId)
    .map((p) => p.id);
  const posts = await Promise.all(ids.map(async (id) => (await ws.api("GET", `/api/posts/${id}`)).body));
  return posts.sort((a, b) => a.scheduled_at.localeCompare(b.scheduled_at));
}

async function setUp() {
  const ws = await createTestWorkspace();
  const x = await connectAccount(ws, "x");
  const mastodon = { id: await insertAccount(ws, "mastodon", { meta: { instance: "https://mastodon.example" } }) };
  return { ws, x: x.id as string, mastodon: mastodon.id as string };
}

describe("repeat on a post", () => {
  it("is shown as sent, with every key; PUT replaces it and null removes it", async () => {
    const { ws, mastodon } = await setUp();
    const at = ymdHis(Date.now() + 2 * HOUR);
    const created = await ws.api("POST", "/api/posts", {
      content: "Weekly tip",
      scheduled_at: at,
      platforms: [{ social_account_id: mastodon, content_type: "mastodon_post" }],
      repeat: { every: 1, unit: "week", count: 4, time_zone: "Europe/Paris" },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.repeat).toEqual({
      every: 1,
      unit: "week",
      until: null,
      count: 4,
      variations: null,
      time_zone: "Europe/Paris",
    });
    expect(created.body.repeat_of).toBeNull();
    const id = created.body.id;
    expect((await ws.api("GET", `/api/posts/${id}`)).body.repeat).toEqual(created.body.repeat);

    const changed = await ws.api("PUT", `/api/posts/${id}`, {
      repeat: { every: 2, unit: "day", until: "2027-03-01T10:00:00+01:00", variations: ["A", "B"] },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.repeat).toEqual({
      every: 2,
      unit: "day",
      until: "2027-03-01 09:00:00",
      count: null,
      variations: ["A", "B"],
      time_zone: "UTC",
    });
    expect((await ws.api("GET", `/api/posts/${id}`)).body.repeat).toEqual(changed.body.repeat);

    const removed = await ws.api("PUT", `/api/posts/${id}`, { repeat: null });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.repeat).toBeNull();
    expect((await ws.api("GET", `/api/posts/${id}`)).body.repeat).toBeNull();
  });

  it("refuses a malformed rule field by field (422 with errors) and writes nothing", async () => {
    const { ws, mastodon } = await setUp();
    const res = await ws.api("POST", "/api/posts", {
      content: "Bad rule",
      platforms: [{ social_account_id: mastodon, content_type: "mastodon_post" }],
      repeat: {
        every: 366,
        unit: "year",
        until: "next tuesday",
        count: 101,
        variations: ["only one"],
        time_zone: "Mars/Olympus",
      },
    });
    expect(res.status, res.text).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual([
      "repeat.count",
      "repeat.every",
      "repeat.time_zone",
      "repeat.unit",
      "repeat.until",
      "repeat.variations",
    ]);
    expect(res.body.message).toEqual(expect.any(String));
    const list = await ws.api("GET", "/api/posts");
    expect(list.body.data).toEqual([]);
  });

  it("the preview warns a repeating post on X without variations (X refuses an identical text); variations clear it", async () => {
    const { ws, x, mastodon } = await setUp();
    const created = await ws.api("POST", "/api/posts", {
      content: "Same every day",
      scheduled_at: ymdHis(Date.now() + 2 * HOUR),
      platforms: [
        { social_account_id: x, content_type: "x_post" },
        { social_account_id: mastodon, content_type: "mastodon_post" },
      ],
      repeat: { every: 1, unit: "day" },
    });
    expect(created.status, created.text).toBe(201);
    const preview = async () =>
      (
        (await ws.api("GET", `/api/posts/${created.body.id}/preview`)).body as {
          platform: string;
          problems: string[];
        }[]
      ).map((i) => [i.platform, i.problems]);
    expect(await preview()).toEqual([
      ["x", [REPEAT_SAME_TEXT]],
      ["mastodon", []],
    ]);
    await ws.api("PUT", `/api/posts/${created.body.id}`, {
      repeat: { every: 1, unit: "day", variations: ["Tip one", "Tip two"] },
    });
    expect(await preview()).toEqual([
      ["x", []],
      ["mastodon", []],
    ]);
  });
});

describe("the next occurrence", () => {
  it("is created when one settles — same targets, media and labels, rows of its own — until `count`, variations in turn", async () => {
    const { ws, x, mastodon } = await setUp();
    const image = await insertMedia(ws, "image");
    const label = await createLabel(ws, "Tips");
    const first = Date.now() + 2 * HOUR;
    const created = await ws.api("POST", "/api/posts", {
      content: "Original text",
      scheduled_at: ymdHis(first),
      media: [{ id: image.id }],
      label_ids: [label.id],
      platforms: [
        { social_account_id: x, content_type: "x_post" },
        { social_account_id: mastodon, content_type: "mastodon_post", content: "Mastodon's own" },
      ],
      repeat: { every: 1, unit: "day", count: 4, variations: ["Variation A", "Variation B"] },
    });
    expect(created.status, created.text).toBe(201);
    const firstId = created.body.id;
    expect((await ws.api("PUT", `/api/posts/${firstId}`, { status: "scheduled" })).status).toBe(200);

    // Not settled yet: nothing to continue.
    expect(await step(ws)).toBe(0);
    for (let i = 1; i < 4; i++) {
      const all = await series(ws, firstId);
      await settle(all[all.length - 1].id, i === 2 ? "failed" : "published");
      expect(await step(ws)).toBe(1);
      // Once continued, a second run makes nothing more.
      expect(await step(ws)).toBe(0);
    }
    const all = await series(ws, firstId);
    expect(all.map((p) => [p.content, p.scheduled_at, p.repeat_of])).toEqual([
      ["Original text", ymdHis(first), null],
      ["Variation A", ymdHis(first + DAY), firstId],
      ["Variation B", ymdHis(first + 2 * DAY), firstId],
      ["Variation A", ymdHis(first + 3 * DAY), firstId],
    ]);
    const last = all[3];
    expect(last.status).toBe("scheduled");
    expect(last.queue_id).toBeNull();
    expect(last.repeat).toEqual(created.body.repeat);
    expect(last.media.map((m: { id: string }) => m.id)).toEqual([image.id]);
    expect(last.labels.map((l: { id: string }) => l.id)).toEqual([label.id]);
    expect(
      last.platforms.map((p: Record<string, unknown>) => [
        p.social_account && (p.social_account as { id: string }).id,
        p.content_type,
        p.status,
        p.platform_post_id,
        p.platform_url,
        p.content ?? null,
      ]),
    ).toEqual([
      [x, "x_post", "pending", null, null, null],
      [mastodon, "mastodon_post", "pending", null, null, "Mastodon's own"],
    ]);
    const rowIds = new Set(all.flatMap((p) => p.platforms.map((r: { id: string }) => r.id)));
    expect(rowIds.size).toBe(8);
    for (const id of rowIds) expect(id).toMatch(UUID);

    // The fourth of count 4 settles: the series has ended.
    await settle(last.id);
    expect(await step(ws)).toBe(0);
    expect((await series(ws, firstId)).length).toBe(4);
  });

  it("stops at `until`; keeps 09:00 Paris wall-clock time across the change to summer time", async () => {
    const { ws, mastodon } = await setUp();
    // A weekly series at 09:00 Paris from before the March change to until two weeks later.
    const rule = { every: 1, unit: "week" as const, time_zone: "Europe/Paris", until: "2027-03-29 12:00:00" };
    const first = Date.UTC(2027, 2, 15, 8, 0); // Mon 15 Mar 2027 09:00 CET
    expect(stepFrom(rule, first, 1)).toBe(Date.UTC(2027, 2, 22, 8, 0)); // still CET
    expect(stepFrom(rule, first, 2)).toBe(Date.UTC(2027, 2, 29, 7, 0)); // 09:00 CEST
    const stored = { ...rule };
    expect(nextOccurrence(stored, 0, first, first)).toEqual({ index: 1, at: Date.UTC(2027, 2, 22, 8, 0) });
    expect(nextOccurrence(stored, 2, Date.UTC(2027, 2, 29, 7, 0), first)).toBeNull();

    // Through the API and the step: a daily series whose `until` leaves room for one more.
    const at = Date.now() + 2 * HOUR;
    const created = await ws.api("POST", "/api/posts", {
      content: "Daily",
      scheduled_at: ymdHis(at),
      platforms: [{ social_account_id: mastodon, content_type: "mastodon_post" }],
      repeat: { every: 1, unit: "day", until: ymdHis(at + DAY + HOUR) },
    });
    expect(created.status, created.text).toBe(201);
    await settle(created.body.id);
    expect(await step(ws)).toBe(1);
    const [, second] = await series(ws, created.body.id);
    expect(second.scheduled_at).toBe(ymdHis(at + DAY));
    await settle(second.id);
    expect(await step(ws)).toBe(0);
    expect((await series(ws, created.body.id)).length).toBe(2);
  });

  it("skips occurrences whose time has gone by (they count), and two runs at once create the next one once", async () => {
    const { ws, mastodon } = await setUp();
    const at = Date.now() + 2 * HOUR;
    const created = await ws.api("POST", "/api/posts", {
      content: "Late",
      scheduled_at: ymdHis(at),
      platforms: [{ social_account_id: mastodon, content_type: "mastodon_post" }],
      repeat: { every: 1, unit: "day", count: 10 },
    });
    expect(created.status, created.text).toBe(201);
    // It went out three days late (a paused queue): the next is the first occurrence still to come.
    const late = at - 3 * DAY - 4 * HOUR;
    await env.DB.prepare("UPDATE posts SET scheduled_at = ? WHERE id = ?").bind(late, created.body.id).run();
    await settle(created.body.id);
    const made = await Promise.all([step(ws), step(ws), step(ws)]);
    expect(made.reduce((a, b) => a + b, 0)).toBe(1);
    const all = await series(ws, created.body.id);
    expect(all.map((p) => p.scheduled_at)).toEqual([ymdHis(late), ymdHis(late + 4 * DAY)]);
    const stored = () =>
      env.DB.prepare(
        "SELECT repeat_index, json_extract(repeat, '$.anchor_at') AS anchor_at, json_extract(repeat, '$.anchor_index') AS anchor_index FROM posts WHERE id = ?",
      )
        .bind(all[1].id)
        .first();
    expect(await stored()).toEqual({ repeat_index: 4, anchor_at: late, anchor_index: 0 });
    // The same rule sent again (the dashboard sends it with every save) keeps the series' anchor; a new rule counts
    // from this occurrence.
    const same = await ws.api("PUT", `/api/posts/${all[1].id}`, { repeat: { every: 1, unit: "day", count: 10 } });
    expect(same.status, same.text).toBe(200);
    expect(await stored()).toEqual({ repeat_index: 4, anchor_at: late, anchor_index: 0 });
    const changed = await ws.api("PUT", `/api/posts/${all[1].id}`, { repeat: { every: 2, unit: "day", count: 10 } });
    expect(changed.body.repeat).toEqual({
      every: 2,
      unit: "day",
      until: null,
      count: 10,
      variations: null,
      time_zone: "UTC",
    });
    expect(await stored()).toEqual({ repeat_index: 4, anchor_at: null, anchor_index: null });
  });
});

describe("the cron's scan", () => {
  it("reads settled occurrences from the partial index, never every published post", async () => {
    expect(await queryPlan(dueOccurrences(createDb(env.DB)))).toContain("posts_repeat_due_idx");
  });
});
