import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createTestWorkspace, UUID, YMDHIS } from "../support/harness";
import { connectAccount, createLabel, HOUR, insertMedia, ymdHis } from "./posts-fixtures";

/** Issue 40: `POST /api/posts/{post}/duplicate` — a new draft with the same content, targets, media and labels. */
describe("POST /api/posts/{post}/duplicate", () => {
  it("makes a draft with the same text, row texts, thread, first comment, media, labels and targets; no time, no queue", async () => {
    const ws = await createTestWorkspace();
    const x = await connectAccount(ws, "x");
    const linkedin = await connectAccount(ws, "linkedin");
    const image = await insertMedia(ws, "image");
    const label = await createLabel(ws, "Launch");
    const q = await ws.api("POST", "/api/queues", {
      name: "Main",
      time_zone: "UTC",
      slots: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, time: "23:45" })),
    });
    expect(q.status, q.text).toBe(201);
    const original = await ws.api("POST", "/api/posts", {
      content: "Doors open at nine",
      media: [{ id: image.id }],
      label_ids: [label.id],
      queue_id: "default",
      repeat: { every: 1, unit: "week" },
      platforms: [
        { social_account_id: x.id, content_type: "x_post", thread: [{ content: "Bring a friend" }] },
        {
          social_account_id: linkedin.id,
          content_type: "linkedin_post",
          content: "LinkedIn's own",
          first_comment: "Tickets below",
        },
      ],
    });
    expect(original.status, original.text).toBe(201);
    expect(original.body.queue_id).toBe(q.body.id);

    const res = await ws.api("POST", `/api/posts/${original.body.id}/duplicate`);
    expect(res.status, res.text).toBe(201);
    const o = original.body;
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      content: "Doors open at nine",
      media: o.media,
      status: "draft",
      scheduled_at: null,
      published_at: null,
      queue_id: null,
      repeat: null,
      repeat_of: null,
      platforms: o.platforms.map((p: Record<string, unknown>) => ({ ...p, id: expect.stringMatching(UUID) })),
      labels: o.labels,
      created_at: expect.stringMatching(YMDHIS),
      updated_at: expect.stringMatching(YMDHIS),
    });
    expect(res.body.id).not.toBe(o.id);
    const rowIds = [...o.platforms, ...res.body.platforms].map((p: { id: string }) => p.id);
    expect(new Set(rowIds).size).toBe(4);
    expect((await ws.api("GET", `/api/posts/${res.body.id}`)).body).toEqual(res.body);
    // The original is untouched, and still holds its slot.
    expect((await ws.api("GET", `/api/posts/${o.id}`)).body).toEqual(o);
  });

  it("duplicates a published post as a fresh draft: nothing of the network's comes along", async () => {
    const ws = await createTestWorkspace();
    const x = await connectAccount(ws, "x");
    const made = await ws.api("POST", "/api/posts", {
      content: "Went out",
      scheduled_at: ymdHis(Date.now() + HOUR),
      platforms: [{ social_account_id: x.id, content_type: "x_post" }],
    });
    const now = Date.now();
    await env.DB.batch([
      env.DB.prepare(
        "UPDATE post_platforms SET status = 'published', platform_post_id = '1799', platform_url = 'https://x.com/i/status/1799', published_at = ?, attempts = 1 WHERE post_id = ?",
      ).bind(now, made.body.id),
      env.DB.prepare("UPDATE posts SET status = 'published', published_at = ? WHERE id = ?").bind(now, made.body.id),
    ]);
    const res = await ws.api("POST", `/api/posts/${made.body.id}/duplicate`);
    expect(res.status, res.text).toBe(201);
    expect([res.body.status, res.body.published_at, res.body.content]).toEqual(["draft", null, "Went out"]);
    expect(
      res.body.platforms.map((p: Record<string, unknown>) => [
        p.status,
        p.platform_post_id,
        p.platform_url,
        p.published_at,
      ]),
    ).toEqual([["pending", null, null, null]]);
  });

  it("404 for another workspace's post and an unknown id; nothing is written", async () => {
    const ws = await createTestWorkspace();
    const other = await createTestWorkspace();
    const x = await connectAccount(other, "x");
    const theirs = await other.api("POST", "/api/posts", {
      content: "Theirs",
      platforms: [{ social_account_id: x.id, content_type: "x_post" }],
    });
    const refused = await ws.api("POST", `/api/posts/${theirs.body.id}/duplicate`);
    expect([refused.status, refused.body.message]).toEqual([404, expect.any(String)]);
    expect((await ws.api("POST", `/api/posts/${crypto.randomUUID()}/duplicate`)).status).toBe(404);
    expect((await ws.api("POST", "/api/posts/not-a-uuid/duplicate")).status).toBe(404);
    expect((await ws.api("GET", "/api/posts")).body.data).toEqual([]);
    expect((await other.api("GET", "/api/posts")).body.data.length).toBe(1);
  });
});
