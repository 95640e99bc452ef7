import { describe, expect, it } from "vitest";
import { GIF_1X1 } from "../media/fixtures";
import { call, createTestWorkspace, type TestWorkspace } from "../support/harness";
import { connectAccount, createLabel } from "./posts-fixtures";

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

    const created = await ws.api("POST", "/api/posts", {
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
    });
    expect(created.status).toBe(201);
    expect(costOf(created)).toEqual({ statements: 7, round_trips: 2 });
    expect(created.body.labels.map((l: { name: string }) => l.name)).toEqual(["Z", "a", "é", "ｚ", "😀"]);
    expect(created.body.platforms[0].thread[0].media).toEqual([image]);
    expect((await ws.api("GET", `/api/posts/${created.body.id}`)).body).toEqual(created.body);

    const bare = await ws.api("POST", "/api/posts", {
      platforms: [{ social_account_id: x.id, content_type: "x_post" }],
    });
    expect(costOf(bare)).toEqual({ statements: 5, round_trips: 2 });
    expect((await ws.api("GET", `/api/posts/${bare.body.id}`)).body).toEqual(bare.body);
  });

  it("every write verb", async () => {
    const ws = await createTestWorkspace();
    await ws.api("GET", "/api/workspace");
    const x = await connectAccount(ws, "x");
    const label = await createLabel(ws, "L");
    const costs: Record<string, { status: number; statements: number; round_trips: number }> = {};
    const record = async (name: string, request: Promise<{ status: number; headers: Headers; body: any }>) => {
      const res = await request;
      costs[name] = { status: res.status, ...costOf(res) };
      return res;
    };
    const post = await record(
      "POST /api/posts",
      ws.api("POST", "/api/posts", {
        platforms: [{ social_account_id: x.id, content_type: "x_post" }],
        label_ids: [label.id],
      }),
    );
    await record("PUT /api/posts/{post}", ws.api("PUT", `/api/posts/${post.body.id}`, { content: "changed" }));
    await record("POST /api/posts/{post}/media", gif(ws, post.body.id));
    await record("DELETE /api/posts/{post}", ws.api("DELETE", `/api/posts/${post.body.id}`));
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
    const k = await record("POST /api/api-keys", ws.api("POST", "/api/api-keys", { name: "k" }));
    await record("DELETE /api/api-keys/{id}", ws.api("DELETE", `/api/api-keys/${k.body.token.id}`));

    // Round trips today; the goal is at most 2 (one read, one write batch) for each. Those above 2 are listed in
    // docs/decisions.md (issue 28) as not done yet.
    expect(costs).toEqual({
      "POST /api/posts": { status: 201, statements: 6, round_trips: 2 },
      "PUT /api/posts/{post}": { status: 200, statements: 9, round_trips: 3 },
      "POST /api/posts/{post}/media": { status: 200, statements: 5, round_trips: 2 },
      "DELETE /api/posts/{post}": { status: 204, statements: 5, round_trips: 2 },
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
      "POST /api/api-keys": { status: 201, statements: 1, round_trips: 1 },
      "DELETE /api/api-keys/{id}": { status: 204, statements: 4, round_trips: 2 },
    });
  });
});
