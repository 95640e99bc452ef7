import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  SCHEDULER_CLAIM_CHUNK,
  SCHEDULER_MAX_CLAIMS_PER_TICK,
  SCHEDULER_MESSAGES_PER_TICK,
} from "../../src/publishing/scheduler";
import { seedMastodonAccount, seedXAccount } from "./platforms";
import { createTestWorkspace, readPost, readRow, recordingQueue, seedPost, tick } from "./support";

async function seedDuePosts(workspaceId: string, accountA: string, accountB: string, count: number) {
  const now = Date.now();
  const stmts: D1PreparedStatement[] = [];
  const expected: string[] = [];
  const postIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const postId = crypto.randomUUID();
    postIds.push(postId);
    stmts.push(
      env.DB.prepare(
        "INSERT INTO posts (id, workspace_id, content, status, scheduled_at, created_at, updated_at) VALUES (?, ?, ?, 'scheduled', ?, ?, ?)",
      ).bind(postId, workspaceId, `post ${i}`, now - 1000 - i, now, now),
    );
    const rows = [
      { account: accountA, platform: "mastodon", type: "mastodon_post", enabled: 1 },
      { account: accountB, platform: "x", type: "x_post", enabled: i % 3 === 0 ? 0 : 1 },
    ];
    rows.forEach((r, position) => {
      const id = crypto.randomUUID();
      if (r.enabled) expected.push(id);
      stmts.push(
        env.DB.prepare(
          `INSERT INTO post_platforms (id, post_id, social_account_id, platform, content_type, status, enabled, meta,
             display_name, display_username, position, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, 'pending', ?, '{}', 'n', 'u', ?, ?, ?)`,
        ).bind(id, postId, r.account, r.platform, r.type, r.enabled, position, now, now),
      );
    });
  }
  for (let i = 0; i < stmts.length; i += 500) await env.DB.batch(stmts.slice(i, i + 500));
  return { expected, postIds };
}

describe("scheduler", () => {
  it("overlapping ticks claim each due post exactly once and enqueue each enabled row once, in batches", async () => {
    const ws = await createTestWorkspace();
    const a = await seedMastodonAccount(ws);
    const b = await seedXAccount(ws);
    const { expected, postIds } = await seedDuePosts(ws.workspaceId, a, b, 700);
    const future = await seedPost(ws, {
      content: "later",
      status: "scheduled",
      scheduledAt: Date.now() + 3600_000,
      rows: [{ accountId: a, platform: "mastodon", contentType: "mastodon_post" }],
    });
    const draft = await seedPost(ws, {
      content: "draft",
      status: "draft",
      scheduledAt: Date.now() - 3600_000,
      rows: [{ accountId: a, platform: "mastodon", contentType: "mastodon_post" }],
    });

    const recorders = [recordingQueue(), recordingQueue(), recordingQueue()];
    await Promise.all(recorders.map((r) => tick(r)));

    const sent = recorders.flatMap((r) => r.sent);
    const ids = sent.map((m) => m.post_platform_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual([...expected].sort());
    // A post's rows all went out from the tick that claimed it.
    for (const r of recorders) {
      const mine = new Set(r.sent.map((m) => m.post_id));
      for (const other of recorders) {
        if (other === r) continue;
        expect(other.sent.some((m) => mine.has(m.post_id))).toBe(false);
      }
    }
    for (const r of recorders) for (const size of r.sendCalls) expect(size).toBeLessThanOrEqual(100);
    expect(sent.every((m) => m.workspace_id === ws.workspaceId)).toBe(true);

    const statuses = await env.DB.prepare(
      "SELECT status, COUNT(*) AS n FROM posts WHERE id IN (SELECT value FROM json_each(?)) GROUP BY status",
    )
      .bind(JSON.stringify(postIds))
      .all<{ status: string; n: number }>();
    expect(statuses.results).toEqual([{ status: "publishing", n: 700 }]);
    expect((await readPost(future.postId))!.status).toBe("scheduled");
    expect((await readPost(draft.postId))!.status).toBe("draft");

    // The next tick finds nothing left to claim.
    expect(await tick()).toEqual([]);
  });

  it("one tick claims at most 500 posts, oldest first, and leaves the rest to the next tick", async () => {
    expect(SCHEDULER_CLAIM_CHUNK * SCHEDULER_MAX_CLAIMS_PER_TICK).toBe(500);
    expect(SCHEDULER_MESSAGES_PER_TICK).toBe(5000);
    const ws = await createTestWorkspace();
    const a = await seedMastodonAccount(ws);
    const b = await seedXAccount(ws);
    // Post i is due since now - 1000 - i ms: the higher i, the older.
    const { postIds } = await seedDuePosts(ws.workspaceId, a, b, 620);
    const first = await tick();
    const firstPosts = [...new Set(first.map((m) => m.post_id))];
    expect(firstPosts.sort()).toEqual(postIds.slice(120).sort());
    const second = await tick();
    expect([...new Set(second.map((m) => m.post_id))].sort()).toEqual(postIds.slice(0, 120).sort());
    expect(await tick()).toEqual([]);
  });

  it("retries failed rows of a rescheduled post and settles a post with nothing left to publish", async () => {
    const ws = await createTestWorkspace();
    const a = await seedMastodonAccount(ws);
    const b = await seedXAccount(ws);
    const retry = await seedPost(ws, {
      content: "again",
      status: "scheduled",
      scheduledAt: Date.now() - 5000,
      rows: [
        { accountId: a, platform: "mastodon", contentType: "mastodon_post" },
        { accountId: b, platform: "x", contentType: "x_post" },
      ],
    });
    await env.DB.batch([
      env.DB.prepare("UPDATE post_platforms SET status = 'published', platform_post_id = '1' WHERE id = ?").bind(
        retry.rowIds[0],
      ),
      env.DB.prepare("UPDATE post_platforms SET status = 'failed', error_message = 'old' WHERE id = ?").bind(
        retry.rowIds[1],
      ),
    ]);
    const done = await seedPost(ws, {
      content: "done",
      status: "scheduled",
      scheduledAt: Date.now() - 5000,
      rows: [{ accountId: a, platform: "mastodon", contentType: "mastodon_post" }],
    });
    await env.DB.prepare("UPDATE post_platforms SET status = 'published', platform_post_id = '2' WHERE id = ?")
      .bind(done.rowIds[0])
      .run();

    const sent = await tick();
    expect(sent).toEqual([{ post_platform_id: retry.rowIds[1], post_id: retry.postId, workspace_id: ws.workspaceId }]);
    expect(await readRow(retry.rowIds[1]!)).toMatchObject({ status: "pending", error_message: null });
    expect((await readPost(retry.postId))!.status).toBe("publishing");
    expect((await readPost(done.postId))!.status).toBe("published");
  });
});
