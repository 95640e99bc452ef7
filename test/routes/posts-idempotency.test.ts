import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createTestWorkspace, type TestWorkspace } from "../support/harness";
import { connectAccount } from "./posts-fixtures";

async function setup() {
  const ws = await createTestWorkspace();
  const acc = await connectAccount(ws, "x");
  const body = { platforms: [{ social_account_id: acc.id, content_type: "x_post" }], content: "Once only" };
  return { ws, acc, body };
}

const post = (ws: TestWorkspace, body: unknown, key?: string) =>
  ws.api("POST", "/api/posts", body, key === undefined ? {} : { "Idempotency-Key": key });
const postCount = async (ws: TestWorkspace) =>
  (
    await env.DB.prepare("SELECT COUNT(*) AS n FROM posts WHERE workspace_id = ?")
      .bind(ws.workspaceId)
      .first<{ n: number }>()
  )?.n;

describe("POST /api/posts with Idempotency-Key", () => {
  it("replays the first response for the same key and body (key order does not matter)", async () => {
    const { ws, body } = await setup();
    const first = await post(ws, body, "key-1");
    expect(first.status).toBe(201);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    const again = await post(ws, { content: body.content, platforms: body.platforms }, "key-1");
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await postCount(ws)).toBe(1);
  });

  it("answers 422 for the same key with another body", async () => {
    const { ws, body } = await setup();
    expect((await post(ws, body, "key-2")).status).toBe(201);
    const res = await post(ws, { ...body, content: "Something else" }, "key-2");
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: "This Idempotency-Key was already used with a different request body.",
      errors: { "Idempotency-Key": ["This Idempotency-Key was already used with a different request body."] },
    });
    expect(await postCount(ws)).toBe(1);
  });

  it("never creates two posts under concurrent retries", async () => {
    const { ws, body } = await setup();
    const results = await Promise.all(Array.from({ length: 5 }, () => post(ws, body, "key-3")));
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of created) expect(r.body).toEqual(created[0]!.body);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(409);
      expect(r.body).toEqual({
        message: "A request with this Idempotency-Key is still being processed. Retry shortly.",
      });
    }
    expect(await postCount(ws)).toBe(1);
  });

  it("answers 409 while the first request is in flight", async () => {
    const { ws, body } = await setup();
    expect((await post(ws, body, "key-4")).status).toBe(201);
    // Make the stored record look like a first request that has not finished yet.
    await env.DB.prepare("UPDATE idempotency_records SET response_status = NULL, response_body = NULL WHERE key = ?")
      .bind("key-4")
      .run();
    const res = await post(ws, body, "key-4");
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      message: "A request with this Idempotency-Key is still being processed. Retry shortly.",
    });
    expect(await postCount(ws)).toBe(1);
  });

  it("runs again after 24 hours, and takes over an abandoned in-flight claim", async () => {
    const { ws, body } = await setup();
    expect((await post(ws, body, "key-5")).status).toBe(201);
    await env.DB.prepare("UPDATE idempotency_records SET created_at = created_at - ? WHERE key = ?")
      .bind(24 * 3_600_000 + 1000, "key-5")
      .run();
    const fresh = await post(ws, body, "key-5");
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await postCount(ws)).toBe(2);

    await env.DB.prepare(
      "INSERT INTO idempotency_records (workspace_id, key, request_hash, created_at) VALUES (?, ?, ?, ?)",
    )
      .bind(ws.workspaceId, "key-6", "x", Date.now() - 120_000)
      .run();
    expect((await post(ws, body, "key-6")).status).toBe(201);
  });

  it("releases the key when the request fails, so the corrected request can use it", async () => {
    const { ws, body } = await setup();
    const bad = await post(ws, { ...body, scheduled_at: "2000-01-01 00:00:00" }, "key-7");
    expect(bad.status).toBe(422);
    const good = await post(ws, body, "key-7");
    expect(good.status).toBe(201);
    expect((await post(ws, body, "key-7")).body).toEqual(good.body);
  });

  it("keys are per workspace; without a key every request creates a post", async () => {
    const a = await setup();
    const b = await setup();
    expect((await post(a.ws, a.body, "shared")).status).toBe(201);
    expect((await post(b.ws, b.body, "shared")).status).toBe(201);
    expect((await post(a.ws, a.body)).status).toBe(201);
    expect(await postCount(a.ws)).toBe(2);
  });

  it("rejects an over-long key", async () => {
    const { ws, body } = await setup();
    const res = await post(ws, body, "k".repeat(256));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: "The Idempotency-Key header must not be greater than 255 characters.",
      errors: { "Idempotency-Key": ["The Idempotency-Key header must not be greater than 255 characters."] },
    });
  });
});
