import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createTestWorkspace, type TestWorkspace } from "../support/harness";
import { connectAccount, createLabel, insertMedia } from "./posts-fixtures";

/**
 * Issue 28: a create whose accounts, labels and media this isolate remembers skips its read round trip
 * (src/services/posts/reference-memory.ts) and writes in one guarded batch. These tests change the remembered rows
 * behind the isolate's back — straight in D1, as another isolate or the cron would — and show that no create is ever
 * built from a row that changed: the guarded write is refused as a whole, and the create runs again from the rows as
 * they are now (three round trips on that path only).
 */
function roundTrips(res: { headers: Headers }): number {
  const m = /d1rt;desc="(\d+) round trips"/.exec(res.headers.get("Server-Timing") ?? "");
  if (!m) throw new Error("no Server-Timing d1rt entry");
  return Number(m[1]);
}

async function postCount(ws: TestWorkspace): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM posts WHERE workspace_id = ?")
    .bind(ws.workspaceId)
    .first<{ n: number }>();
  return row!.n;
}

async function platformRowCount(ws: TestWorkspace): Promise<number> {
  const row = await env.DB.prepare(
    "SELECT count(*) AS n FROM post_platforms WHERE post_id IN (SELECT id FROM posts WHERE workspace_id = ?)",
  )
    .bind(ws.workspaceId)
    .first<{ n: number }>();
  return row!.n;
}

/** A workspace with an X account and a label, and one create that made this isolate remember both. */
async function remembered() {
  const ws = await createTestWorkspace();
  await ws.api("GET", "/api/workspace"); // warm the key: its lookup is not the create's
  const x = await connectAccount(ws, "x");
  const label = await createLabel(ws, "Launch");
  const body = { platforms: [{ social_account_id: x.id, content_type: "x_post" }], label_ids: [label.id] };
  const first = await ws.api("POST", "/api/posts", body);
  expect(first.status).toBe(201);
  expect(roundTrips(first)).toBe(2);
  const second = await ws.api("POST", "/api/posts", body);
  expect(second.status).toBe(201);
  expect(roundTrips(second)).toBe(1);
  return { ws, x, label, body };
}

describe("creates from remembered rows", () => {
  it("an account renamed elsewhere: the guarded write is refused and the post carries the new name", async () => {
    const { ws, x, body } = await remembered();
    await env.DB.prepare("UPDATE social_accounts SET display_name = 'Renamed', username = 'renamed' WHERE id = ?")
      .bind(x.id)
      .run();
    const before = await postCount(ws);
    const res = await ws.api("POST", "/api/posts", body);
    expect(res.status).toBe(201);
    expect(roundTrips(res)).toBe(3);
    expect(res.body.platforms).toEqual([
      expect.objectContaining({
        display_name: "Renamed",
        display_username: "renamed",
        social_account: expect.objectContaining({ id: x.id, display_name: "Renamed", username: "renamed" }),
      }),
    ]);
    expect((await ws.api("GET", `/api/posts/${res.body.id}`)).body).toEqual(res.body);
    expect(await postCount(ws)).toBe(before + 1);
    // The rows read on that path are remembered again.
    const next = await ws.api("POST", "/api/posts", body);
    expect(roundTrips(next)).toBe(1);
    expect(next.body.platforms[0].display_name).toBe("Renamed");
  });

  it("an account disconnected elsewhere: 422 from the row as it is now, nothing written", async () => {
    const { ws, x, body } = await remembered();
    await env.DB.prepare("UPDATE social_accounts SET status = 'disconnected' WHERE id = ?").bind(x.id).run();
    const [posts, rows] = [await postCount(ws), await platformRowCount(ws)];
    const res = await ws.api("POST", "/api/posts", body);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: "The selected platforms.0.social account id is disconnected.",
      errors: { "platforms.0.social_account_id": ["The selected platforms.0.social account id is disconnected."] },
    });
    expect(await postCount(ws)).toBe(posts);
    expect(await platformRowCount(ws)).toBe(rows);
  });

  it("a label deleted elsewhere: 422, nothing written", async () => {
    const { ws, label, body } = await remembered();
    await env.DB.prepare("DELETE FROM labels WHERE id = ?").bind(label.id).run();
    const posts = await postCount(ws);
    const res = await ws.api("POST", "/api/posts", body);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: "The selected label ids.0 is invalid.",
      errors: { "label_ids.0": ["The selected label ids.0 is invalid."] },
    });
    expect(await postCount(ws)).toBe(posts);
  });

  it("a label recoloured elsewhere, and an image's description changed: the answer shows them as they are now", async () => {
    const { ws, x, label } = await remembered();
    const image = await insertMedia(ws, "image");
    const body = {
      platforms: [{ social_account_id: x.id, content_type: "x_post" }],
      label_ids: [label.id],
      media: [{ id: image.id }],
    };
    expect(roundTrips(await ws.api("POST", "/api/posts", body))).toBe(2); // the image is new to this isolate
    expect(roundTrips(await ws.api("POST", "/api/posts", body))).toBe(1);
    await env.DB.batch([
      env.DB.prepare("UPDATE labels SET color = '#abcdef' WHERE id = ?").bind(label.id),
      env.DB.prepare("UPDATE media SET alt = 'A sunrise' WHERE id = ?").bind(image.id),
    ]);
    const res = await ws.api("POST", "/api/posts", body);
    expect(res.status).toBe(201);
    expect(roundTrips(res)).toBe(3);
    expect(res.body.labels).toEqual([expect.objectContaining({ id: label.id, color: "#abcdef" })]);
    expect(res.body.media).toEqual([{ ...image, alt: "A sunrise", url: res.body.media[0].url }]);
    expect((await ws.api("GET", `/api/posts/${res.body.id}`)).body).toEqual(res.body);
  });

  it("an account reconnected elsewhere after this isolate saw it disconnected: created, not refused", async () => {
    const ws = await createTestWorkspace();
    const x = await connectAccount(ws, "x");
    const body = { platforms: [{ social_account_id: x.id, content_type: "x_post" }] };
    expect((await ws.api("POST", "/api/posts", body)).status).toBe(201);
    await env.DB.prepare("UPDATE social_accounts SET status = 'disconnected' WHERE id = ?").bind(x.id).run();
    expect((await ws.api("POST", "/api/posts", body)).status).toBe(422); // remembered as disconnected now
    await env.DB.prepare("UPDATE social_accounts SET status = 'connected' WHERE id = ?").bind(x.id).run();
    // The remembered row fails a check: the 422 would come from a stale row, so the create reads first.
    const res = await ws.api("POST", "/api/posts", body);
    expect(res.status).toBe(201);
    expect(roundTrips(res)).toBe(2);
  });

  it("another workspace naming a remembered account gets 422 and cannot use it", async () => {
    const { x } = await remembered();
    const other = await createTestWorkspace();
    const res = await other.api("POST", "/api/posts", {
      platforms: [{ social_account_id: x.id, content_type: "x_post" }],
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      "platforms.0.social_account_id": ["The selected platforms.0.social account id is invalid."],
    });
    expect(await postCount(other)).toBe(0);
  });

  it("Idempotency-Key: the first request writes in one round trip; its retry replays it, one post in all", async () => {
    const { ws, body } = await remembered();
    const posts = await postCount(ws);
    const first = await ws.api("POST", "/api/posts", body, { "Idempotency-Key": "remembered-1" });
    expect(first.status).toBe(201);
    expect(roundTrips(first)).toBe(1);
    const retry = await ws.api("POST", "/api/posts", body, { "Idempotency-Key": "remembered-1" });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(retry.body).toEqual(first.body);
    const other = await ws.api(
      "POST",
      "/api/posts",
      { ...body, content: "other" },
      { "Idempotency-Key": "remembered-1" },
    );
    expect(other.status).toBe(422);
    expect(other.body.errors).toEqual({
      "Idempotency-Key": ["This Idempotency-Key was already used with a different request body."],
    });
    expect(await postCount(ws)).toBe(posts + 1);
  });

  it("concurrent creates while an account is renamed: every post carries a name the account had, none is lost", async () => {
    const { ws, x, body } = await remembered();
    const posts = await postCount(ws);
    const create = () => ws.api("POST", "/api/posts", body);
    const [before, , after] = await Promise.all([
      Promise.all(Array.from({ length: 8 }, create)),
      env.DB.prepare("UPDATE social_accounts SET display_name = 'Midway' WHERE id = ?").bind(x.id).run(),
      Promise.all(Array.from({ length: 8 }, create)),
    ]);
    const creates = [...before, ...after];
    expect(creates.map((r) => r.status)).toEqual(Array(16).fill(201));
    for (const r of creates) expect(["x account", "Midway"]).toContain(r.body.platforms[0].display_name);
    // What each answer says is what was stored.
    for (const r of creates) expect((await ws.api("GET", `/api/posts/${r.body.id}`)).body).toEqual(r.body);
    expect(await postCount(ws)).toBe(posts + 16);
  });
});
