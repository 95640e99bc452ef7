import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { GIF_1X1 } from "../media/fixtures";
import { spyOnSessionBatch } from "../support/d1-spy";
import { call, createTestWorkspace, type TestWorkspace } from "../support/harness";
import { connectAccount, createLabel, insertAccount } from "./posts-fixtures";

/**
 * Issue 28: far from the primary every sequential D1 call is a cross-region round trip. Each write verb's D1 round
 * trips (`prepare().all/run/first/raw`, `batch`, `exec` — a batch is one however many statements it holds), read
 * from the `Server-Timing` header the Worker adds outside production (src/db/client.ts). The key is warmed first:
 * its lookup and its once-a-minute `last_used_at` write are not the verb's.
 */
function costOf(res: { headers: Headers }) {
  const m = /d1;desc="(\d+) statements";.*d1rt;desc="(\d+) round trips"/.exec(res.headers.get("Server-Timing") ?? "");
  if (!m) throw new Error("no Server-Timing d1 entry");
  return { statements: Number(m[1]), round_trips: Number(m[2]) };
}

/** Rows D1 reports read and written (`d1rows`: what D1 bills, trigger writes included). */
function rowsOf(res: { headers: Headers }) {
  const m = /d1rows;desc="(\d+) read, (\d+) written"/.exec(res.headers.get("Server-Timing") ?? "");
  if (!m) throw new Error("no Server-Timing d1rows entry");
  return { read: Number(m[1]), written: Number(m[2]) };
}

async function gif(ws: TestWorkspace, postId: string) {
  const form = new FormData();
  form.append("media", new Blob([GIF_1X1], { type: "image/gif" }), "a.gif");
  return call("POST", `/api/posts/${postId}/media`, { key: ws.key, rawBody: form });
}

describe("round trips per write verb", () => {
  it("POST /api/posts: one read and one write batch, answered from what was written (equal to a later GET)", async () => {
    const ws = await createTestWorkspace();
    await ws.api("GET", "/api/workspace");
    const [x, threads] = [await connectAccount(ws, "x"), await connectAccount(ws, "threads")];
    // Label order is SQLite's (BINARY: code points): "Z" < "a" < "é" < "😀" < "ｚ" (U+FF5A sorts after U+1F600 in
    // UTF-16 code units but before it in code points).
    const labels = [];
    for (const name of ["ｚ", "😀", "a", "é", "Z"]) labels.push(await createLabel(ws, name));
    const host = await ws.api("POST", "/api/posts", {
      platforms: [{ social_account_id: x.id, content_type: "x_post" }],
    });
    const image = (await gif(ws, host.body.id)).body.media[0];
    expect(image.id).toBeDefined();

    const body = {
      content: "hello",
      scheduled_at: "2099-01-02T03:04:05Z",
      media: [{ id: image.id }],
      label_ids: labels.map((l) => l.id),
      platforms: [
        {
          social_account_id: x.id,
          content_type: "x_post",
          content: "for x",
          thread: [{ content: "two", media: [{ id: image.id }] }, { content: "three" }],
        },
        { social_account_id: threads.id, content_type: "threads_post", first_comment: "first!" },
      ],
    };
    // The labels and the media were never read by a create in this isolate: read, check, write.
    const created = await ws.api("POST", "/api/posts", body);
    expect(created.status).toBe(201);
    expect(costOf(created)).toEqual({ statements: 7, round_trips: 2 });
    expect(created.body.labels.map((l: { name: string }) => l.name)).toEqual(["Z", "a", "é", "ｚ", "😀"]);
    expect(created.body.platforms[0].thread[0].media).toEqual([image]);
    expect((await ws.api("GET", `/api/posts/${created.body.id}`)).body).toEqual(created.body);

    // Now every row it names is remembered (src/services/posts/reference-memory.ts): the write batch alone, guarded
    // by the rows' fingerprints (test/routes/posts-remembered.test.ts shows what happens when they changed).
    const again = await ws.api("POST", "/api/posts", body);
    expect(again.status).toBe(201);
    expect(costOf(again)).toEqual({ statements: 4, round_trips: 1 });
    expect((await ws.api("GET", `/api/posts/${again.body.id}`)).body).toEqual(again.body);
    expect({ ...again.body, id: created.body.id, platforms: [], created_at: 0, updated_at: 0 }).toEqual({
      ...created.body,
      platforms: [],
      created_at: 0,
      updated_at: 0,
    });

    const bare = await ws.api("POST", "/api/posts", {
      platforms: [{ social_account_id: x.id, content_type: "x_post" }],
    });
    // No label or media named: no statement reads or guards them; the account is remembered.
    expect(costOf(bare)).toEqual({ statements: 2, round_trips: 1 });
    // What D1 reports written (and bills): the rows with their index entries and the revision triggers' updates
    // (test/db/revision-trigger-cost.test.ts).
    // 45: the thread item's media is also one post_thread_media row (migration 0021) with its two index entries.
    expect(rowsOf(created).written).toBe(45);
    expect(rowsOf(bare).written).toBe(12);
    expect((await ws.api("GET", `/api/posts/${bare.body.id}`)).body).toEqual(bare.body);
  });

  it("every write verb: one read batch and one write batch at most, answered from what was written", async () => {
    const ws = await createTestWorkspace();
    await ws.api("GET", "/api/workspace");
    const x = await connectAccount(ws, "x");
    // A Mastodon account counts against its instance's limits (read with the post, in the one read batch).
    const mastodon = await insertAccount(ws, "mastodon", { meta: { max_characters: 1000 } });
    const label = await createLabel(ws, "L");
    const other = await createLabel(ws, "M");
    const sig = (await ws.api("POST", "/api/signatures", { name: "S", content: "#sig" })).body;
    const costs: Record<string, { status: number; statements: number; round_trips: number }> = {};
    const record = async (name: string, request: Promise<{ status: number; headers: Headers; body: any }>) => {
      const res = await request;
      costs[name] = { status: res.status, ...costOf(res) };
      return res;
    };
    /** A PUT answers with the post as a later GET shows it: built from what was read and written, not read back. */
    const put = async (name: string, id: string, body: unknown) => {
      const res = await record(name, ws.api("PUT", `/api/posts/${id}`, body));
      expect(res.body).toMatchObject({ id });
      expect(res.body).toEqual((await ws.api("GET", `/api/posts/${id}`)).body);
      return res;
    };
    const createBody = {
      platforms: [{ social_account_id: x.id, content_type: "x_post" }],
      label_ids: [label.id],
    };
    const post = await record("POST /api/posts", ws.api("POST", "/api/posts", createBody));
    const once = (key: string) => ws.api("POST", "/api/posts", createBody, { "Idempotency-Key": key });
    const first = await record("POST /api/posts (Idempotency-Key)", once("k1"));
    const replay = await record("POST /api/posts (Idempotency-Key, replayed)", once("k1"));
    expect(replay.body).toEqual(first.body);
    const id = post.body.id;
    await put("PUT /api/posts/{post} (content)", id, { content: "changed" });
    const image = (await record("POST /api/posts/{post}/media", gif(ws, id))).body.media[0];
    await record("PATCH /api/media/{media}", ws.api("PATCH", `/api/media/${image.id}`, { alt: "a gif" }));
    const added = await put("PUT /api/posts/{post} (labels, signature, a target with a thread naming media)", id, {
      label_ids: [other.id, label.id],
      signature_id: sig.id,
      platforms: [
        {
          social_account_id: mastodon,
          content_type: "mastodon_post",
          thread: [{ content: "two", media: [{ id: image.id }] }],
          first_comment: "first!",
        },
      ],
    });
    await put("PUT /api/posts/{post} (schedule)", id, { status: "scheduled", scheduled_at: "2099-01-02T03:04:05Z" });
    await put("PUT /api/posts/{post} (media replaced: the old one is released)", id, {
      status: "draft",
      media: [],
      platforms: [
        { id: post.body.platforms[0].id, enabled: false },
        { id: added.body.platforms[1].id, thread: null },
      ],
    });
    // Released in the write batch: the row, then its object.
    expect(await env.DB.prepare("SELECT id FROM media WHERE id = ?").bind(image.id).first()).toBeNull();
    expect(await env.MEDIA_BUCKET.head(image.path)).toBeNull();
    await put("PUT /api/posts/{post} (publish)", id, { status: "publishing" });
    await record("DELETE /api/posts/{post}", ws.api("DELETE", `/api/posts/${first.body.id}`));
    const l = await record("POST /api/labels", ws.api("POST", "/api/labels", { name: "A", color: "#000000" }));
    await record("PUT /api/labels/{id}", ws.api("PUT", `/api/labels/${l.body.id}`, { name: "B", color: "#000000" }));
    await record("DELETE /api/labels/{id}", ws.api("DELETE", `/api/labels/${l.body.id}`));
    const s = await record("POST /api/signatures", ws.api("POST", "/api/signatures", { name: "A", content: "c" }));
    await record(
      "PUT /api/signatures/{id}",
      ws.api("PUT", `/api/signatures/${s.body.id}`, { name: "B", content: "d" }),
    );
    await record("DELETE /api/signatures/{id}", ws.api("DELETE", `/api/signatures/${s.body.id}`));
    const hook = { url: "https://example.com/hook", events: ["post.published"] };
    const w = await record("POST /api/webhooks", ws.api("POST", "/api/webhooks", hook));
    await record(
      "PUT /api/webhooks/{id}",
      ws.api("PUT", `/api/webhooks/${w.body.id}`, { ...hook, events: ["post.failed"] }),
    );
    await record("POST /api/webhooks/{id}/rotate-secret", ws.api("POST", `/api/webhooks/${w.body.id}/rotate-secret`));
    await record("DELETE /api/webhooks/{id}", ws.api("DELETE", `/api/webhooks/${w.body.id}`));
    await record("POST /api/uploads", ws.api("POST", "/api/uploads"));
    await record("PUT /api/social-accounts/{id}/toggle", ws.api("PUT", `/api/social-accounts/${x.id}/toggle`));
    const k = await record("POST /api/api-keys", ws.api("POST", "/api/api-keys", { name: "k" }));
    await record("DELETE /api/api-keys/{id}", ws.api("DELETE", `/api/api-keys/${k.body.token.id}`));

    // Issue 28: at most one read round trip and one write batch per verb (a verb that needs no read: one).
    expect(costs).toEqual({
      // The workspace's first create reads its account and label; the next ones remember them: the write alone.
      "POST /api/posts": { status: 201, statements: 5, round_trips: 2 },
      "POST /api/posts (Idempotency-Key)": { status: 201, statements: 5, round_trips: 1 },
      // The key's record refuses the guarded write (rolled back); the key's record and rows are read, and replayed.
      "POST /api/posts (Idempotency-Key, replayed)": { status: 201, statements: 8, round_trips: 2 },
      "PUT /api/posts/{post} (content)": { status: 200, statements: 7, round_trips: 2 },
      "POST /api/posts/{post}/media": { status: 200, statements: 5, round_trips: 2 },
      "PATCH /api/media/{media}": { status: 200, statements: 1, round_trips: 1 },
      "PUT /api/posts/{post} (labels, signature, a target with a thread naming media)": {
        status: 200,
        statements: 11,
        round_trips: 2,
      },
      "PUT /api/posts/{post} (schedule)": { status: 200, statements: 8, round_trips: 2 },
      "PUT /api/posts/{post} (media replaced: the old one is released)": {
        status: 200,
        statements: 11,
        round_trips: 2,
      },
      "PUT /api/posts/{post} (publish)": { status: 200, statements: 7, round_trips: 2 },
      "DELETE /api/posts/{post}": { status: 204, statements: 3, round_trips: 2 },
      "POST /api/labels": { status: 201, statements: 1, round_trips: 1 },
      "PUT /api/labels/{id}": { status: 200, statements: 1, round_trips: 1 },
      "DELETE /api/labels/{id}": { status: 204, statements: 1, round_trips: 1 },
      "POST /api/signatures": { status: 201, statements: 1, round_trips: 1 },
      "PUT /api/signatures/{id}": { status: 200, statements: 1, round_trips: 1 },
      "DELETE /api/signatures/{id}": { status: 204, statements: 1, round_trips: 1 },
      "POST /api/webhooks": { status: 201, statements: 2, round_trips: 2 },
      "PUT /api/webhooks/{id}": { status: 200, statements: 2, round_trips: 2 },
      "POST /api/webhooks/{id}/rotate-secret": { status: 200, statements: 2, round_trips: 2 },
      "DELETE /api/webhooks/{id}": { status: 204, statements: 1, round_trips: 1 },
      "POST /api/uploads": { status: 201, statements: 1, round_trips: 1 },
      "PUT /api/social-accounts/{id}/toggle": { status: 200, statements: 2, round_trips: 2 },
      "POST /api/api-keys": { status: 201, statements: 1, round_trips: 1 },
      // The revoke batch also ends the invitations and disables the webhook endpoints the revoked keys made (issue
      // 35): two more statements, same batch.
      "DELETE /api/api-keys/{id}": { status: 204, statements: 6, round_trips: 2 },
    });
  });

  it("an idempotent create deletes the workspace's expired keys without reading every key it holds", async () => {
    const ws = await createTestWorkspace();
    await ws.api("GET", "/api/workspace");
    const x = await connectAccount(ws, "x");
    // 300 keys used in the last 24 hours (not expired) and 2 expired ones.
    const now = Date.now();
    const insert = env.DB.prepare(
      "INSERT INTO idempotency_records (workspace_id, key, request_hash, response_status, response_body, created_at) VALUES (?, ?, 'h', 201, '{}', ?)",
    );
    await env.DB.batch([
      ...Array.from({ length: 300 }, (_, i) => insert.bind(ws.workspaceId, `recent-${i}`, now - 1000)),
      ...[1, 2].map((i) => insert.bind(ws.workspaceId, `old-${i}`, now - 25 * 3_600_000)),
    ]);
    const res = await ws.api(
      "POST",
      "/api/posts",
      { platforms: [{ social_account_id: x.id, content_type: "x_post" }] },
      { "Idempotency-Key": "fresh" },
    );
    expect(res.status).toBe(201);
    const left = await env.DB.prepare("SELECT key FROM idempotency_records WHERE workspace_id = ? AND key LIKE 'old-%'")
      .bind(ws.workspaceId)
      .all();
    expect(left.results).toEqual([]);
    // The expiry index (migration 0019): a range of the expired records, not a scan of the 300 recent ones.
    expect(rowsOf(res).read).toBeLessThan(50);
  });

  it("PUT /api/posts/{post}: a post changed between the read and the write is not overwritten (409), nothing written", async () => {
    const ws = await createTestWorkspace();
    const x = await connectAccount(ws, "x");
    const post = await ws.api("POST", "/api/posts", {
      content: "first",
      platforms: [{ social_account_id: x.id, content_type: "x_post" }],
    });
    // Another writer changes the post (here: its account's name, which the post shows) between this request's read
    // batch and its write batch.
    let batches = 0;
    spyOnSessionBatch(async (stmts, batch) => {
      if (++batches === 2)
        await env.DB.prepare("UPDATE social_accounts SET display_name = 'Renamed' WHERE id = ?").bind(x.id).run();
      return batch(stmts);
    });
    let res: Awaited<ReturnType<typeof ws.api>>;
    try {
      res = await ws.api("PUT", `/api/posts/${post.body.id}`, { content: "second" });
    } finally {
      vi.restoreAllMocks();
    }
    expect(batches).toBe(2);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ message: "The post was changed by another request. Reload it and try again." });
    const now = (await ws.api("GET", `/api/posts/${post.body.id}`)).body;
    expect(now.content).toBe("first");
    expect(now.platforms[0].social_account.display_name).toBe("Renamed");
  });
});
