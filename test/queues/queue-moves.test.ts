import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { connectAccount } from "../routes/posts-fixtures";
import { createTestWorkspace, type TestWorkspace, UUID, YMDHIS } from "../support/harness";
import { createEndpoint, receiver, waitFor } from "../webhooks/support";

/**
 * Issue 37, moving queued posts: share next (`queue_position: "next"`), reorder, reshuffle onto new slot times, and
 * resume after a pause; and reservations (`POST /api/queues/{queue}/reservations`, `reservation_id`). Each answer is
 * checked against the queue's own slot listing and the posts as GET shows them.
 */

/** Every day at three UTC times at least two hours from now (so none passes while the test runs). */
function dailySlots(offsets = [2, 5, 8]): { weekday: number; time: string }[] {
  const hour = new Date().getUTCHours();
  const times = offsets.map((h) => `${String((hour + h) % 24).padStart(2, "0")}:15`);
  return [1, 2, 3, 4, 5, 6, 7].flatMap((weekday) => times.map((time) => ({ weekday, time })));
}

interface Slot {
  at: string;
  local: string;
  post_id: string | null;
  reservation_id: string | null;
}

async function setUp(slots = dailySlots()) {
  const ws = await createTestWorkspace();
  const account = await connectAccount(ws, "x");
  const q = await ws.api("POST", "/api/queues", { name: "Daily", time_zone: "UTC", slots });
  expect(q.status, q.text).toBe(201);
  return { ws, queueId: q.body.id as string, accountId: account.id as string, queue: q.body };
}

async function slotList(ws: TestWorkspace, queueId: string, count = 6): Promise<Slot[]> {
  const res = await ws.api("GET", `/api/queues/${queueId}/slots?count=${count}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

const holders = async (ws: TestWorkspace, queueId: string, count = 6) =>
  (await slotList(ws, queueId, count)).map((s) => s.post_id ?? s.reservation_id ?? null);

async function queued(ws: TestWorkspace, accountId: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await ws.api("POST", "/api/posts", {
    content: "Queued",
    platforms: [{ social_account_id: accountId, content_type: "x_post" }],
    queue_id: "default",
    ...body,
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

/** Each post's scheduled_at as GET answers it. */
async function timesOf(ws: TestWorkspace, ids: string[]): Promise<(string | null)[]> {
  return Promise.all(ids.map(async (id) => (await ws.api("GET", `/api/posts/${id}`)).body.scheduled_at));
}

describe("share next (queue_position: next)", () => {
  it("takes the earliest slot; the queued posts move down one until a free slot, a reservation stays put", async () => {
    const { ws, queueId, accountId } = await setUp();
    const free = await slotList(ws, queueId);
    const [a, b] = [await queued(ws, accountId), await queued(ws, accountId)];
    const reservation = await ws.api("POST", `/api/queues/${queueId}/reservations`);
    expect(reservation.status, reservation.text).toBe(201);
    const c = await queued(ws, accountId);
    // Slot 4 is freed: the shift stops there, the post in slot 5 stays.
    const d = await queued(ws, accountId);
    const e = await queued(ws, accountId);
    expect((await ws.api("PUT", `/api/posts/${d}`, { status: "draft" })).status).toBe(200);
    expect(await holders(ws, queueId)).toEqual([a, b, reservation.body.id, c, null, e]);

    const next = await ws.api("POST", "/api/posts", {
      content: "Urgent",
      platforms: [{ social_account_id: accountId, content_type: "x_post" }],
      queue_id: queueId,
      queue_position: "next",
    });
    expect(next.status, next.text).toBe(201);
    expect(next.body).toMatchObject({ status: "scheduled", scheduled_at: free[0]!.at, queue_id: queueId });
    expect(await holders(ws, queueId)).toEqual([next.body.id, a, reservation.body.id, b, c, e]);
    expect(await timesOf(ws, [a, b, c, e])).toEqual([free[1]!.at, free[3]!.at, free[4]!.at, free[5]!.at]);

    // PUT with queue_position next on an existing draft: the same rule.
    const put = await ws.api("PUT", `/api/posts/${d}`, {
      status: "scheduled",
      queue_id: "default",
      queue_position: "next",
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.scheduled_at).toBe(free[0]!.at);
    expect(await holders(ws, queueId, 7)).toEqual([d, next.body.id, reservation.body.id, a, b, c, e]);
  });

  it("queue_position needs queue_id and takes only last or next", async () => {
    const { ws, accountId } = await setUp();
    const post = await queued(ws, accountId);
    const bad = await ws.api("PUT", `/api/posts/${post}`, { status: "scheduled", queue_position: "next" });
    expect({ status: bad.status, errors: bad.body.errors }).toEqual({
      status: 422,
      errors: { queue_position: ["The queue position field requires queue id."] },
    });
    const odd = await ws.api("PUT", `/api/posts/${post}`, {
      status: "scheduled",
      queue_id: "default",
      queue_position: "first",
    });
    expect(odd.status).toBe(422);
    expect(Object.keys(odd.body.errors)).toEqual(["queue_position"]);
  });
});

describe("reorder", () => {
  it("the posts named trade slots in the order given; the others stay; GET agrees", async () => {
    const { ws, queueId, accountId } = await setUp();
    const free = await slotList(ws, queueId, 4);
    const ids = [
      await queued(ws, accountId),
      await queued(ws, accountId),
      await queued(ws, accountId),
      await queued(ws, accountId),
    ];
    const [a, b, c, d] = ids as [string, string, string, string];
    const res = await ws.api("POST", `/api/queues/${queueId}/reorder`, { post_ids: [d, a, c] });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual([
      { at: free[0]!.at, local: free[0]!.local, post_id: d, reservation_id: null },
      { at: free[2]!.at, local: free[2]!.local, post_id: a, reservation_id: null },
      { at: free[3]!.at, local: free[3]!.local, post_id: c, reservation_id: null },
    ]);
    expect(await holders(ws, queueId, 4)).toEqual([d, b, a, c]);
    expect(await timesOf(ws, [a, b, c, d])).toEqual([free[2]!.at, free[1]!.at, free[3]!.at, free[0]!.at]);
  });

  it("refuses duplicates, posts not queued here and another workspace's posts, and moves nothing", async () => {
    const { ws, queueId, accountId } = await setUp();
    const [a, b] = [await queued(ws, accountId), await queued(ws, accountId)];
    const other = await setUp();
    const foreign = await queued(other.ws, other.accountId);
    const before = await holders(ws, queueId, 2);
    const res = await ws.api("POST", `/api/queues/${queueId}/reorder`, { post_ids: [b, a, b, foreign] });
    expect(res.status, res.text).toBe(422);
    expect(res.body).toEqual({
      message: expect.any(String),
      errors: {
        "post_ids.2": ["The post ids field has a duplicate value."],
        "post_ids.3": ["The post holds no upcoming slot of this queue."],
      },
    });
    expect(await holders(ws, queueId, 2)).toEqual(before);
    const tooMany = await ws.api("POST", `/api/queues/${queueId}/reorder`, {
      post_ids: Array.from({ length: 101 }, () => crypto.randomUUID()),
    });
    expect({ status: tooMany.status, keys: Object.keys(tooMany.body.errors) }).toEqual({
      status: 422,
      keys: ["post_ids"],
    });
    expect((await other.ws.api("POST", `/api/queues/${queueId}/reorder`, { post_ids: [a] })).status).toBe(404);
  });
});

describe("webhooks see every move", () => {
  it("post.scheduled for each post a reorder or a share next moved, with its new time; none for a post left alone", async () => {
    const { ws, queueId, accountId } = await setUp();
    const free = await slotList(ws, queueId, 4);
    const [a, b, c] = [await queued(ws, accountId), await queued(ws, accountId), await queued(ws, accountId)];
    const hook = receiver();
    await createEndpoint(ws, hook.url, ["post.scheduled"]);
    /** What the receiver got, as [post id, its scheduled_at], in any order. */
    const received = async (n: number) => {
      await waitFor(() => hook.received.length >= n);
      expect(hook.received.length).toBe(n);
      return hook.received
        .map((r) => [r.json.type, r.json.data.id, r.json.data.scheduled_at] as const)
        .sort((x, y) => String(x[1]).localeCompare(String(y[1])));
    };
    const sorted = (list: (readonly [string, string, string])[]) => list.sort((x, y) => x[1].localeCompare(y[1]));

    // Reorder [c, a]: c takes a's slot and a takes c's; b is left alone.
    expect((await ws.api("POST", `/api/queues/${queueId}/reorder`, { post_ids: [c, a] })).status).toBe(200);
    expect(await received(2)).toEqual(
      sorted([
        ["post.scheduled", c, free[0]!.at],
        ["post.scheduled", a, free[2]!.at],
      ]),
    );

    // Share next: the new post's own event, and one for each post that moved down one (no free slot between).
    hook.received.length = 0;
    const next = await queued(ws, accountId, { queue_position: "next" });
    expect(await received(4)).toEqual(
      sorted([
        ["post.scheduled", next, free[0]!.at],
        ["post.scheduled", c, free[1]!.at],
        ["post.scheduled", b, free[2]!.at],
        ["post.scheduled", a, free[3]!.at],
      ]),
    );
    expect(await timesOf(ws, [next, c, b, a])).toEqual(free.map((f) => f.at));
  });
});

describe("reshuffle and pause", () => {
  it("changing slots keeps queued posts where they are; reshuffle: true puts them onto the new slots in order", async () => {
    const { ws, queueId, accountId, queue } = await setUp();
    const before = await slotList(ws, queueId, 3);
    const ids = [await queued(ws, accountId), await queued(ws, accountId), await queued(ws, accountId)];
    const newSlots = dailySlots([3, 6]);
    const kept = await ws.api("PUT", `/api/queues/${queueId}`, { ...queue, slots: newSlots });
    expect(kept.status, kept.text).toBe(200);
    expect(await timesOf(ws, ids)).toEqual(before.map((s) => s.at));

    const shuffled = await ws.api("PUT", `/api/queues/${queueId}`, { ...queue, slots: newSlots, reshuffle: true });
    expect(shuffled.status, shuffled.text).toBe(200);
    expect(shuffled.body).toEqual({ ...kept.body, updated_at: expect.stringMatching(YMDHIS) });
    const after = await slotList(ws, queueId, 3);
    expect(after.map((s) => s.post_id)).toEqual(ids);
    expect(await timesOf(ws, ids)).toEqual(after.map((s) => s.at));
    expect(after.map((s) => s.at)).not.toEqual(before.map((s) => s.at));
  });

  it("resuming moves the overdue posts onto the next free slots in order; the others keep theirs", async () => {
    const { ws, queueId, accountId, queue } = await setUp();
    const [a, b, c] = [await queued(ws, accountId), await queued(ws, accountId), await queued(ws, accountId)];
    const paused = await ws.api("PUT", `/api/queues/${queueId}`, { ...queue, paused: true });
    expect(paused.body.paused).toBe(true);
    // Time passes while paused: a and b are overdue (as the clock would leave them), c still ahead.
    const hourAgo = Date.now() - 3_600_000;
    for (const [id, at] of [
      [a, hourAgo - 60_000],
      [b, hourAgo],
    ] as const) {
      await env.DB.batch([
        env.DB.prepare("UPDATE queue_slots SET at = ? WHERE post_id = ?").bind(at, id),
        env.DB.prepare("UPDATE posts SET scheduled_at = ? WHERE id = ?").bind(at, id),
      ]);
    }
    const [cAt] = await timesOf(ws, [c]);
    const free = (await slotList(ws, queueId, 3)).filter((s) => s.post_id === null);
    expect(free).toHaveLength(2);
    const resumed = await ws.api("PUT", `/api/queues/${queueId}`, { ...queue, paused: false });
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.body.paused).toBe(false);
    expect(await timesOf(ws, [a, b, c])).toEqual([free[0]!.at, free[1]!.at, cAt]);
    expect((await slotList(ws, queueId, 3)).map((s) => s.post_id)).toEqual([a, b, c]);
  });
});

describe("reservations", () => {
  it("holds the next free slot for 15 minutes; reservation_id takes exactly it, once", async () => {
    const { ws, queueId, accountId } = await setUp();
    const free = await slotList(ws, queueId, 3);
    const r = await ws.api("POST", `/api/queues/${queueId}/reservations`);
    expect(r.status, r.text).toBe(201);
    expect(r.body).toEqual({
      id: expect.stringMatching(UUID),
      queue_id: queueId,
      at: free[0]!.at,
      local: free[0]!.local,
      expires_at: expect.stringMatching(YMDHIS),
    });
    const ttl = Date.parse(`${r.body.expires_at.replace(" ", "T")}Z`) - Date.now();
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000);
    expect((await slotList(ws, queueId, 2))[0]).toEqual({ ...free[0], post_id: null, reservation_id: r.body.id });

    // Another add skips the reserved slot.
    const other = await queued(ws, accountId);
    expect((await timesOf(ws, [other]))[0]).toBe(free[1]!.at);

    const draft = await ws.api("POST", "/api/posts", {
      content: "Agent post",
      platforms: [{ social_account_id: accountId, content_type: "x_post" }],
    });
    const taken = await ws.api("PUT", `/api/posts/${draft.body.id}`, {
      status: "scheduled",
      reservation_id: r.body.id,
    });
    expect(taken.status, taken.text).toBe(200);
    expect(taken.body).toMatchObject({ status: "scheduled", scheduled_at: free[0]!.at, queue_id: queueId });
    expect((await slotList(ws, queueId, 1))[0]).toEqual({ ...free[0], post_id: draft.body.id, reservation_id: null });

    // Used once: a second post cannot take it.
    const again = await ws.api("POST", "/api/posts", {
      content: "Second",
      platforms: [{ social_account_id: accountId, content_type: "x_post" }],
      reservation_id: r.body.id,
    });
    expect({ status: again.status, errors: again.body.errors }).toEqual({
      status: 422,
      errors: { reservation_id: ["The selected reservation id is invalid, used or expired."] },
    });
  });

  it("created with reservation_id in one call; an expired one frees its slot and is refused", async () => {
    const { ws, queueId, accountId } = await setUp();
    const free = await slotList(ws, queueId, 2);
    const r = (await ws.api("POST", "/api/queues/default/reservations")).body;
    const created = await queued(ws, accountId, { queue_id: undefined, reservation_id: r.id });
    expect((await timesOf(ws, [created]))[0]).toBe(free[0]!.at);

    const r2 = (await ws.api("POST", `/api/queues/${queueId}/reservations`)).body;
    expect(r2.at).toBe(free[1]!.at);
    await env.DB.prepare("UPDATE queue_slots SET expires_at = ? WHERE id = ?")
      .bind(Date.now() - 1, r2.id)
      .run();
    expect((await slotList(ws, queueId, 2))[1]).toEqual({ ...free[1], post_id: null, reservation_id: null });
    const late = await ws.api("POST", "/api/posts", {
      content: "Late",
      platforms: [{ social_account_id: accountId, content_type: "x_post" }],
      reservation_id: r2.id,
    });
    expect(late.body.errors).toEqual({ reservation_id: ["The selected reservation id is invalid, used or expired."] });
    // The next add takes the freed slot.
    const next = await queued(ws, accountId);
    expect((await timesOf(ws, [next]))[0]).toBe(free[1]!.at);
  });

  it("refuses another workspace's reservation, queue_id or scheduled_at beside it; release frees the slot", async () => {
    const { ws, queueId, accountId } = await setUp();
    const other = await setUp();
    const foreign = (await other.ws.api("POST", `/api/queues/${other.queueId}/reservations`)).body;
    const mine = (await ws.api("POST", `/api/queues/${queueId}/reservations`)).body;
    const post = (
      await ws.api("POST", "/api/posts", {
        content: "Mine",
        platforms: [{ social_account_id: accountId, content_type: "x_post" }],
      })
    ).body.id;
    const cases: [Record<string, unknown>, Record<string, string[]>][] = [
      [
        { status: "scheduled", reservation_id: foreign.id },
        { reservation_id: ["The selected reservation id is invalid, used or expired."] },
      ],
      [
        { status: "scheduled", reservation_id: mine.id, queue_id: queueId },
        { reservation_id: ["The reservation id field prohibits queue id from being present."] },
      ],
      [
        { status: "scheduled", reservation_id: mine.id, scheduled_at: "2099-01-01 10:00:00" },
        { reservation_id: ["The reservation id field prohibits scheduled at from being present."] },
      ],
      [
        { reservation_id: mine.id },
        { reservation_id: ["The reservation id field is only accepted with status scheduled."] },
      ],
    ];
    for (const [body, errors] of cases) {
      const res = await ws.api("PUT", `/api/posts/${post}`, body);
      expect({ body, status: res.status, errors: res.body.errors }).toEqual({ body, status: 422, errors });
    }
    expect((await ws.api("GET", `/api/posts/${post}`)).body).toMatchObject({ status: "draft", queue_id: null });
    expect((await ws.api("DELETE", `/api/queues/${queueId}/reservations/${foreign.id}`)).status).toBe(404);
    expect((await ws.api("DELETE", `/api/queues/${queueId}/reservations/${mine.id}`)).status).toBe(204);
    expect((await slotList(ws, queueId, 1))[0]!.reservation_id).toBeNull();
    expect((await ws.api("DELETE", `/api/queues/${queueId}/reservations/${mine.id}`)).status).toBe(404);
  });

  it("at most 20 live reservations per queue; a queue with no slots has none to give", async () => {
    const { ws, queueId } = await setUp();
    const made = await Promise.all(
      Array.from({ length: 21 }, () => ws.api("POST", `/api/queues/${queueId}/reservations`)),
    );
    const statuses = made.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(20).fill(201), 422]);
    expect(new Set(made.filter((r) => r.status === 201).map((r) => r.body.at)).size).toBe(20);
    expect(made.find((r) => r.status === 422)!.body.errors).toEqual({
      queue: ["A queue holds at most 20 live reservations; use one or let it expire."],
    });
    const empty = await ws.api("POST", "/api/queues", { name: "Empty", time_zone: "UTC", slots: [] });
    const none = await ws.api("POST", `/api/queues/${empty.body.id}/reservations`);
    expect({ status: none.status, errors: none.body.errors }).toEqual({
      status: 422,
      errors: { queue: ["The queue has no posting times; add slots to it first."] },
    });
    expect((await ws.api("POST", `/api/queues/${crypto.randomUUID()}/reservations`)).status).toBe(404);
  });
});

describe("under concurrency", () => {
  it("share next, last and reservations racing on one queue: distinct slots, each post at its slot's time", async () => {
    const { ws, queueId, accountId } = await setUp();
    const body = (i: number, position: "last" | "next") => ({
      content: `Race ${i}`,
      platforms: [{ social_account_id: accountId, content_type: "x_post" }],
      queue_id: queueId,
      queue_position: position,
    });
    const results = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => ws.api("POST", "/api/posts", body(i, "next"))),
      ...Array.from({ length: 10 }, (_, i) => ws.api("POST", "/api/posts", body(i, "last"))),
      ...Array.from({ length: 10 }, () => ws.api("POST", `/api/queues/${queueId}/reservations`)),
    ]);
    expect(results.filter((r) => r.status !== 201).map((r) => r.text)).toEqual([]);
    const listed = await slotList(ws, queueId, 30);
    expect(listed.every((s) => (s.post_id === null) !== (s.reservation_id === null))).toBe(true);
    const posts = listed.filter((s) => s.post_id !== null);
    expect(posts).toHaveLength(20);
    expect(
      await timesOf(
        ws,
        posts.map((s) => s.post_id!),
      ),
    ).toEqual(posts.map((s) => s.at));
    const reserved = results.slice(20).map((r) => r.body.id as string);
    expect(
      listed
        .filter((s) => s.reservation_id !== null)
        .map((s) => s.reservation_id)
        .sort(),
    ).toEqual([...reserved].sort());
  });
});
