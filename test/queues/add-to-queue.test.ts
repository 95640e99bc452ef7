import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { connectAccount } from "../routes/posts-fixtures";
import { call, createTestWorkspace, type TestWorkspace, UUID, YMDHIS } from "../support/harness";

/**
 * Issue 37, add to queue: `PUT /api/posts/{post}` with `{status: "scheduled", queue_id}` and `POST /api/posts` with
 * `queue_id` give the post the queue's next free slot after now; a slot holds one post whatever the concurrency
 * (the UNIQUE index on queue_slots (queue_id, at)); a post that goes back to draft, is given a time by hand or is
 * deleted frees its slot. The expected times come from the queue's own slot listing, read before each add.
 */

/** Every day at three UTC times at least two hours from now (so none passes while the test runs). */
function dailySlots(): { weekday: number; time: string }[] {
  const hour = new Date().getUTCHours();
  const times = [2, 5, 8].map((h) => `${String((hour + h) % 24).padStart(2, "0")}:15`);
  return [1, 2, 3, 4, 5, 6, 7].flatMap((weekday) => times.map((time) => ({ weekday, time })));
}

async function setUp(): Promise<{ ws: TestWorkspace; queueId: string; accountId: string }> {
  const ws = await createTestWorkspace();
  const account = await connectAccount(ws, "x");
  const q = await ws.api("POST", "/api/queues", { name: "Daily", time_zone: "UTC", slots: dailySlots() });
  expect(q.status, q.text).toBe(201);
  return { ws, queueId: q.body.id, accountId: account.id };
}

const draftBody = (accountId: string, content = "Queued post") => ({
  content,
  platforms: [{ social_account_id: accountId, content_type: "x_post" }],
});

async function slots(ws: TestWorkspace, queueId: string, count = 10) {
  const res = await ws.api("GET", `/api/queues/${queueId}/slots?count=${count}`);
  expect(res.status, res.text).toBe(200);
  return res.body as { at: string; local: string; post_id: string | null; reservation_id: null }[];
}

async function draft(ws: TestWorkspace, accountId: string, content?: string): Promise<string> {
  const res = await ws.api("POST", "/api/posts", draftBody(accountId, content));
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

/**
 * The suite's bindings with room for a burst: the per-key (60) and per-workspace (300) minute windows would refuse
 * most of the 280 requests below, and this test is about slots, not those limits (test/routes/throttle.test.ts).
 */
const ROOMY = { ...env, API_RATE_LIMIT_PER_MINUTE: "1000", API_WORKSPACE_RATE_LIMIT_PER_MINUTE: "1000" };
const roomy = (ws: TestWorkspace, method: string, path: string, body?: unknown) =>
  call(method, path, { key: ws.key, body, env: ROOMY as Cloudflare.Env });

describe("add to queue (issue 37)", () => {
  it("PUT status=scheduled with queue_id takes the next free slot; the next post the one after; GET agrees", async () => {
    const { ws, queueId, accountId } = await setUp();
    const free = await slots(ws, queueId, 3);
    const first = await draft(ws, accountId, "First");
    const second = await draft(ws, accountId, "Second");

    const a = await ws.api("PUT", `/api/posts/${first}`, { status: "scheduled", queue_id: queueId });
    expect(a.status, a.text).toBe(200);
    expect(a.body).toEqual({
      id: first,
      content: "First",
      media: [],
      status: "scheduled",
      scheduled_at: free[0]!.at,
      published_at: null,
      queue_id: queueId,
      repeat: null,
      repeat_of: null,
      platforms: [expect.objectContaining({ status: "pending", enabled: true, platform: "x" })],
      labels: [],
      created_at: expect.stringMatching(YMDHIS),
      updated_at: expect.stringMatching(YMDHIS),
    });
    expect((await ws.api("GET", `/api/posts/${first}`)).body).toEqual(a.body);

    // "default" names the workspace's default queue (its first).
    const b = await ws.api("PUT", `/api/posts/${second}`, { status: "scheduled", queue_id: "default" });
    expect(b.status, b.text).toBe(200);
    expect({ scheduled_at: b.body.scheduled_at, queue_id: b.body.queue_id }).toEqual({
      scheduled_at: free[1]!.at,
      queue_id: queueId,
    });
    expect(await slots(ws, queueId, 3)).toEqual([
      { ...free[0], post_id: first, reservation_id: null },
      { ...free[1], post_id: second, reservation_id: null },
      { ...free[2], post_id: null, reservation_id: null },
    ]);
  });

  it("POST /api/posts with queue_id: created scheduled in its slot (201), stored as answered; a replay the same", async () => {
    const { ws, queueId, accountId } = await setUp();
    const free = await slots(ws, queueId, 2);
    const res = await ws.api(
      "POST",
      "/api/posts",
      { ...draftBody(accountId), queue_id: "default" },
      {
        "Idempotency-Key": "queued-create-1",
      },
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(UUID),
      status: "scheduled",
      scheduled_at: free[0]!.at,
      queue_id: queueId,
    });
    expect((await ws.api("GET", `/api/posts/${res.body.id}`)).body).toEqual(res.body);
    const replay = await ws.api(
      "POST",
      "/api/posts",
      { ...draftBody(accountId), queue_id: "default" },
      {
        "Idempotency-Key": "queued-create-1",
      },
    );
    expect({ status: replay.status, body: replay.body }).toEqual({ status: 201, body: res.body });
    expect((await slots(ws, queueId, 2)).map((s) => s.post_id)).toEqual([res.body.id, null]);
  });

  it("a refused queued create writes nothing: no post, no slot, every error in one 422", async () => {
    const { ws, queueId, accountId } = await setUp();
    const res = await ws.api("POST", "/api/posts", { ...draftBody(accountId, "x".repeat(281)), queue_id: queueId });
    expect(res.status, res.text).toBe(422);
    expect(res.body).toEqual({
      message: expect.any(String),
      errors: { content: [expect.stringContaining("280")] },
    });
    expect((await ws.api("GET", "/api/posts")).body.data).toEqual([]);
    expect((await slots(ws, queueId, 1))[0]!.post_id).toBeNull();
  });

  it("queue_id needs status scheduled, no scheduled_at, a queue of this workspace that has slots", async () => {
    const { ws, queueId, accountId } = await setUp();
    const post = await draft(ws, accountId);
    const other = await setUp();
    const empty = await ws.api("POST", "/api/queues", { name: "Empty", time_zone: "UTC", slots: [] });
    const cases: [Record<string, unknown>, string][] = [
      [{ queue_id: queueId }, "The queue id field is only accepted with status scheduled."],
      [{ status: "draft", queue_id: queueId }, "The queue id field is only accepted with status scheduled."],
      [
        { status: "scheduled", queue_id: queueId, scheduled_at: null },
        "The queue id field prohibits scheduled at from being present.",
      ],
      [{ status: "scheduled", queue_id: other.queueId }, "The selected queue id is invalid."],
      [{ status: "scheduled", queue_id: "no-such-queue" }, "The selected queue id is invalid."],
      [{ status: "scheduled", queue_id: empty.body.id }, "The queue has no posting times; add slots to it first."],
    ];
    for (const [body, message] of cases) {
      const res = await ws.api("PUT", `/api/posts/${post}`, body);
      expect({ body, status: res.status, errors: res.body.errors }).toEqual({
        body,
        status: 422,
        errors: { queue_id: [message] },
      });
    }
    const tooLong = await ws.api("PUT", `/api/posts/${post}`, { status: "scheduled", queue_id: "q".repeat(65) });
    expect(tooLong.status).toBe(422);
    expect(Object.keys(tooLong.body.errors)).toEqual(["queue_id"]);
    const created = await ws.api("POST", "/api/posts", {
      ...draftBody(accountId),
      queue_id: queueId,
      scheduled_at: "2099-01-01 10:00:00",
    });
    // With scheduled_at, queue_id takes exactly that slot: a time that is not one of the queue's is refused.
    expect({ status: created.status, errors: created.body.errors }).toEqual({
      status: 422,
      errors: {
        scheduled_at: [
          "The scheduled at field must be one of the queue's upcoming slot times when queue id is present.",
        ],
      },
    });
    // Nothing moved: the post is still an unqueued draft.
    expect((await ws.api("GET", `/api/posts/${post}`)).body).toMatchObject({ status: "draft", queue_id: null });
    expect((await ws.api("GET", "/api/posts")).body.data).toHaveLength(1);
  });

  it("back to draft, a time by hand and deletion free the slot, and the next add takes it again", async () => {
    const { ws, queueId, accountId } = await setUp();
    const free = await slots(ws, queueId, 4);
    const ids = [await draft(ws, accountId), await draft(ws, accountId), await draft(ws, accountId)];
    for (const id of ids) {
      const res = await ws.api("PUT", `/api/posts/${id}`, { status: "scheduled", queue_id: queueId });
      expect(res.status, res.text).toBe(200);
    }
    expect((await slots(ws, queueId, 4)).map((s) => s.post_id)).toEqual([...ids, null]);

    // An edit of the text keeps the slot.
    const edited = await ws.api("PUT", `/api/posts/${ids[0]}`, { content: "Edited" });
    expect(edited.body).toMatchObject({ status: "scheduled", scheduled_at: free[0]!.at, queue_id: queueId });

    const toDraft = await ws.api("PUT", `/api/posts/${ids[0]}`, { status: "draft" });
    expect(toDraft.body).toMatchObject({ status: "draft", scheduled_at: free[0]!.at, queue_id: null });
    const byHand = await ws.api("PUT", `/api/posts/${ids[1]}`, { scheduled_at: "2099-01-01 10:00:00" });
    expect(byHand.body).toMatchObject({ status: "scheduled", scheduled_at: "2099-01-01 10:00:00", queue_id: null });
    expect((await ws.api("DELETE", `/api/posts/${ids[2]}`)).status).toBe(204);
    expect((await slots(ws, queueId, 4)).map((s) => s.post_id)).toEqual([null, null, null, null]);

    const again = await ws.api("PUT", `/api/posts/${ids[1]}`, { status: "scheduled", queue_id: queueId });
    expect(again.body).toMatchObject({ scheduled_at: free[0]!.at, queue_id: queueId });
    const rows = await env.DB.prepare("SELECT post_id FROM queue_slots WHERE queue_id = ?").bind(queueId).all();
    expect(rows.results).toEqual([{ post_id: ids[1] }]);
  });

  it("deleting a queue leaves its posts scheduled at their times, with no queue", async () => {
    const { ws, queueId, accountId } = await setUp();
    const post = await draft(ws, accountId);
    const queued = await ws.api("PUT", `/api/posts/${post}`, { status: "scheduled", queue_id: queueId });
    expect((await ws.api("DELETE", `/api/queues/${queueId}`)).status).toBe(204);
    expect((await ws.api("GET", `/api/posts/${post}`)).body).toEqual({
      ...queued.body,
      queue_id: null,
      updated_at: expect.stringMatching(YMDHIS),
    });
  });

  it("200 concurrent queued creates and 40 concurrent adds on one queue: 240 distinct slots, the first 240 free", async () => {
    const { ws, queueId, accountId } = await setUp();
    const drafts = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const res = await roomy(ws, "POST", "/api/posts", draftBody(accountId, `Draft ${i}`));
        expect(res.status, res.text).toBe(201);
        return res.body.id as string;
      }),
    );
    const expected = ((await roomy(ws, "GET", `/api/queues/${queueId}/slots?count=100`)).body as { at: string }[]).map(
      (s) => s.at,
    );
    const [created, added] = await Promise.all([
      Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          roomy(ws, "POST", "/api/posts", { ...draftBody(accountId, `Post ${i}`), queue_id: queueId }),
        ),
      ),
      Promise.all(drafts.map((id) => roomy(ws, "PUT", `/api/posts/${id}`, { status: "scheduled", queue_id: queueId }))),
    ]);
    expect(created.filter((r) => r.status !== 201).map((r) => r.text)).toEqual([]);
    expect(added.map((r) => r.status)).toEqual(Array(40).fill(200));
    const times = [...created, ...added].map((r) => r.body.scheduled_at as string);
    expect(new Set(times).size).toBe(240);
    // No gaps: together they hold exactly the queue's first 240 slots.
    const held = await env.DB.prepare("SELECT count(*) AS n, min(at) AS first FROM queue_slots WHERE queue_id = ?")
      .bind(queueId)
      .first<{ n: number; first: number }>();
    expect(held?.n).toBe(240);
    expect([...times].sort().slice(0, 100)).toEqual(expected);
    const listed = await roomy(ws, "GET", `/api/queues/${queueId}/slots?count=100`);
    expect(listed.body.every((s: { post_id: string | null }) => s.post_id !== null)).toBe(true);
  });

  it("a queue already holding more posts than the spare candidates still gives the next free slot", async () => {
    const { ws, queueId, accountId } = await setUp();
    // 300 held slots (more than the 250 spare), written straight into D1 at the queue's own next 300 times.
    const times = ((await ws.api("GET", `/api/queues/${queueId}/slots?count=100`)).body as { at: string }[]).map((s) =>
      Date.parse(`${s.at.replace(" ", "T")}Z`),
    );
    const day = 86_400_000;
    // The daily slots repeat every day: the next 300 times are these three a day, day after day.
    const perDay = times.slice(0, 3);
    const held = Array.from({ length: 300 }, (_, i) => perDay[i % 3]! + Math.floor(i / 3) * day);
    const ws0 = ws.workspaceId;
    await env.DB.batch(
      held.map((at) =>
        env.DB.prepare(
          "INSERT INTO queue_slots (id, queue_id, workspace_id, at, post_id, expires_at, created_at) VALUES (?, ?, ?, ?, NULL, ?, ?)",
        ).bind(crypto.randomUUID(), queueId, ws0, at, Date.now() + 600_000, Date.now()),
      ),
    );
    const res = await ws.api("POST", "/api/posts", { ...draftBody(accountId), queue_id: queueId });
    expect(res.status, res.text).toBe(201);
    expect(res.body.scheduled_at).toBe(new Date(perDay[0]! + 100 * day).toISOString().replace("T", " ").slice(0, 19));
  });

  it("queue_id with scheduled_at takes exactly that slot (the calendar's free slot); a taken one is refused", async () => {
    const { ws, queueId, accountId } = await setUp();
    const free = await slots(ws, queueId, 4);
    const third = await ws.api("POST", "/api/posts", {
      ...draftBody(accountId, "Third slot"),
      queue_id: queueId,
      scheduled_at: free[2]!.at,
    });
    expect(third.status, third.text).toBe(201);
    expect(third.body).toMatchObject({ status: "scheduled", scheduled_at: free[2]!.at, queue_id: queueId });
    expect((await slots(ws, queueId, 4)).map((s) => s.post_id)).toEqual([null, null, third.body.id, null]);
    // The next plain add still takes the first free slot.
    const first = await ws.api("POST", "/api/posts", { ...draftBody(accountId), queue_id: queueId });
    expect(first.body.scheduled_at).toBe(free[0]!.at);

    const post = await draft(ws, accountId);
    const taken = await ws.api("PUT", `/api/posts/${post}`, {
      status: "scheduled",
      queue_id: queueId,
      scheduled_at: free[2]!.at,
    });
    expect({ status: taken.status, errors: taken.body.errors }).toEqual({
      status: 422,
      errors: { scheduled_at: ["That slot of the queue is already taken; pick another one."] },
    });
    expect((await ws.api("GET", `/api/posts/${post}`)).body).toMatchObject({ status: "draft", queue_id: null });
    const ok = await ws.api("PUT", `/api/posts/${post}`, {
      status: "scheduled",
      queue_id: queueId,
      scheduled_at: free[3]!.at,
    });
    expect(ok.body).toMatchObject({ status: "scheduled", scheduled_at: free[3]!.at, queue_id: queueId });
    const next = await ws.api("PUT", `/api/posts/${post}`, {
      status: "scheduled",
      queue_id: queueId,
      queue_position: "next",
      scheduled_at: free[1]!.at,
    });
    expect(next.body.errors).toEqual({
      queue_position: ["The queue position field prohibits scheduled at from being present."],
    });
  });
});
