import { describe, expect, it } from "vitest";
import { jsonDepth, META_MAX_BYTES, META_MAX_DEPTH } from "../../src/lib/json-bounds";
import { createTestWorkspace, type TestWorkspace } from "../support/harness";
import { connectAccount } from "./posts-fixtures";

/** A value nested `depth` levels deep, built without recursion. */
function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

async function setup() {
  const ws = await createTestWorkspace();
  const acc = await connectAccount(ws, "x");
  const body = { platforms: [{ social_account_id: acc.id, content_type: "x_post" }], content: "Once only" };
  return { ws, body };
}
const post = (ws: TestWorkspace, body: unknown, key: string) =>
  ws.api("POST", "/api/posts", body, { "Idempotency-Key": key });

describe("Idempotency-Key hashes the validated input", () => {
  it("a deeply nested field the API ignores answers 201 (was 500), and does not change the request's identity", async () => {
    const { ws, body } = await setup();
    const first = await post(ws, { ...body, ignored: nested(20_000) }, "deep-1");
    expect(first.status).toBe(201);
    const again = await post(ws, { ...body, other_ignored: "x" }, "deep-1");
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
  });
});

describe("meta is bounded in depth and size", () => {
  it(`jsonDepth measures without recursion and stops past its limit`, () => {
    expect(jsonDepth(1)).toBe(0);
    expect(jsonDepth({ a: [] })).toBe(2);
    expect(jsonDepth(nested(100_000), META_MAX_DEPTH)).toBe(META_MAX_DEPTH + 1);
  });

  it("PUT /posts platforms[].meta: 422 past the depth, never a 500 (its size is bounded after the merge)", async () => {
    const { ws, body } = await setup();
    const created = await ws.api("POST", "/api/posts", body);
    const rowId = created.body.platforms[0].id;
    const put = (meta: unknown) => ws.api("PUT", `/api/posts/${created.body.id}`, { platforms: [{ id: rowId, meta }] });

    const deep = await put({ a: nested(50_000) });
    const depthMessage = `The platforms.0.meta field must not nest deeper than ${META_MAX_DEPTH} levels.`;
    expect({ status: deep.status, body: deep.body }).toEqual({
      status: 422,
      body: { message: depthMessage, errors: { "platforms.0.meta": [depthMessage] } },
    });
    // At the bounds: accepted.
    const atDepth = await put({ a: nested(META_MAX_DEPTH - 1) });
    expect(atDepth.status).toBe(200);
  });

  it("POST /social-accounts meta: 422 past the depth or the size", async () => {
    const ws = await createTestWorkspace();
    const res = await ws.api("POST", "/api/social-accounts", {
      platform: "x",
      display_name: "X",
      username: "x",
      platform_user_id: "1",
      credentials: { access_token: "t" },
      meta: { extra: nested(30_000) },
    });
    const message = `The meta field must not nest deeper than ${META_MAX_DEPTH} levels.`;
    expect({ status: res.status, body: res.body }).toEqual({
      status: 422,
      body: { message, errors: { meta: [message] } },
    });
    const big = await ws.api("POST", "/api/social-accounts", {
      platform: "x",
      display_name: "X",
      username: "x",
      platform_user_id: "2",
      credentials: { access_token: "t" },
      meta: { extra: "x".repeat(META_MAX_BYTES) },
    });
    const sizeMessage = `The meta field must not be larger than ${META_MAX_BYTES} bytes as JSON.`;
    expect({ status: big.status, body: big.body }).toEqual({
      status: 422,
      body: { message: sizeMessage, errors: { meta: [sizeMessage] } },
    });
  });
});
