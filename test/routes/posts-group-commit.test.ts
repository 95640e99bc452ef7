import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BOOKMARK_HEADER } from "../../src/db/session";
import { writeGroups } from "../../src/db/write-groups";
import { spyOnSessionBatch } from "../support/d1-spy";
import { createTestWorkspace, waitFor } from "../support/harness";
import { connectAccount, createLabel } from "./posts-fixtures";

/**
 * Group commit (src/db/write-groups.ts, docs/consistency.md): creates that arrive while another create's write is in
 * flight in this isolate are written together, one D1 call for several posts. Each answer is still its own: equal to
 * its later GET, with a bookmark that reads it back.
 */

/**
 * Counts the D1 calls (batches) that insert posts, on every session the requests open. The first such call is held
 * until `holdFor` other writes wait behind it, so that the test does not depend on how the requests interleave.
 */
function countPostWrites(holdFor = 0, beforeRelease: () => Promise<unknown> = async () => {}) {
  const calls: number[] = [];
  childInserts.length = 0;
  postInserts.length = 0;
  spyOnSessionBatch(async (statements, batch) => {
    const inserts = (table: string) =>
      statements.filter((s) =>
        (s as unknown as { statement: string }).statement.startsWith(`insert into "${table}"`),
      ) as unknown as { params: unknown[] }[];
    const count = (table: string) => inserts(table).length;
    // Posts written by the call: the rows of each posts INSERT (one JSON array of rows when merged).
    const posts = inserts("posts").reduce(
      (n, s) => n + (s.params.length === 1 ? (JSON.parse(s.params[0] as string) as unknown[]).length : 1),
      0,
    );
    if (posts === 0) return batch(statements);
    calls.push(posts);
    postInserts.push(count("posts"));
    childInserts.push(count("post_platforms") + count("post_labels"));
    if (calls.length === 1 && holdFor > 0) {
      await waitFor(() => writeGroups.waiting >= holdFor);
      await beforeRelease();
    }
    return batch(statements);
  });
  return calls;
}

/** Per call counted: its INSERT statements of platform rows and label links. */
const childInserts: number[] = [];
/** Per call counted: its INSERT statements of posts. */
const postInserts: number[] = [];

afterEach(() => vi.restoreAllMocks());

describe("creates written together (group commit)", () => {
  it("24 concurrent creates: fewer D1 calls than posts, every answer equals its GET and its bookmark reads it back", async () => {
    const ws = await createTestWorkspace();
    const x = await connectAccount(ws, "x");
    const label = await createLabel(ws, "Launch");
    const body = (n: number) => ({
      content: `post ${n}`,
      platforms: [{ social_account_id: x.id, content_type: "x_post" }],
      label_ids: [label.id],
    });
    // Remembered rows: every create below is its write batch alone.
    expect((await ws.api("POST", "/api/posts", body(0))).status).toBe(201);

    const calls = countPostWrites(23);
    const creates = await Promise.all(Array.from({ length: 24 }, (_, n) => ws.api("POST", "/api/posts", body(n + 1))));
    vi.restoreAllMocks();

    expect(creates.map((r) => r.status)).toEqual(Array(24).fill(201));
    expect(creates.map((r) => r.body.content)).toEqual(Array.from({ length: 24 }, (_, n) => `post ${n + 1}`));
    expect(new Set(creates.map((r) => r.body.id)).size).toBe(24);
    // Every post written exactly once, in fewer calls than posts.
    // The first alone (nothing was in flight), the 23 that waited behind it 16 and 7 (at most 16 per call).
    expect(calls).toEqual([1, 16, 7]);
    // Each call inserts all its posts in one statement (each row carries its own guard), all their platform rows in
    // one and all their label links in another (src/db/merged-inserts.ts): 3 INSERTs per call, not 3 per post.
    expect(postInserts).toEqual([1, 1, 1]);
    expect(childInserts).toEqual([2, 2, 2]);
    for (const r of creates) {
      const bookmark = r.headers.get(BOOKMARK_HEADER);
      expect(bookmark).toMatch(/^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/);
      const read = await ws.api("GET", `/api/posts/${r.body.id}`, undefined, { [BOOKMARK_HEADER]: bookmark! });
      expect(read.status).toBe(200);
      expect(read.body).toEqual(r.body);
    }
    const stored = await env.DB.prepare("SELECT count(*) AS n FROM posts WHERE workspace_id = ?")
      .bind(ws.workspaceId)
      .first<{ n: number }>();
    expect(stored!.n).toBe(25);
  });

  it("one create in a group that a constraint refuses does not fail the others: each is written alone, the bad one answers as it would alone", async () => {
    const ws = await createTestWorkspace();
    const x = await connectAccount(ws, "x");
    const label = await createLabel(ws, "Launch");
    const body = { platforms: [{ social_account_id: x.id, content_type: "x_post" }], label_ids: [label.id] };
    expect((await ws.api("POST", "/api/posts", body)).status).toBe(201);

    // Twelve creates, six of them with the same Idempotency-Key and body: one of those may write, the rest replay
    // it or are told it is in flight (409) — never a second post, and the other six are written whatever happens.
    const calls = countPostWrites(11);
    const creates = await Promise.all(
      Array.from({ length: 12 }, (_, n) =>
        ws.api("POST", "/api/posts", body, n % 2 === 0 ? { "Idempotency-Key": "same-key" } : {}),
      ),
    );
    vi.restoreAllMocks();
    const keyed = creates.filter((_, n) => n % 2 === 0);
    const plain = creates.filter((_, n) => n % 2 === 1);
    expect(plain.map((r) => r.status)).toEqual(Array(6).fill(201));
    const keyedIds = new Set(keyed.filter((r) => r.status === 201).map((r) => r.body.id));
    expect(keyedIds.size).toBe(1);
    for (const r of keyed) expect([201, 409]).toContain(r.status);
    // The first create alone; the 11 behind it tried together, refused by the key's UNIQUE constraint (two keyed
    // creates claim the same key), then each alone.
    expect(calls.slice(0, 2)).toEqual([1, 11]);
    const stored = await env.DB.prepare("SELECT count(*) AS n FROM posts WHERE workspace_id = ?")
      .bind(ws.workspaceId)
      .first<{ n: number }>();
    expect(stored!.n).toBe(1 + 6 + 1);
  });

  it("an account renamed while creates wait: their shared INSERT is refused by the rows' guards, each create runs alone and carries the new name", async () => {
    const ws = await createTestWorkspace();
    const x = await connectAccount(ws, "x");
    const body = { platforms: [{ social_account_id: x.id, content_type: "x_post" }] };
    expect((await ws.api("POST", "/api/posts", body)).status).toBe(201);

    const calls = countPostWrites(7, () =>
      env.DB.prepare("UPDATE social_accounts SET display_name = 'Renamed' WHERE id = ?").bind(x.id).run(),
    );
    const creates = await Promise.all(Array.from({ length: 8 }, () => ws.api("POST", "/api/posts", body)));
    vi.restoreAllMocks();
    expect(creates.map((r) => r.status)).toEqual(Array(8).fill(201));
    // The held first create's guard ran after the rename too: refused, it was written from the account as it is now;
    // the 7 behind it were sent together (a call of 7 or, with the first one's second try, 8), refused by their
    // guards, then written alone the same way.
    expect(creates.map((r) => r.body.platforms[0].display_name)).toEqual(Array(8).fill("Renamed"));
    expect(calls[0]).toBe(1);
    expect(Math.max(...calls.slice(1))).toBeGreaterThanOrEqual(7);
    for (const r of creates) expect((await ws.api("GET", `/api/posts/${r.body.id}`)).body).toEqual(r.body);
    const stored = await env.DB.prepare("SELECT count(*) AS n FROM posts WHERE workspace_id = ?")
      .bind(ws.workspaceId)
      .first<{ n: number }>();
    expect(stored!.n).toBe(9);
  });
});
