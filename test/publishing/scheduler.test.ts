// fresh storage: runs the Worker's cron, which works on every workspace's rows at once.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CLAIM_MESSAGES_PER_SEND, SCHEDULER_CLAIM_CHUNK } from "../../src/publishing/scheduler";
import { seedMastodonAccount, seedXAccount } from "./platforms";
import { createTestWorkspace, readPost, readRow, recordingClaimQueue, recordingQueue, seedPost, tick } from "./support";

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
  it("overlapping ticks claim each due post exactly once and enqueue each enabled row once, in batches, through their fanned-out claims", async () => {
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

  it("one tick claims every due post whatever the count: the oldest chunk itself, the rest fanned out in chunks of 100", async () => {
    expect(SCHEDULER_CLAIM_CHUNK).toBe(100);
    expect(CLAIM_MESSAGES_PER_SEND).toBe(50);
    const ws = await createTestWorkspace();
    const a = await seedMastodonAccount(ws);
    const b = await seedXAccount(ws);
    // Post i is due since now - 1000 - i ms: the higher i, the older.
    const { expected, postIds } = await seedDuePosts(ws.workspaceId, a, b, 1250);
    const claims = recordingClaimQueue();
    const recorder = recordingQueue();
    const sent = await tick(recorder, claims);
    expect(sent.map((m) => m.post_platform_id).sort()).toEqual([...expected].sort());
    // 13 chunks: the tick claimed the 100 oldest; 12 claim messages of ≤ 100 ids, oldest first, cover the rest.
    expect(claims.sent.map((c) => c.claim_post_ids.length)).toEqual([...Array(11).fill(100), 50]);
    const oldestFirst = [...postIds].reverse();
    expect(claims.sent.flatMap((c) => c.claim_post_ids)).toEqual(oldestFirst.slice(100));
    for (const size of recorder.sendCalls) expect(size).toBeLessThanOrEqual(100);
    expect(await tick()).toEqual([]);
  });

  it("a claim message delivered twice, or after a second tick claimed its posts, claims nothing twice", async () => {
    const ws = await createTestWorkspace();
    const a = await seedMastodonAccount(ws);
    const b = await seedXAccount(ws);
    const { expected } = await seedDuePosts(ws.workspaceId, a, b, 150);
    // Tick 1 fans out its second chunk, but its claim message is held back (not yet delivered).
    const held = recordingClaimQueue();
    const ctxTick = { ...env, CLAIM_QUEUE: held.queue };
    const first = recordingQueue();
    const { default: worker } = await import("../../src/index");
    const { createExecutionContext, createScheduledController, waitOnExecutionContext } = await import(
      "cloudflare:test"
    );
    const ctx = createExecutionContext();
    await worker.scheduled!(
      createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }),
      { ...ctxTick, PUBLISH_QUEUE: first.queue },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(held.sent).toHaveLength(1);
    // Tick 2 overlaps: it finds the 50 posts tick 1 fanned out still scheduled and claims them through its own fan-out.
    const second = await tick();
    // Tick 1's claim message arrives late, twice.
    const late = recordingQueue();
    for (let i = 0; i < 2; i++) {
      const c = createExecutionContext();
      await worker.queue!(
        {
          queue: "publish-claims",
          messages: [
            { id: "late", timestamp: new Date(), attempts: i + 1, body: held.sent[0], ack: () => {}, retry: () => {} },
          ],
          metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } },
          ackAll: () => {},
          retryAll: () => {},
        } as MessageBatch<unknown>,
        { ...env, PUBLISH_QUEUE: late.queue },
        c,
      );
      await waitOnExecutionContext(c);
    }
    expect(late.sent).toEqual([]);
    const all = [...first.sent, ...second].map((m) => m.post_platform_id);
    expect(new Set(all).size).toBe(all.length);
    expect(all.sort()).toEqual([...expected].sort());
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

  it("skips the due posts of a paused queue (they stay scheduled) and claims them once it is no longer paused", async () => {
    const ws = await createTestWorkspace();
    const a = await seedMastodonAccount(ws);
    const queueId = crypto.randomUUID();
    const now = Date.now();
    await env.DB.prepare(
      `INSERT INTO queues (id, workspace_id, name, time_zone, slots, social_account_ids, paused, is_default,
         created_at, updated_at) VALUES (?, ?, 'Paused', 'UTC', '[]', '[]', 1, 1, ?, ?)`,
    )
      .bind(queueId, ws.workspaceId, now, now)
      .run();
    const seed = (content: string) =>
      seedPost(ws, {
        content,
        status: "scheduled",
        scheduledAt: now - 5000,
        rows: [{ accountId: a, platform: "mastodon", contentType: "mastodon_post" }],
      });
    const [inQueue, byHand] = [await seed("queued"), await seed("by hand")];
    await env.DB.prepare("UPDATE posts SET queue_id = ? WHERE id = ?").bind(queueId, inQueue.postId).run();

    expect(await tick()).toEqual([
      { post_platform_id: byHand.rowIds[0], post_id: byHand.postId, workspace_id: ws.workspaceId },
    ]);
    expect((await readPost(inQueue.postId))!.status).toBe("scheduled");

    await env.DB.prepare("UPDATE queues SET paused = 0 WHERE id = ?").bind(queueId).run();
    expect(await tick()).toEqual([
      { post_platform_id: inQueue.rowIds[0], post_id: inQueue.postId, workspace_id: ws.workspaceId },
    ]);
    expect((await readPost(inQueue.postId))!.status).toBe("publishing");
  });

  it("issue 37: the cron continues a settled repeating post and fills an evergreen queue's empty slot", async () => {
    const ws = await createTestWorkspace();
    const a = await seedMastodonAccount(ws);
    const now = Date.now();
    const rows = [{ accountId: a, platform: "mastodon", contentType: "mastodon_post" }];
    const weekly = await seedPost(ws, { content: "weekly", status: "published", scheduledAt: now - 60_000, rows });
    await env.DB.prepare("UPDATE posts SET repeat = ?, published_at = ? WHERE id = ?")
      .bind(JSON.stringify({ every: 1, unit: "week", time_zone: "UTC" }), now, weekly.postId)
      .run();
    const evergreen = await seedPost(ws, {
      content: "evergreen",
      status: "published",
      scheduledAt: now - 40 * 86_400_000,
      rows,
    });
    const labelId = crypto.randomUUID();
    const hour = (new Date(now).getUTCHours() + 2) % 24;
    const slots = JSON.stringify(
      [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, time: `${String(hour).padStart(2, "0")}:00` })),
    );
    await env.DB.batch([
      env.DB.prepare("UPDATE posts SET published_at = scheduled_at WHERE id = ?").bind(evergreen.postId),
      env.DB.prepare(
        "INSERT INTO labels (id, workspace_id, name, color, created_at, updated_at) VALUES (?, ?, 'Evergreen', '#112233', ?, ?)",
      ).bind(labelId, ws.workspaceId, now, now),
      env.DB.prepare("INSERT INTO post_labels (post_id, label_id) VALUES (?, ?)").bind(evergreen.postId, labelId),
      env.DB.prepare(
        `INSERT INTO queues (id, workspace_id, name, time_zone, slots, social_account_ids, paused, is_default,
           evergreen_label_id, evergreen_min_days, created_at, updated_at) VALUES (?, ?, 'Evergreen', 'UTC', ?, '[]', 0, 1, ?, 30, ?, ?)`,
      ).bind(crypto.randomUUID(), ws.workspaceId, slots, labelId, now, now),
    ]);

    await tick();
    const copies = await env.DB.prepare(
      "SELECT content, status, scheduled_at - ? AS after_first, repeat_of FROM posts WHERE repeat_of IN (?, ?) ORDER BY content DESC",
    )
      .bind(now - 60_000, weekly.postId, evergreen.postId)
      .all();
    expect(copies.results.map((r) => [r.content, r.status, r.repeat_of])).toEqual([
      ["weekly", "scheduled", weekly.postId],
      ["evergreen", "scheduled", evergreen.postId],
    ]);
    expect(copies.results[0]!.after_first).toBe(7 * 86_400_000);
  });
});
