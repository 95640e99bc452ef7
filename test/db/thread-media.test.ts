import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createTestWorkspace } from "../support/harness";

/**
 * Migration 0021: `post_thread_media` lists the media each thread item names, kept by triggers on
 * `post_platforms.thread` for every writer — here plain SQL, as a migration, the D1 console or a future code path
 * would write. (test/routes/posts-threads.test.ts shows the release of media through the API on top of it.)
 */
async function named(rowIds: string[]): Promise<string[]> {
  const { results } = await env.DB.prepare(
    "SELECT post_platform_id || ':' || media_id AS pair FROM post_thread_media WHERE post_platform_id IN (SELECT value FROM json_each(?)) ORDER BY 1",
  )
    .bind(JSON.stringify(rowIds))
    .all<{ pair: string }>();
  return results.map((r) => r.pair);
}

describe("post_thread_media follows post_platforms.thread", () => {
  it("on insert, update of the thread, delete of the row, and delete of the post (cascade)", async () => {
    const ws = await createTestWorkspace();
    const now = Date.now();
    const account = crypto.randomUUID();
    await env.DB.prepare(
      "INSERT INTO social_accounts (id, workspace_id, platform, display_name, username, created_at, updated_at) VALUES (?, ?, 'x', 'X', 'x', ?, ?)",
    )
      .bind(account, ws.workspaceId, now, now)
      .run();
    const post = crypto.randomUUID();
    await env.DB.prepare(
      "INSERT INTO posts (id, workspace_id, content, status, created_at, updated_at) VALUES (?, ?, '', 'draft', ?, ?)",
    )
      .bind(post, ws.workspaceId, now, now)
      .run();
    const row = (id: string, thread: unknown) =>
      env.DB.prepare(
        "INSERT INTO post_platforms (id, post_id, social_account_id, platform, content_type, status, enabled, meta, display_name, display_username, display_avatar, position, created_at, updated_at, thread) VALUES (?, ?, ?, 'x', 'x_post', 'pending', 1, '{}', 'X', 'x', '', 0, ?, ?, ?)",
      ).bind(id, post, account, now, now, thread === null ? null : JSON.stringify(thread));
    await env.DB.batch([
      row("r1", [
        { content: "a", media: ["m1", "m2"] },
        { content: "b", media: ["m2", "m3"] },
      ]),
      row("r2", null),
      row("r3", [{ content: "c", media: [] }]),
    ]);
    expect(await named(["r1", "r2", "r3"])).toEqual(["r1:m1", "r1:m2", "r1:m3"]);

    await env.DB.batch([
      env.DB.prepare("UPDATE post_platforms SET thread = ? WHERE id = 'r1'").bind(
        JSON.stringify([{ content: "a", media: ["m3"] }]),
      ),
      env.DB.prepare("UPDATE post_platforms SET thread = ? WHERE id = 'r2'").bind(
        JSON.stringify([{ content: "d", media: ["m4"] }]),
      ),
      // Other columns do not touch it.
      env.DB.prepare("UPDATE post_platforms SET status = 'failed' WHERE id = 'r1'"),
    ]);
    expect(await named(["r1", "r2", "r3"])).toEqual(["r1:m3", "r2:m4"]);

    await env.DB.prepare("UPDATE post_platforms SET thread = NULL WHERE id = 'r1'").run();
    await env.DB.prepare("DELETE FROM post_platforms WHERE id = 'r3'").run();
    expect(await named(["r1", "r2", "r3"])).toEqual(["r2:m4"]);

    await env.DB.prepare("DELETE FROM posts WHERE id = ?").bind(post).run();
    expect(await named(["r1", "r2", "r3"])).toEqual([]);
  });
});
