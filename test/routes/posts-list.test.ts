// fresh storage: runs the Worker's cron, which works on every workspace's rows at once.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { spyOnPrepare } from "../support/d1-spy";
import { BASE, createTestWorkspace, type TestWorkspace } from "../support/harness";
import { connectAccount, createLabel, insertMedia } from "./posts-fixtures";

afterEach(() => vi.restoreAllMocks());

const T0 = Date.UTC(2030, 0, 1, 9, 0, 0);

/** `n` posts inserted straight into D1; post i is scheduled i hours after T0 (so the newest is last). */
async function seedPosts(
  ws: TestWorkspace,
  n: number,
  opts: { status?: (i: number) => string; scheduled?: (i: number) => number | null } = {},
) {
  const ids: string[] = [];
  const stmts = [];
  for (let i = 0; i < n; i++) {
    const id = crypto.randomUUID();
    ids.push(id);
    const scheduled = opts.scheduled ? opts.scheduled(i) : T0 + i * 3_600_000;
    stmts.push(
      env.DB.prepare(
        "INSERT INTO posts (id, workspace_id, content, status, scheduled_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      ).bind(id, ws.workspaceId, `Post ${i}`, opts.status?.(i) ?? "draft", scheduled, T0 + i, T0 + i),
    );
  }
  if (stmts.length) await env.DB.batch(stmts);
  return ids;
}

const url = (query: string) => `${BASE}/api/posts?${query}`;

function pageLinks(current: number, last: number, query = "") {
  return [
    {
      url: current > 1 ? url(`${query}page=${current - 1}`) : null,
      label: "&laquo; Previous",
      page: current > 1 ? current - 1 : null,
      active: false,
    },
    ...Array.from({ length: last }, (_, i) => ({
      url: url(`${query}page=${i + 1}`),
      label: String(i + 1),
      page: i + 1,
      active: i + 1 === current,
    })),
    {
      url: current < last ? url(`${query}page=${current + 1}`) : null,
      label: "Next &raquo;",
      page: current < last ? current + 1 : null,
      active: false,
    },
  ];
}

describe("GET /api/posts", () => {
  it("answers an empty first page", async () => {
    const ws = await createTestWorkspace();
    const res = await ws.api("GET", "/api/posts");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [],
      links: { first: url("page=1"), last: url("page=1"), prev: null, next: null },
      meta: {
        current_page: 1,
        from: null,
        last_page: 1,
        links: pageLinks(1, 1),
        path: `${BASE}/api/posts`,
        per_page: 15,
        to: null,
        total: 0,
      },
    });
  });

  it("pages 15 at a time, scheduled_at desc: first, middle, last and past the end", async () => {
    const ws = await createTestWorkspace();
    const ids = await seedPosts(ws, 40);
    const newestFirst = [...ids].reverse();

    const first = await ws.api("GET", "/api/posts");
    expect(first.body.data.map((p: { id: string }) => p.id)).toEqual(newestFirst.slice(0, 15));
    expect(first.body.links).toEqual({ first: url("page=1"), last: url("page=3"), prev: null, next: url("page=2") });
    expect(first.body.meta).toEqual({
      current_page: 1,
      from: 1,
      last_page: 3,
      links: pageLinks(1, 3),
      path: `${BASE}/api/posts`,
      per_page: 15,
      to: 15,
      total: 40,
    });

    const middle = await ws.api("GET", "/api/posts?page=2");
    expect(middle.body.data.map((p: { id: string }) => p.id)).toEqual(newestFirst.slice(15, 30));
    expect(middle.body.links).toEqual({
      first: url("page=1"),
      last: url("page=3"),
      prev: url("page=1"),
      next: url("page=3"),
    });
    expect(middle.body.meta).toEqual({
      current_page: 2,
      from: 16,
      last_page: 3,
      links: pageLinks(2, 3),
      path: `${BASE}/api/posts`,
      per_page: 15,
      to: 30,
      total: 40,
    });

    const last = await ws.api("GET", "/api/posts?page=3");
    expect(last.body.data.map((p: { id: string }) => p.id)).toEqual(newestFirst.slice(30));
    expect(last.body.links).toEqual({ first: url("page=1"), last: url("page=3"), prev: url("page=2"), next: null });
    expect(last.body.meta).toEqual({
      current_page: 3,
      from: 31,
      last_page: 3,
      links: pageLinks(3, 3),
      path: `${BASE}/api/posts`,
      per_page: 15,
      to: 40,
      total: 40,
    });

    const past = await ws.api("GET", "/api/posts?page=9");
    expect(past.status).toBe(200);
    expect(past.body).toEqual({
      data: [],
      links: { first: url("page=1"), last: url("page=3"), prev: url("page=8"), next: null },
      meta: {
        current_page: 9,
        from: null,
        last_page: 3,
        links: pageLinks(9, 3),
        path: `${BASE}/api/posts`,
        per_page: 15,
        to: null,
        total: 40,
      },
    });
  });

  it("reads a page that is not a positive integer as 1", async () => {
    const ws = await createTestWorkspace();
    await seedPosts(ws, 16);
    for (const page of ["0", "-1", "abc", "1.5", "", "99999999999999999999"]) {
      const res = await ws.api("GET", `/api/posts?page=${page}`);
      expect(res.status).toBe(200);
      expect(res.body.meta.current_page).toBe(1);
      expect(res.body.data).toHaveLength(15);
    }
  });

  it("orders by scheduled_at desc, then created_at desc; unscheduled last", async () => {
    const ws = await createTestWorkspace();
    const ids = await seedPosts(ws, 4, { scheduled: (i) => (i === 3 ? null : i === 0 ? T0 + 10 : T0) });
    const res = await ws.api("GET", "/api/posts");
    expect(res.body.data.map((p: { id: string }) => p.id)).toEqual([ids[0], ids[2], ids[1], ids[3]]);
  });

  it("filters by status and label_id, keeping the filters in the links", async () => {
    const ws = await createTestWorkspace();
    const ids = await seedPosts(ws, 20, { status: (i) => (i % 2 ? "scheduled" : "draft") });
    const label = await createLabel(ws, "Pick");
    await env.DB.batch(
      [ids[1], ids[4], ids[7]].map((id) =>
        env.DB.prepare("INSERT INTO post_labels (post_id, label_id) VALUES (?, ?)").bind(id, label.id),
      ),
    );
    const scheduled = await ws.api("GET", "/api/posts?status=scheduled");
    expect(scheduled.body.meta.total).toBe(10);
    expect(scheduled.body.data.every((p: { status: string }) => p.status === "scheduled")).toBe(true);
    expect(scheduled.body.links.first).toBe(url("status=scheduled&page=1"));
    const labelled = await ws.api("GET", `/api/posts?label_id=${label.id}`);
    expect(labelled.body.data.map((p: { id: string }) => p.id)).toEqual([ids[7], ids[4], ids[1]]);
    expect(labelled.body.data[0].labels).toEqual([label]);
    const both = await ws.api("GET", `/api/posts?label_id=${label.id}&status=scheduled`);
    expect(both.body.data.map((p: { id: string }) => p.id)).toEqual([ids[7], ids[1]]);
    expect(both.body.meta.links[1].url).toBe(url(`status=scheduled&label_id=${label.id}&page=1`));
    const bad = await ws.api("GET", "/api/posts?status=gone&label_id=nope");
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      message: "The selected status is invalid. (and 1 more error)",
      errors: { status: ["The selected status is invalid."], label_id: ["The label id field must be a valid UUID."] },
    });
  });

  it("lists only this workspace's posts", async () => {
    const ws = await createTestWorkspace();
    const other = await createTestWorkspace();
    await seedPosts(other, 3);
    const mine = await seedPosts(ws, 1);
    const res = await ws.api("GET", "/api/posts");
    expect(res.body.meta.total).toBe(1);
    expect(res.body.data.map((p: { id: string }) => p.id)).toEqual(mine);
  });

  it("returns full posts with a constant number of D1 statements per page", async () => {
    const count = async (ws: TestWorkspace) => {
      await ws.api("GET", "/api/posts"); // warm-up: the key's last_used_at write
      let statements = 0;
      spyOnPrepare((q, prepare) => {
        statements++;
        return prepare(q);
      });
      const res = await ws.api("GET", "/api/posts");
      vi.restoreAllMocks();
      return { statements, res };
    };

    const plain = await createTestWorkspace();
    const acc = await connectAccount(plain, "x");
    await plain.api("POST", "/api/posts", { platforms: [{ social_account_id: acc.id, content_type: "x_post" }] });

    const rich = await createTestWorkspace();
    const accounts = [];
    for (const p of ["x", "linkedin", "facebook", "threads", "instagram"]) accounts.push(await connectAccount(rich, p));
    const labels = [await createLabel(rich, "a"), await createLabel(rich, "b"), await createLabel(rich, "c")];
    for (let i = 0; i < 15; i++) {
      const media = [await insertMedia(rich, "image"), await insertMedia(rich, "image")];
      const res = await rich.api("POST", "/api/posts", {
        platforms: accounts.map((a) => ({
          social_account_id: a.id,
          content_type: `${a.platform}_post`.replace("instagram_post", "instagram_carousel"),
        })),
        media: media.map((m) => ({ id: m.id })),
        label_ids: labels.map((l) => l.id),
      });
      expect(res.status, res.text).toBe(201);
    }

    const a = await count(plain);
    const b = await count(rich);
    expect(b.res.body.data).toHaveLength(15);
    expect(b.res.body.data[0].platforms).toHaveLength(5);
    expect(b.res.body.data[0].labels).toHaveLength(3);
    expect(b.res.body.data[0].media).toHaveLength(2);
    // One statement (so one round trip) for count, page, and the page's platforms, media and labels — for the
    // plain page and the rich one alike (a warm key needs no D1 read for auth).
    expect(a.statements).toBe(1);
    expect(b.statements).toBe(1);
    const detail = await rich.api("GET", `/api/posts/${b.res.body.data[3].id}`);
    expect(detail.body).toEqual(b.res.body.data[3]);
  });
});
