import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { describeAuth } from "../support/auth-cases";
import { createTestWorkspace, UUID, YMDHIS } from "../support/harness";
import { callTool, connectMcp } from "../support/mcp-client";

const SOME_ID = "0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a";
const queueBody = (over: Record<string, unknown> = {}) => ({
  name: "Weekdays",
  time_zone: "Europe/Paris",
  slots: [{ weekday: 1, time: "09:00" }],
  ...over,
});

describe("queues (issue 37)", () => {
  describeAuth("GET", "/api/queues");
  describeAuth("POST", "/api/queues", queueBody());
  describeAuth("GET", `/api/queues/${SOME_ID}/slots`);

  it("creates, lists, reads by id and as default, replaces and deletes; the default moves", async () => {
    const ws = await createTestWorkspace();
    const a = await ws.api(
      "POST",
      "/api/queues",
      queueBody({
        slots: [
          { weekday: 3, time: "14:30" },
          { weekday: 1, time: "09:00" },
        ],
      }),
    );
    expect(a.status, a.text).toBe(201);
    expect(a.body).toEqual({
      id: expect.stringMatching(UUID),
      name: "Weekdays",
      time_zone: "Europe/Paris",
      slots: [
        { weekday: 1, time: "09:00" },
        { weekday: 3, time: "14:30" },
      ],
      social_account_ids: [],
      paused: false,
      is_default: true,
      evergreen_label_id: null,
      evergreen_min_days: 30,
      created_at: expect.stringMatching(YMDHIS),
      updated_at: expect.stringMatching(YMDHIS),
    });
    const b = await ws.api("POST", "/api/queues", queueBody({ name: "Evenings", time_zone: "America/New_York" }));
    expect(b.status).toBe(201);
    expect(b.body.is_default).toBe(false);
    expect((await ws.api("GET", "/api/queues")).body).toEqual([a.body, b.body]);
    expect(await ws.api("GET", "/api/queues/default")).toMatchObject({ status: 200, body: a.body });
    expect(await ws.api("GET", `/api/queues/${b.body.id}`)).toMatchObject({ status: 200, body: b.body });

    const upd = await ws.api("PUT", `/api/queues/${b.body.id}`, queueBody({ name: "Evenings 2", is_default: true }));
    expect(upd.status, upd.text).toBe(200);
    expect(upd.body).toEqual({
      ...b.body,
      name: "Evenings 2",
      time_zone: "Europe/Paris",
      is_default: true,
      updated_at: expect.stringMatching(YMDHIS),
    });
    expect((await ws.api("GET", `/api/queues/${a.body.id}`)).body.is_default).toBe(false);
    const refuse = await ws.api("PUT", `/api/queues/${b.body.id}`, queueBody({ is_default: false }));
    expect(refuse.status).toBe(422);
    expect(refuse.body.errors).toEqual({
      is_default: ["Make another queue the default instead: a workspace with queues has one default."],
    });

    expect((await ws.api("DELETE", `/api/queues/${b.body.id}`)).status).toBe(204);
    const left = await ws.api("GET", "/api/queues");
    expect(left.body).toEqual([{ ...a.body, is_default: true, updated_at: expect.stringMatching(YMDHIS) }]);
    expect((await ws.api("DELETE", `/api/queues/${b.body.id}`)).status).toBe(404);
    // another workspace sees none of it
    const other = await createTestWorkspace();
    expect(await other.api("GET", `/api/queues/${a.body.id}`)).toMatchObject({
      status: 404,
      body: { message: "Not found." },
    });
    expect((await other.api("GET", "/api/queues/default")).status).toBe(404);
  });

  it("bounds: the 21st queue, the 101st slot, malformed times and zones are 422 with errors", async () => {
    const ws = await createTestWorkspace();
    const bad = await ws.api("POST", "/api/queues", {
      name: "",
      time_zone: "Mars/Olympus",
      slots: [
        { weekday: 0, time: "09:00" },
        { weekday: 1, time: "24:00" },
        { weekday: 2, time: "9:00" },
      ],
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual([
      "name",
      "slots.0.weekday",
      "slots.1.time",
      "slots.2.time",
      "time_zone",
    ]);
    expect(bad.body.errors.time_zone).toEqual([
      "The time zone field must be an IANA time zone name (e.g. Europe/Paris).",
    ]);
    expect(bad.body.errors["slots.1.time"]).toEqual([
      "The slots.1.time field must be a time in the form HH:MM (00:00–23:59).",
    ]);

    const tooMany = Array.from({ length: 101 }, (_, i) => ({
      weekday: (i % 7) + 1,
      time: `${String(Math.floor(i / 7)).padStart(2, "0")}:00`,
    }));
    const r101 = await ws.api("POST", "/api/queues", queueBody({ slots: tooMany }));
    expect(r101.status).toBe(422);
    expect(Object.keys(r101.body.errors)).toEqual(["slots"]);
    const r100 = await ws.api("POST", "/api/queues", queueBody({ slots: tooMany.slice(0, 100) }));
    expect(r100.status, r100.text).toBe(201);
    expect(r100.body.slots).toHaveLength(100);

    const dup = await ws.api(
      "POST",
      "/api/queues",
      queueBody({
        slots: [
          { weekday: 1, time: "09:00" },
          { weekday: 1, time: "09:00" },
        ],
      }),
    );
    expect(dup.status).toBe(422);
    expect(dup.body.errors).toEqual({ "slots.1": ["The slots field has a duplicate value."] });

    const foreign = await ws.api("POST", "/api/queues", queueBody({ social_account_ids: [SOME_ID] }));
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors).toEqual({ "social_account_ids.0": ["The selected social account is invalid."] });

    await Promise.all(Array.from({ length: 19 }, () => ws.api("POST", "/api/queues", queueBody())));
    expect((await ws.api("GET", "/api/queues")).body).toHaveLength(20);
    const r21 = await ws.api("POST", "/api/queues", queueBody());
    expect(r21.status).toBe(422);
    expect(r21.body).toEqual({
      message: "A workspace can have at most 20 queues.",
      errors: { name: ["A workspace can have at most 20 queues."] },
    });
    const defaults = (await ws.api("GET", "/api/queues")).body.filter((q: { is_default: boolean }) => q.is_default);
    expect(defaults).toHaveLength(1);

    const q = r100.body.id;
    expect((await ws.api("GET", `/api/queues/${q}/slots?count=101`)).status).toBe(422);
    const badFrom = await ws.api("GET", `/api/queues/${q}/slots?from=2027-01-01T00:00:00Z`);
    expect(badFrom.status).toBe(422);
    expect(badFrom.body.errors).toEqual({ from: ["The from field must be a UTC time in the form Y-m-d H:i:s."] });
  });

  it("a 09:00 slot stays 09:00 local across DST in Europe/Paris and America/New_York; skipped and repeated hours", async () => {
    const ws = await createTestWorkspace();
    const slots = async (zone: string, slot: { weekday: number; time: string }, from: string, count: number) => {
      const q = await ws.api("POST", "/api/queues", queueBody({ time_zone: zone, slots: [slot] }));
      const res = await ws.api("GET", `/api/queues/${q.body.id}/slots?from=${encodeURIComponent(from)}&count=${count}`);
      expect(res.status, res.text).toBe(200);
      return res.body.map((s: { at: string; local: string; post_id: null; reservation_id: null }) => {
        expect(s.post_id).toBeNull();
        expect(s.reservation_id).toBeNull();
        return [s.at, s.local];
      });
    };
    const monday9 = { weekday: 1, time: "09:00" };
    // Europe/Paris: summer time from Sunday 2027-03-28, winter time from Sunday 2027-10-31.
    expect(await slots("Europe/Paris", monday9, "2027-03-20 00:00:00", 2)).toEqual([
      ["2027-03-22 08:00:00", "2027-03-22 09:00:00"],
      ["2027-03-29 07:00:00", "2027-03-29 09:00:00"],
    ]);
    expect(await slots("Europe/Paris", monday9, "2027-10-24 00:00:00", 2)).toEqual([
      ["2027-10-25 07:00:00", "2027-10-25 09:00:00"],
      ["2027-11-01 08:00:00", "2027-11-01 09:00:00"],
    ]);
    // America/New_York: daylight time from Sunday 2027-03-14, standard time from Sunday 2027-11-07.
    expect(await slots("America/New_York", monday9, "2027-03-06 00:00:00", 2)).toEqual([
      ["2027-03-08 14:00:00", "2027-03-08 09:00:00"],
      ["2027-03-15 13:00:00", "2027-03-15 09:00:00"],
    ]);
    expect(await slots("America/New_York", monday9, "2027-10-30 00:00:00", 2)).toEqual([
      ["2027-11-01 13:00:00", "2027-11-01 09:00:00"],
      ["2027-11-08 14:00:00", "2027-11-08 09:00:00"],
    ]);
    // A Sunday 02:30 slot: skipped on 2027-03-28 in Paris (moves forward by the gap, to 03:30 summer time), repeated
    // on 2027-10-31 (its first occurrence, summer time); the weeks either side are plain.
    expect(await slots("Europe/Paris", { weekday: 7, time: "02:30" }, "2027-03-27 00:00:00", 2)).toEqual([
      ["2027-03-28 01:30:00", "2027-03-28 03:30:00"],
      ["2027-04-04 00:30:00", "2027-04-04 02:30:00"],
    ]);
    expect(await slots("Europe/Paris", { weekday: 7, time: "02:30" }, "2027-10-30 00:00:00", 2)).toEqual([
      ["2027-10-31 00:30:00", "2027-10-31 02:30:00"],
      ["2027-11-07 01:30:00", "2027-11-07 02:30:00"],
    ]);
    // `from` is inclusive, and count holds across weeks
    const many = await slots("UTC", monday9, "2027-03-22 09:00:00", 100);
    expect(many).toHaveLength(100);
    expect(many[0]).toEqual(["2027-03-22 09:00:00", "2027-03-22 09:00:00"]);
    expect(many[99]).toEqual(["2029-02-12 09:00:00", "2029-02-12 09:00:00"]);
  });
});

describe("queue slot holders (issue 37)", () => {
  it("a slot shows the post holding it, a live reservation, and nothing for an expired one", async () => {
    const ws = await createTestWorkspace();
    const q = await ws.api(
      "POST",
      "/api/queues",
      queueBody({ time_zone: "UTC", slots: [{ weekday: 1, time: "09:00" }] }),
    );
    const at = (d: string) => Date.parse(`${d}T09:00:00Z`);
    const postId = crypto.randomUUID();
    const live = crypto.randomUUID();
    const now = Date.now();
    await env.DB.batch([
      env.DB.prepare(
        "INSERT INTO posts (id, workspace_id, content, status, scheduled_at, created_at, updated_at) VALUES (?, ?, '', 'scheduled', ?, ?, ?)",
      ).bind(postId, ws.workspaceId, at("2030-01-07"), now, now),
      env.DB.prepare(
        "INSERT INTO queue_slots (id, queue_id, workspace_id, at, post_id, expires_at, created_at) VALUES (?, ?, ?, ?, ?, NULL, ?), (?, ?, ?, ?, NULL, ?, ?), (?, ?, ?, ?, NULL, ?, ?)",
      ).bind(
        crypto.randomUUID(),
        q.body.id,
        ws.workspaceId,
        at("2030-01-07"),
        postId,
        now,
        live,
        q.body.id,
        ws.workspaceId,
        at("2030-01-14"),
        now + 900_000,
        now,
        crypto.randomUUID(),
        q.body.id,
        ws.workspaceId,
        at("2030-01-21"),
        now - 1,
        now,
      ),
    ]);
    // the same (queue, at) cannot be held twice: the database refuses it
    await expect(
      env.DB.prepare(
        "INSERT INTO queue_slots (id, queue_id, workspace_id, at, post_id, expires_at, created_at) VALUES (?, ?, ?, ?, NULL, ?, ?)",
      )
        .bind(crypto.randomUUID(), q.body.id, ws.workspaceId, at("2030-01-14"), now + 900_000, now)
        .run(),
    ).rejects.toThrow(/UNIQUE constraint failed: queue_slots.queue_id, queue_slots.at/);
    const res = await ws.api("GET", `/api/queues/${q.body.id}/slots?from=2030-01-01%2000:00:00&count=4`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { at: "2030-01-07 09:00:00", local: "2030-01-07 09:00:00", post_id: postId, reservation_id: null },
      { at: "2030-01-14 09:00:00", local: "2030-01-14 09:00:00", post_id: null, reservation_id: live },
      { at: "2030-01-21 09:00:00", local: "2030-01-21 09:00:00", post_id: null, reservation_id: null },
      { at: "2030-01-28 09:00:00", local: "2030-01-28 09:00:00", post_id: null, reservation_id: null },
    ]);
  });
});

/** A workspace with one UTC queue (Tuesdays 10:15) and an X account; `platforms` targets the account. */
async function queueWithAccount() {
  const ws = await createTestWorkspace();
  const q = await ws.api(
    "POST",
    "/api/queues",
    queueBody({ time_zone: "UTC", slots: [{ weekday: 2, time: "10:15" }] }),
  );
  const account = await ws.api("POST", "/api/social-accounts", {
    platform: "x",
    display_name: "X",
    username: "x_user",
    credentials: { access_token: "token" },
  });
  return { ws, q, platforms: [{ social_account_id: account.body.id as string, content_type: "x_post" }] };
}

describe("queue MCP tools (issue 37)", () => {
  it("list-queues-tool and list-queue-slots-tool answer what REST answers", async () => {
    const ws = await createTestWorkspace();
    const q = await ws.api(
      "POST",
      "/api/queues",
      queueBody({ time_zone: "UTC", slots: [{ weekday: 2, time: "10:15" }] }),
    );
    const client = await connectMcp(ws.key);
    expect(await callTool(client, "list-queues-tool")).toEqual({ items: [q.body] });
    const rest = await ws.api("GET", `/api/queues/${q.body.id}/slots?count=3`);
    expect(rest.body).toHaveLength(3);
    expect(await callTool(client, "list-queue-slots-tool", { queue_id: "default", count: 3 })).toEqual({
      items: rest.body,
    });
  });

  it("add-to-queue-tool schedules a post in the next free slot, as PUT with queue_id does; create-post-tool queues too", async () => {
    const { ws, q, platforms } = await queueWithAccount();
    const draft = await ws.api("POST", "/api/posts", { content: "From an agent", platforms });
    const free = (await ws.api("GET", `/api/queues/${q.body.id}/slots?count=2`)).body;
    const client = await connectMcp(ws.key);
    const added = await callTool(client, "add-to-queue-tool", { post_id: draft.body.id });
    expect(added).toEqual({
      ...draft.body,
      status: "scheduled",
      scheduled_at: free[0].at,
      queue_id: q.body.id,
      updated_at: expect.stringMatching(YMDHIS),
    });
    expect((await ws.api("GET", `/api/posts/${draft.body.id}`)).body).toEqual(added);
    const created = await callTool(client, "create-post-tool", { content: "Second", platforms, queue_id: q.body.id });
    expect(created).toMatchObject({ status: "scheduled", scheduled_at: free[1].at, queue_id: q.body.id });
    await client.close();
  });

  it("next-free-queue-slot-tool, reserve-queue-slot-tool, add-to-queue-tool with reservation_id, reorder-queue-tool", async () => {
    const { ws, q, platforms } = await queueWithAccount();
    const free = (await ws.api("GET", `/api/queues/${q.body.id}/slots?count=3`)).body;
    const client = await connectMcp(ws.key);
    expect(await callTool(client, "next-free-queue-slot-tool")).toEqual({ at: free[0].at, local: free[0].local });

    const reservation = await callTool(client, "reserve-queue-slot-tool", { queue_id: q.body.id });
    expect(reservation).toEqual({
      id: expect.stringMatching(UUID),
      queue_id: q.body.id,
      at: free[0].at,
      local: free[0].local,
      expires_at: expect.stringMatching(YMDHIS),
    });
    expect(await callTool(client, "next-free-queue-slot-tool")).toEqual({ at: free[1].at, local: free[1].local });

    const later = await callTool(client, "create-post-tool", { content: "Later", platforms, queue_id: "default" });
    expect(later.scheduled_at).toBe(free[1].at);
    const draft = await ws.api("POST", "/api/posts", { content: "Reserved", platforms });
    const added = await callTool(client, "add-to-queue-tool", {
      post_id: draft.body.id,
      reservation_id: (reservation as { id: string }).id,
    });
    expect(added).toMatchObject({ id: draft.body.id, status: "scheduled", scheduled_at: free[0].at });

    const reordered = await callTool(client, "reorder-queue-tool", { post_ids: [later.id, draft.body.id] });
    expect(reordered).toEqual({
      items: [
        { at: free[0].at, local: free[0].local, post_id: later.id, reservation_id: null },
        { at: free[1].at, local: free[1].local, post_id: draft.body.id, reservation_id: null },
      ],
    });
    expect((await ws.api("GET", `/api/posts/${later.id}`)).body.scheduled_at).toBe(free[0].at);
    await client.close();
  });
});
