import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config";
import { createDb } from "../../src/db/client";
import { toolAreas } from "../../src/mcp/server";
import { createApiKey } from "../../src/services/api-keys/api-keys";
import { authenticateApiKey } from "../../src/services/api-keys/authenticate-api-key";
import { API_KEYS_MAX_LIVE_PER_WORKSPACE, API_KEYS_RESERVED_FOR_FULL } from "../../src/services/api-keys/scopes";
import { workspaceContext } from "../media/fixtures";
import { call, createTestWorkspace, newApiKeyBody, type TestWorkspace } from "../support/harness";
import { connectMcp } from "../support/mcp-client";

const SOME_ID = "0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a";

async function mint(by: string, body: Record<string, unknown>) {
  const res = await call("POST", "/api/api-keys", { key: by, body });
  if (res.status !== 201) throw new Error(`mint failed: ${res.status} ${res.text}`);
  return { key: res.body.plain_token as string, id: res.body.token.id as string, record: res.body.token };
}

const as = (key: string) => (method: string, path: string, body?: unknown) => call(method, path, { key, body });
const forbidden = (have: string, need: string) => ({
  status: 403,
  body: { message: `This API key's scope (${have}) does not allow this operation; it needs the ${need} scope.` },
});
const statusAndBody = (r: { status: number; body: unknown }) => ({ status: r.status, body: r.body });

describe("API key scopes", () => {
  it("shows each key's scopes; keys made without scopes keep full access (existing clients see the same API)", async () => {
    const ws = await createTestWorkspace();
    const created = await ws.api("POST", "/api/api-keys", { name: "CI", expires_at: "2099-01-02T03:04:05Z" });
    expect(created.status).toBe(201);
    expect(created.body).toEqual(newApiKeyBody({ name: "CI", expires_at: "2099-01-02T03:04:05+00:00" }));
    const reader = await ws.api("POST", "/api/api-keys", { name: "dash", scopes: ["read"] });
    expect(reader.body.token.scopes).toEqual(["read"]);
    const list = await ws.api("GET", "/api/api-keys");
    expect(list.body.map((k: { name: string; scopes: string[] }) => [k.name, k.scopes])).toEqual([
      ["dash", ["read"]],
      ["CI", ["full"]],
      ["Default key", ["full"]],
    ]);
    // A row from before the migration (no scope written) reads as full.
    const row = await env.DB.prepare("SELECT scope FROM api_keys WHERE id = ?").bind(ws.keyId).first();
    expect(row).toEqual({ scope: "full" });
  });

  it("validates scopes", async () => {
    const ws = await createTestWorkspace();
    const bad = await ws.api("POST", "/api/api-keys", { name: "x", scopes: ["admin"] });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(["scopes.0"]);
    const empty = await ws.api("POST", "/api/api-keys", { name: "x", scopes: [] });
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.errors)).toEqual(["scopes"]);
  });

  it("a read key reads everything and changes nothing", async () => {
    const ws = await createTestWorkspace();
    const read = as((await mint(ws.key, { name: "r", scopes: ["read"] })).key);
    for (const path of ["/api/posts", "/api/labels", "/api/signatures", "/api/api-keys", "/api/social-accounts"]) {
      expect((await read("GET", path)).status, path).toBe(200);
    }
    for (const [method, path, body] of [
      ["POST", "/api/posts", { platforms: [] }],
      ["PUT", `/api/posts/${SOME_ID}`, {}],
      ["DELETE", `/api/posts/${SOME_ID}`],
      ["POST", `/api/posts/${SOME_ID}/media/from-url`, { urls: ["https://example.com/a.png"] }],
      ["POST", "/api/uploads"],
      ["POST", "/api/labels", { name: "l", color: "#000000" }],
      ["POST", "/api/api-keys", { name: "child", scopes: ["read"] }],
      ["DELETE", `/api/api-keys/${SOME_ID}`],
      ["PUT", `/api/social-accounts/${SOME_ID}/toggle`],
    ] as const) {
      expect(statusAndBody(await read(method, path, body)), `${method} ${path}`).toEqual(
        forbidden("read", path.startsWith("/api/labels") || path.includes("social") ? "full" : "publish"),
      );
    }
    const upload = await call("POST", `/api/posts/${SOME_ID}/media`, {
      key: (await mint(ws.key, { name: "r2", scopes: ["read"] })).key,
      rawBody: "x",
      headers: { "Content-Type": "multipart/form-data; boundary=x" },
    });
    expect(statusAndBody(upload)).toEqual(forbidden("read", "publish"));
  });

  it("a publish key works posts, media and uploads, but not labels, signatures, accounts or wider keys", async () => {
    const ws = await createTestWorkspace();
    const publish = as((await mint(ws.key, { name: "agent", scopes: ["publish"] })).key);
    const post = await publish("POST", "/api/posts", { platforms: [] });
    expect(post.status).toBe(422); // past the scope check: the body is judged
    expect((await publish("POST", "/api/uploads")).status).toBe(201);
    expect((await publish("DELETE", `/api/posts/${SOME_ID}`)).status).toBe(404);
    for (const [method, path, body] of [
      ["POST", "/api/labels", { name: "l", color: "#000000" }],
      ["POST", "/api/signatures", { name: "s", content: "c" }],
      ["POST", "/api/social-accounts", { platform: "x" }],
      ["DELETE", `/api/social-accounts/${SOME_ID}`],
    ] as const) {
      expect(statusAndBody(await publish(method, path, body)), `${method} ${path}`).toEqual(
        forbidden("publish", "full"),
      );
    }
    const wider = await publish("POST", "/api/api-keys", { name: "escalate", scopes: ["full"] });
    expect(statusAndBody(wider)).toEqual({
      status: 422,
      body: {
        message: "The scopes may not exceed this API key's own scope (publish).",
        errors: { scopes: ["The scopes may not exceed this API key's own scope (publish)."] },
      },
    });
    const same = await publish("POST", "/api/api-keys", { name: "sub-agent" });
    expect(same.body.token.scopes).toEqual(["publish"]);
    const narrower = await publish("POST", "/api/api-keys", { name: "viewer", scopes: ["read", "publish"] });
    expect(narrower.body.token.scopes).toEqual(["publish"]);
  });

  it("a key cannot mint a key that outlives it; without expires_at the child inherits its expiry", async () => {
    const ws = await createTestWorkspace();
    const parent = await mint(ws.key, { name: "temp", expires_at: "2099-01-01T00:00:00Z" });
    const later = await call("POST", "/api/api-keys", {
      key: parent.key,
      body: { name: "forever", expires_at: "2099-06-01" },
    });
    expect(statusAndBody(later)).toEqual({
      status: 422,
      body: {
        message: "The expires at field must not be later than this API key's own expiry (2099-01-01T00:00:00+00:00).",
        errors: {
          expires_at: [
            "The expires at field must not be later than this API key's own expiry (2099-01-01T00:00:00+00:00).",
          ],
        },
      },
    });
    const inherited = await call("POST", "/api/api-keys", { key: parent.key, body: { name: "child" } });
    expect(inherited.body.token.expires_at).toBe("2099-01-01T00:00:00+00:00");
    const sooner = await call("POST", "/api/api-keys", {
      key: parent.key,
      body: { name: "c2", expires_at: "2098-01-01" },
    });
    expect(sooner.body.token.expires_at).toBe("2098-01-01T00:00:00+00:00");
  });

  it("revoking a key revokes every key it minted, transitively; a delegated key cannot revoke its elders", async () => {
    const ws = await createTestWorkspace();
    const a = await mint(ws.key, { name: "a" });
    const b = await mint(a.key, { name: "b", scopes: ["publish"] });
    const c = await mint(b.key, { name: "c", scopes: ["read"] });
    const sibling = await mint(ws.key, { name: "sibling" });

    // A minted full key is not the owner: it may not revoke the owner's key or a sibling.
    const revokeOwner = await call("DELETE", `/api/api-keys/${ws.keyId}`, { key: a.key });
    expect(statusAndBody(revokeOwner)).toEqual({
      status: 403,
      body: { message: "This API key may only revoke itself and the keys it minted." },
    });
    expect((await call("DELETE", `/api/api-keys/${sibling.id}`, { key: b.key })).status).toBe(403);
    expect((await call("DELETE", `/api/api-keys/${a.id}`, { key: b.key })).status).toBe(403);

    const del = await ws.api("DELETE", `/api/api-keys/${a.id}`);
    expect(del.status).toBe(204);
    for (const k of [a, b, c]) {
      expect(statusAndBody(await call("GET", "/api/workspace", { key: k.key }))).toEqual({
        status: 401,
        body: { message: "Unauthenticated." },
      });
    }
    expect((await call("GET", "/api/workspace", { key: sibling.key })).status).toBe(200);
    const list = await ws.api("GET", "/api/api-keys");
    expect(list.body.map((k: { name: string }) => k.name)).toEqual(["sibling", "Default key"]);
  });

  it("a delegated key may revoke itself and its own descendants", async () => {
    const ws = await createTestWorkspace();
    const a = await mint(ws.key, { name: "a", scopes: ["publish"] });
    const b = await mint(a.key, { name: "b", scopes: ["publish"] });
    const c = await mint(b.key, { name: "c", scopes: ["read"] });
    expect((await call("DELETE", `/api/api-keys/${c.id}`, { key: a.key })).status).toBe(204);
    expect((await call("GET", "/api/workspace", { key: c.key })).status).toBe(401);
    expect((await call("DELETE", `/api/api-keys/${b.id}`, { key: b.key })).status).toBe(204);
    expect((await call("GET", "/api/workspace", { key: b.key })).status).toBe(401);
    expect((await call("GET", "/api/workspace", { key: a.key })).status).toBe(200);
  });

  it(`caps a workspace at ${API_KEYS_MAX_LIVE_PER_WORKSPACE} live keys, also under concurrent minting`, async () => {
    const ws = await createTestWorkspace();
    const ctx = workspaceContext(ws);
    // 80 concurrent mints for the 49 free places (the bootstrap key is live).
    const results = await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        createApiKey(ctx, { name: `k${i}`, expiresAt: null }).then(
          () => "ok",
          (e) => e.message,
        ),
      ),
    );
    expect(results.filter((r) => r === "ok")).toHaveLength(API_KEYS_MAX_LIVE_PER_WORKSPACE - 1);
    expect(new Set(results.filter((r) => r !== "ok"))).toEqual(
      new Set([`This workspace already has ${API_KEYS_MAX_LIVE_PER_WORKSPACE} live API keys; revoke one first.`]),
    );
    const over = await ws.api("POST", "/api/api-keys", { name: "one more" });
    expect(statusAndBody(over)).toEqual({
      status: 422,
      body: {
        message: `This workspace already has ${API_KEYS_MAX_LIVE_PER_WORKSPACE} live API keys; revoke one first.`,
        errors: { name: [`A workspace may hold at most ${API_KEYS_MAX_LIVE_PER_WORKSPACE} live API keys.`] },
      },
    });
    // Revoking one frees its place.
    const list = await ws.api("GET", "/api/api-keys");
    expect(list.body).toHaveLength(API_KEYS_MAX_LIVE_PER_WORKSPACE);
    expect((await ws.api("DELETE", `/api/api-keys/${list.body[0].id}`)).status).toBe(204);
    expect((await ws.api("POST", "/api/api-keys", { name: "one more" })).status).toBe(201);
  });

  it("a publish key cannot fill the cap with its children: the last places are kept for full keys, so the owner still mints", async () => {
    const ws = await createTestWorkspace();
    const publish = await mint(ws.key, { name: "agent", scopes: ["publish"] });
    const delegatedLimit = API_KEYS_MAX_LIVE_PER_WORKSPACE - API_KEYS_RESERVED_FOR_FULL;
    // Bootstrap + agent are live; the agent (and a child of it) mint up to exactly the delegated limit.
    const child = await mint(publish.key, { name: "child" });
    const ctx = { ...workspaceContext(ws), apiKeyId: publish.id, apiKeyScope: "publish" as const };
    for (let i = 3; i < delegatedLimit - 1; i++) await createApiKey(ctx, { name: `c${i}`, expiresAt: null });
    expect((await call("POST", "/api/api-keys", { key: child.key, body: { name: "last delegated" } })).status).toBe(
      201,
    );
    const live = await ws.api("GET", "/api/api-keys");
    expect(live.body).toHaveLength(delegatedLimit);
    const refused = {
      status: 422,
      body: {
        message: `This workspace already has ${delegatedLimit} live API keys; the last ${API_KEYS_RESERVED_FOR_FULL} places are kept for keys minted by a full-scope key.`,
        errors: {
          name: [
            `A publish-scope API key may mint only while the workspace holds fewer than ${delegatedLimit} live API keys.`,
          ],
        },
      },
    };
    expect(statusAndBody(await call("POST", "/api/api-keys", { key: publish.key, body: { name: "over" } }))).toEqual(
      refused,
    );
    expect(statusAndBody(await call("POST", "/api/api-keys", { key: child.key, body: { name: "over" } }))).toEqual(
      refused,
    );
    // MCP answers the same refusal as a tool error.
    const mcp = await connectMcp(publish.key);
    const tool = await mcp.callTool({ name: "create-api-key-tool", arguments: { name: "over" } });
    expect(tool.isError).toBe(true);
    expect(JSON.stringify(tool.content)).toContain(refused.body.message);
    await mcp.close();
    // The owner mints the reserved places, up to the workspace cap exactly; the next is the cap's refusal.
    for (let i = 0; i < API_KEYS_RESERVED_FOR_FULL; i++)
      expect((await ws.api("POST", "/api/api-keys", { name: `owner ${i}` })).status).toBe(201);
    expect((await ws.api("GET", "/api/api-keys")).body).toHaveLength(API_KEYS_MAX_LIVE_PER_WORKSPACE);
    expect(statusAndBody(await ws.api("POST", "/api/api-keys", { name: "one more" }))).toEqual({
      status: 422,
      body: {
        message: `This workspace already has ${API_KEYS_MAX_LIVE_PER_WORKSPACE} live API keys; revoke one first.`,
        errors: { name: [`A workspace may hold at most ${API_KEYS_MAX_LIVE_PER_WORKSPACE} live API keys.`] },
      },
    });
    // Revoking the agent revokes its whole tree and frees every delegated place.
    expect((await ws.api("DELETE", `/api/api-keys/${publish.id}`)).status).toBe(204);
    expect((await ws.api("GET", "/api/api-keys")).body).toHaveLength(1 + API_KEYS_RESERVED_FOR_FULL);
  });

  it("a workspace-wide window binds all of a workspace's keys together: minting keys does not multiply the budget", async () => {
    const ws = await createTestWorkspace();
    const keys = [ws.key, (await mint(ws.key, { name: "b" })).key, (await mint(ws.key, { name: "c" })).key];
    const service = {
      ...workspaceContext(ws),
      config: { ...loadConfig(env), API_RATE_LIMIT_PER_MINUTE: 100, API_WORKSPACE_RATE_LIMIT_PER_MINUTE: 6 },
      db: createDb(env.DB),
    };
    // Pin the clock inside a window no request has touched yet, so the count is exact.
    const now = (Math.floor(Date.now() / 60_000) + 2) * 60_000 + 1000;
    service.now = () => now;
    const allowed: boolean[] = [];
    for (let i = 0; i < 9; i++) {
      const auth = await authenticateApiKey(service, keys[i % 3] as string, 100);
      allowed.push(auth?.window.allowed ?? false);
    }
    // Three keys used three times each: each key is far below its own 100, the workspace stops at 6.
    expect(allowed).toEqual([true, true, true, true, true, true, false, false, false]);
    const refused = await authenticateApiKey(service, keys[0] as string, 100);
    expect(refused?.window).toMatchObject({ allowed: false, limit: 6, remaining: 0 });
  });
});

describe("scopes on the tool server", () => {
  async function keys(): Promise<{ ws: TestWorkspace; read: string; publish: string }> {
    const ws = await createTestWorkspace();
    return {
      ws,
      read: (await mint(ws.key, { name: "r", scopes: ["read"] })).key,
      publish: (await mint(ws.key, { name: "p", scopes: ["publish"] })).key,
    };
  }

  it("every tool is listed; a tool beyond the key's scope answers a tool error and changes nothing", async () => {
    const { ws, read, publish } = await keys();
    const reader = await connectMcp(read);
    const listed = await reader.listTools();
    // Every tool of every area (decisions §10, webhooks, connect), whatever the key's scope.
    expect(listed.tools.map((t) => t.name).sort()).toEqual(
      toolAreas
        .flat()
        .map((t) => t.name)
        .sort(),
    );
    const labels = await reader.callTool({ name: "list-labels-tool", arguments: {} });
    expect(labels.isError).toBeFalsy();
    const denied = await reader.callTool({ name: "create-label-tool", arguments: { name: "x", color: "#000000" } });
    expect(denied).toEqual({
      isError: true,
      content: [
        { type: "text", text: "This API key's scope (read) does not allow this operation; it needs the full scope." },
      ],
      structuredContent: {
        message: "This API key's scope (read) does not allow this operation; it needs the full scope.",
      },
    });
    const upload = await reader.callTool({ name: "request-media-upload-tool", arguments: {} });
    expect(upload.structuredContent).toEqual({
      message: "This API key's scope (read) does not allow this operation; it needs the publish scope.",
    });
    const publisher = await connectMcp(publish);
    const issued = await publisher.callTool({ name: "request-media-upload-tool", arguments: {} });
    expect(issued.isError).toBeFalsy();
    const label = await publisher.callTool({ name: "create-label-tool", arguments: { name: "x", color: "#000000" } });
    expect(label.isError).toBe(true);
    const key = await publisher.callTool({ name: "create-api-key-tool", arguments: { name: "w", scopes: ["full"] } });
    expect(key.structuredContent).toEqual({
      message: "The scopes may not exceed this API key's own scope (publish).",
      errors: { scopes: ["The scopes may not exceed this API key's own scope (publish)."] },
    });
    expect((await ws.api("GET", "/api/labels")).body).toEqual([]);
  });
});

describe("MCP batches count every message against the throttle", () => {
  const init = (id: number) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "list-labels-tool", arguments: {} },
  });
  const post = (key: string, body: unknown) =>
    call("POST", "/mcp", {
      key,
      body,
      headers: { Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-03-26" },
    });

  it("a batch of 100 tool calls is 100 requests: past the key's 60 it answers 429 and runs nothing", async () => {
    const ws = await createTestWorkspace();
    const minute = Math.floor(Date.now() / 60_000);
    const small = await post(
      ws.key,
      Array.from({ length: 10 }, (_, i) => init(i + 1)),
    );
    expect(small.status).toBe(200);
    expect(small.body).toHaveLength(10);
    const counted = Math.floor(Date.now() / 60_000) === minute;
    // The batch's own answer shows what is left after its 10 messages.
    if (counted) expect(small.headers.get("X-RateLimit-Remaining")).toBe(String(60 - 10));
    // The batch of 10 counted 10 (not 1), plus this request: 11.
    const after = await ws.api("GET", "/api/labels");
    if (Math.floor(Date.now() / 60_000) !== minute) return; // crossed a window boundary: counts restarted
    expect(after.headers.get("X-RateLimit-Remaining")).toBe(String(60 - 11));

    const createLabel = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "create-label-tool", arguments: { name: `l${id}`, color: "#000000" } },
    });
    const big = await post(
      ws.key,
      Array.from({ length: 100 }, (_, i) => createLabel(i + 1)),
    );
    expect(big.status).toBe(429);
    expect(big.body).toEqual({ message: expect.stringMatching(/^Too many requests\. Retry after \d+ seconds\.$/) });
    expect(big.headers.get("Retry-After")).toMatch(/^\d+$/);
    const labels = await env.DB.prepare("SELECT count(*) AS n FROM labels WHERE workspace_id = ?")
      .bind(ws.workspaceId)
      .first();
    expect(labels).toEqual({ n: 0 });
  });
});
