import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

/**
 * The mechanism `updatePost` relies on: in one D1 batch, a conditional UPDATE that changes nothing makes the next
 * statement (`json()` of a non-JSON string under `changes() = 0`) fail, which rolls back the whole batch.
 */
describe("claim-or-roll-back batch", () => {
  const CLAIM_HELD = "SELECT CASE WHEN changes() = 0 THEN json('claim lost') ELSE 1 END";

  async function setup() {
    const ws = crypto.randomUUID();
    const post = crypto.randomUUID();
    const now = Date.now();
    await env.DB.batch([
      env.DB.prepare("INSERT INTO workspaces (id, name, created_at, updated_at) VALUES (?, 'w', ?, ?)").bind(
        ws,
        now,
        now,
      ),
      env.DB.prepare(
        "INSERT INTO posts (id, workspace_id, content, status, created_at, updated_at) VALUES (?, ?, 'x', 'publishing', ?, ?)",
      ).bind(post, ws, now, now),
    ]);
    return { ws, post, now };
  }

  it("rolls back every write when the claim changed nothing", async () => {
    const { ws, post, now } = await setup();
    const label = crypto.randomUUID();
    await expect(
      env.DB.batch([
        env.DB.prepare("UPDATE posts SET content = 'edited' WHERE id = ? AND status = 'draft'").bind(post),
        env.DB.prepare(CLAIM_HELD),
        env.DB.prepare(
          "INSERT INTO labels (id, workspace_id, name, color, created_at, updated_at) VALUES (?, ?, 'l', '#000000', ?, ?)",
        ).bind(label, ws, now, now),
      ]),
    ).rejects.toThrow();
    expect(await env.DB.prepare("SELECT content FROM posts WHERE id = ?").bind(post).first("content")).toBe("x");
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM labels WHERE id = ?").bind(label).first("n")).toBe(0);
  });

  it("commits everything when the claim held", async () => {
    const { ws, post, now } = await setup();
    const label = crypto.randomUUID();
    await env.DB.batch([
      env.DB.prepare("UPDATE posts SET content = 'edited' WHERE id = ? AND status = 'publishing'").bind(post),
      env.DB.prepare(CLAIM_HELD),
      env.DB.prepare(
        "INSERT INTO labels (id, workspace_id, name, color, created_at, updated_at) VALUES (?, ?, 'l', '#000000', ?, ?)",
      ).bind(label, ws, now, now),
    ]);
    expect(await env.DB.prepare("SELECT content FROM posts WHERE id = ?").bind(post).first("content")).toBe("edited");
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM labels WHERE id = ?").bind(label).first("n")).toBe(1);
  });
});
