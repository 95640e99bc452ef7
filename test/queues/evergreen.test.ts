import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { backgroundContext } from "../../src/publishing/context";
import { evergreenQueues, fillEvergreenSlots } from "../../src/services/queues/evergreen";
import { createLabel, DAY, HOUR, insertAccount, ymdHis } from "../routes/posts-fixtures";
import { createTestWorkspace, queryPlan, type TestWorkspace } from "../support/harness";

/**
 * Issue 37, evergreen queues (docs/queues.md, "Evergreen posts"): a queue naming a label fills a slot still empty
 * 24 hours ahead with a copy of that label's published post whose last copy is oldest and older than the gap. The
 * cron's step (`fillEvergreenSlots`) is called here scoped to the test's workspace; posts are "published" N days
 * ago by writing that state into D1, as the publish job would have.
 */

const fill = (ws: TestWorkspace) =>
  fillEvergreenSlots(backgroundContext(env, createExecutionContext(), crypto.randomUUID()), {
    workspaceId: ws.workspaceId,
  });

/** Every day at one UTC time two hours from now: one slot within the next 24 hours. */
function dailySlot(offsetHours = 2) {
  const time = `${String((new Date().getUTCHours() + offsetHours) % 24).padStart(2, "0")}:30`;
  return [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, time }));
}

async function publishedDaysAgo(
  ws: TestWorkspace,
  accountId: string,
  labelId: string | null,
  days: number,
  text: string,
) {
  const res = await ws.api("POST", "/api/posts", {
    content: text,
    platforms: [{ social_account_id: accountId, content_type: "mastodon_post" }],
    ...(labelId ? { label_ids: [labelId] } : {}),
  });
  expect(res.status, res.text).toBe(201);
  const at = Date.now() - days * DAY;
  await env.DB.batch([
    env.DB.prepare("UPDATE posts SET status = 'published', scheduled_at = ?, published_at = ? WHERE id = ?").bind(
      at,
      at,
      res.body.id,
    ),
    env.DB.prepare("UPDATE post_platforms SET status = 'published', published_at = ? WHERE post_id = ?").bind(
      at,
      res.body.id,
    ),
  ]);
  return res.body.id as string;
}

async function setUp(queue: Record<string, unknown> = {}) {
  const ws = await createTestWorkspace();
  const account = await insertAccount(ws, "mastodon", { meta: { instance: "https://mastodon.example" } });
  const label = await createLabel(ws, "Evergreen");
  const q = await ws.api("POST", "/api/queues", {
    name: "Evergreen",
    time_zone: "UTC",
    slots: dailySlot(),
    evergreen_label_id: label.id,
    evergreen_min_days: 30,
    ...queue,
  });
  expect(q.status, q.text).toBe(201);
  return { ws, account, labelId: label.id, queue: q.body };
}

interface Slot {
  at: string;
  post_id: string | null;
}

async function firstSlots(ws: TestWorkspace, queueId: string, count = 2) {
  const res = await ws.api("GET", `/api/queues/${queueId}/slots?count=${count}`);
  expect(res.status, res.text).toBe(200);
  return res.body as Slot[];
}

describe("evergreen queues", () => {
  it("shows and keeps its settings; refuses a gap under 7 days and another workspace's label (422 with errors)", async () => {
    const { ws, labelId, queue } = await setUp();
    expect([queue.evergreen_label_id, queue.evergreen_min_days]).toEqual([labelId, 30]);
    // A PUT that does not name them keeps them.
    const kept = await ws.api("PUT", `/api/queues/${queue.id}`, {
      name: "Renamed",
      time_zone: "UTC",
      slots: queue.slots,
    });
    expect(kept.status, kept.text).toBe(200);
    expect([kept.body.evergreen_label_id, kept.body.evergreen_min_days]).toEqual([labelId, 30]);
    const other = await createTestWorkspace();
    const foreign = await createLabel(other, "Theirs");
    const bad = await ws.api("PUT", `/api/queues/${queue.id}`, {
      name: "Renamed",
      time_zone: "UTC",
      slots: queue.slots,
      evergreen_label_id: foreign.id,
      evergreen_min_days: 6,
    });
    expect(bad.status, bad.text).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["evergreen_min_days"]);
    const foreignOnly = await ws.api("PUT", `/api/queues/${queue.id}`, {
      name: "Renamed",
      time_zone: "UTC",
      slots: queue.slots,
      evergreen_label_id: foreign.id,
    });
    expect(foreignOnly.status, foreignOnly.text).toBe(422);
    expect(foreignOnly.body.errors).toEqual({ evergreen_label_id: ["The selected evergreen label id is invalid."] });
    const off = await ws.api("PUT", `/api/queues/${queue.id}`, {
      name: "Renamed",
      time_zone: "UTC",
      slots: queue.slots,
      evergreen_label_id: null,
    });
    expect(off.body.evergreen_label_id).toBeNull();
    expect((await ws.api("GET", `/api/queues/${queue.id}`)).body.evergreen_label_id).toBeNull();
  });

  it("fills the first empty slot with the oldest qualifying post; never two copies in flight, never the same twice in a row", async () => {
    const { ws, account, labelId, queue } = await setUp();
    const oldest = await publishedDaysAgo(ws, account, labelId, 90, "Our story");
    const older = await publishedDaysAgo(ws, account, labelId, 40, "How we roast");
    await publishedDaysAgo(ws, account, labelId, 10, "Too recent");
    await publishedDaysAgo(ws, account, null, 200, "Not labelled");
    const slot = (await firstSlots(ws, queue.id, 1))[0]!;

    expect(await fill(ws)).toBe(1);
    const [filled, after] = (await firstSlots(ws, queue.id)) as [Slot, Slot];
    expect(filled.at).toBe(slot.at);
    const copy = (await ws.api("GET", `/api/posts/${filled.post_id}`)).body;
    expect([copy.content, copy.status, copy.scheduled_at, copy.queue_id, copy.repeat_of, copy.repeat]).toEqual([
      "Our story",
      "scheduled",
      slot.at,
      queue.id,
      oldest,
      null,
    ]);
    expect(copy.labels.map((l: { id: string }) => l.id)).toEqual([labelId]);
    // The next slot is more than 24 hours ahead: left empty.
    expect(after.post_id).toBeNull();
    expect(await fill(ws)).toBe(0);

    // The copy goes out; a day later the next slot is within reach: the next oldest, not the same post again.
    await env.DB.prepare("UPDATE posts SET status = 'published', published_at = ? WHERE id = ?")
      .bind(Date.now(), copy.id)
      .run();
    await env.DB.prepare("DELETE FROM queue_slots WHERE post_id = ?").bind(copy.id).run();
    const tomorrow = () => Date.now() + DAY;
    const ctx = { ...backgroundContext(env, createExecutionContext(), crypto.randomUUID()), now: tomorrow };
    expect(await fillEvergreenSlots(ctx, { workspaceId: ws.workspaceId })).toBe(1);
    const slots = await ws.api(
      "GET",
      `/api/queues/${queue.id}/slots?count=1&from=${encodeURIComponent(ymdHis(Date.now() + 3 * HOUR))}`,
    );
    const second = (await ws.api("GET", `/api/posts/${slots.body[0].post_id}`)).body;
    expect([second.content, second.repeat_of]).toEqual(["How we roast", older]);
  });

  it("only the last filled post qualifies: nothing; a paused queue fills nothing", async () => {
    const { ws, account, labelId, queue } = await setUp({ evergreen_min_days: 7 });
    const only = await publishedDaysAgo(ws, account, labelId, 60, "The only one");
    expect(await fill(ws)).toBe(1);
    const slot = (await firstSlots(ws, queue.id, 1))[0]!;
    // Its copy went out 20 days ago (older than the 7-day gap), but it was the last post filled: never twice in a row.
    await env.DB.prepare("UPDATE posts SET status = 'published', scheduled_at = ?, published_at = ? WHERE id = ?")
      .bind(Date.now() - 20 * DAY, Date.now() - 20 * DAY, slot.post_id)
      .run();
    await env.DB.prepare("DELETE FROM queue_slots WHERE post_id = ?").bind(slot.post_id).run();
    expect(await fill(ws)).toBe(0);
    expect((await firstSlots(ws, queue.id, 1))[0]!.post_id).toBeNull();

    // A second labelled post qualifies, but the queue is paused.
    await publishedDaysAgo(ws, account, labelId, 30, "Another");
    const paused = await ws.api("PUT", `/api/queues/${queue.id}`, {
      name: "Evergreen",
      time_zone: "UTC",
      slots: queue.slots,
      paused: true,
    });
    expect(paused.status, paused.text).toBe(200);
    expect(await fill(ws)).toBe(0);
    expect(only).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("the cron's evergreen scan", () => {
  it("reads only the queues that name a label, from their partial index", async () => {
    expect(await queryPlan(evergreenQueues(createDb(env.DB)))).toContain("queues_evergreen_idx");
  });
});
