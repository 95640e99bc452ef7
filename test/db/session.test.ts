import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BOOKMARK_HEADER, BOOKMARK_PATTERN } from "../../src/db/session";
import worker from "../../src/index";
import { connectAccount } from "../routes/posts-fixtures";
import { BASE, call, createTestWorkspace, type TestWorkspace } from "../support/harness";

/**
 * D1 read replication through the Sessions API (src/db/session.ts, docs/consistency.md). The local runtime runs one
 * database instance behind the Sessions API: bookmarks are real and advance with every query, but every read sees
 * every write, so these tests show the mechanism (which constraint each request's session starts from, the bookmark
 * going out and coming back) and read-your-writes through it; what a replica may lag is argued in the docs.
 */

interface Recorded {
  sessions: string[];
  bare: number;
}

/** The worker's fetch with a DB binding that records every session opened and fails any query made outside one. */
function spiedEnv(): { env: Cloudflare.Env; recorded: Recorded } {
  const recorded: Recorded = { sessions: [], bare: 0 };
  const outside = (name: string) => () => {
    recorded.bare++;
    throw new Error(`D1 ${name}() called outside a session`);
  };
  const db = {
    withSession: (constraint: string) => {
      recorded.sessions.push(constraint);
      return env.DB.withSession(constraint);
    },
    prepare: outside("prepare"),
    batch: outside("batch"),
    exec: outside("exec"),
  };
  const spied = new Proxy(env, { get: (t, p) => (p === "DB" ? db : Reflect.get(t, p)) });
  return { env: spied, recorded };
}

async function fetchSpied(path: string, init: RequestInit = {}) {
  const { env: spied, recorded } = spiedEnv();
  const ctx = createExecutionContext();
  const res = await worker.fetch!(new Request(`${BASE}${path}`, init) as never, spied, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  const statements = Number(/d1;desc="(\d+) statements"/.exec(res.headers.get("Server-Timing") ?? "")?.[1] ?? 0);
  return { res, text, recorded, statements };
}

const auth = (ws: TestWorkspace, extra: Record<string, string> = {}) => ({
  Authorization: `Bearer ${ws.key}`,
  ...extra,
});

describe("D1 sessions: read your own writes", () => {
  it("a write answers with a bookmark; a read sent with it sees the write and answers with a bookmark no older", async () => {
    const ws = await createTestWorkspace();
    const created = await ws.api("POST", "/api/labels", { name: "Launch", color: "#1D4ED8" });
    expect(created.status).toBe(201);
    const written = created.headers.get(BOOKMARK_HEADER);
    expect(written).toMatch(BOOKMARK_PATTERN);

    const read = await ws.api("GET", "/api/labels", undefined, { [BOOKMARK_HEADER]: written! });
    expect(read.status).toBe(200);
    expect(read.body).toEqual([created.body]);
    const after = read.headers.get(BOOKMARK_HEADER);
    expect(after).toMatch(BOOKMARK_PATTERN);
    // Bookmarks sort oldest to newest (https://developers.cloudflare.com/d1/reference/glossary/).
    expect(after! >= written!).toBe(true);
  });

  it("the read with the bookmark starts its session at that bookmark; without one it starts anywhere", async () => {
    const ws = await createTestWorkspace();
    const created = await ws.api("POST", "/api/labels", { name: "Mine", color: "#000000" });
    const bookmark = created.headers.get(BOOKMARK_HEADER)!;

    const withIt = await fetchSpied("/api/labels", { headers: auth(ws, { [BOOKMARK_HEADER]: bookmark }) });
    expect({ status: withIt.res.status, recorded: withIt.recorded }).toEqual({
      status: 200,
      recorded: { sessions: [bookmark], bare: 0 },
    });
    expect(JSON.parse(withIt.text)).toEqual([created.body]);

    // Without the bookmark: locally there is one instance, so the write is seen too; in production the session
    // may start on a replica that has not applied it yet (docs/consistency.md).
    const without = await fetchSpied("/api/labels", { headers: auth(ws) });
    expect({ status: without.res.status, recorded: without.recorded }).toEqual({
      status: 200,
      recorded: { sessions: ["first-unconstrained"], bare: 0 },
    });
    expect(JSON.parse(without.text)).toEqual([created.body]);
    expect(without.res.headers.get(BOOKMARK_HEADER)).toMatch(BOOKMARK_PATTERN);
  });

  it("writes, the MCP endpoint and the OAuth callback start at the primary, whatever bookmark they carry", async () => {
    const ws = await createTestWorkspace();
    const old = (await ws.api("GET", "/api/labels")).headers.get(BOOKMARK_HEADER)!;
    const post = await fetchSpied("/api/labels", {
      method: "POST",
      headers: auth(ws, { "Content-Type": "application/json", [BOOKMARK_HEADER]: old }),
      body: JSON.stringify({ name: "Primary", color: "#111111" }),
    });
    expect({ status: post.res.status, recorded: post.recorded }).toEqual({
      status: 201,
      recorded: { sessions: ["first-primary"], bare: 0 },
    });
    expect(post.res.headers.get(BOOKMARK_HEADER)! >= old).toBe(true);

    const mcp = await fetchSpied("/mcp", {
      method: "POST",
      headers: auth(ws, { "Content-Type": "application/json", Accept: "application/json, text/event-stream" }),
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(mcp.recorded).toEqual({ sessions: ["first-primary"], bare: 0 });

    const callback = await fetchSpied("/api/oauth/x/callback?state=nope&code=c");
    expect(callback.res.status).toBeLessThan(500);
    expect(callback.recorded).toEqual({ sessions: ["first-primary"], bare: 0 });
  });
});

describe("D1 sessions: every read route", () => {
  it("each GET operation in the OpenAPI document runs its queries in one session (replica, or the primary for the OAuth callback) and answers with the bookmark", async () => {
    const ws = await createTestWorkspace();
    const x = await connectAccount(ws, "x");
    const post = await ws.api("POST", "/api/posts", {
      content: "hello",
      platforms: [{ social_account_id: x.id, content_type: "x_post" }],
    });
    expect(post.status).toBe(201);
    const doc = (await call("GET", "/api/openapi.json")).body as { paths: Record<string, Record<string, unknown>> };
    const gets = Object.keys(doc.paths).filter((p) => doc.paths[p]!.get);
    expect(gets.length).toBeGreaterThan(15);
    const queried: string[] = [];
    for (const path of gets) {
      const url = path
        .replace("{platform}", "x")
        .replace(/\{(post|id)\}/g, post.body.id)
        .replace(/\{[^}]+\}/g, "0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a");
      const { res, recorded, statements } = await fetchSpied(url, { headers: auth(ws) });
      const expected = path.startsWith("/api/oauth/") ? "first-primary" : "first-unconstrained";
      expect({ path, status: res.status < 500, recorded }).toEqual({
        path,
        status: true,
        recorded: { sessions: [expected], bare: 0 },
      });
      if (statements > 0) {
        queried.push(path);
        expect(res.headers.get(BOOKMARK_HEADER), path).toMatch(BOOKMARK_PATTERN);
      } else expect(res.headers.get(BOOKMARK_HEADER), path).toBeNull();
    }
    expect(queried).toEqual(
      expect.arrayContaining(["/api/posts", "/api/posts/{post}", "/api/labels", "/api/workspace"]),
    );
  });

  it("the bookmark is documented once for every operation: a request header parameter and a response header", async () => {
    const doc = (await call("GET", "/api/openapi.json")).body;
    expect(doc.components.parameters.D1Bookmark).toMatchObject({
      name: BOOKMARK_HEADER,
      in: "header",
      required: false,
    });
    expect(doc.components.headers.D1Bookmark).toMatchObject({ schema: { type: "string" } });
    let operations = 0;
    for (const item of Object.values(doc.paths) as Record<string, any>[]) {
      for (const op of Object.values(item)) {
        operations++;
        expect(op.parameters).toContainEqual({ $ref: "#/components/parameters/D1Bookmark" });
        for (const response of Object.values(op.responses) as any[])
          expect(response.headers[BOOKMARK_HEADER]).toEqual({ $ref: "#/components/headers/D1Bookmark" });
      }
    }
    expect(operations).toBeGreaterThan(30);
  });
});

describe("D1 sessions: a malformed bookmark", () => {
  it.each([
    ["not hex", "garbage"],
    ["too short", "00000000-0000000f-00000000"],
    ["upper-case", "00000000-0000000F-00000000-00000000000000000000000000000000"],
    ["too long", `00000000-0000000f-00000000-${"0".repeat(200)}`],
  ])("%s: 400 with a message on reads and writes, nothing run", async (_name, bad) => {
    const ws = await createTestWorkspace();
    const read = await ws.api("GET", "/api/labels", undefined, { [BOOKMARK_HEADER]: bad });
    const message = "The x-d1-bookmark header is not a D1 bookmark (send back the value a response carried).";
    expect({ status: read.status, body: read.body }).toEqual({ status: 400, body: { message } });
    expect(read.headers.get("X-Request-Id")).toBeTruthy();
    expect(read.headers.get(BOOKMARK_HEADER)).toBeNull();
    const write = await ws.api("POST", "/api/labels", { name: "Never", color: "#000000" }, { [BOOKMARK_HEADER]: bad });
    expect({ status: write.status, body: write.body }).toEqual({ status: 400, body: { message } });
    expect((await ws.api("GET", "/api/labels")).body).toEqual([]);
  });

  it("an empty header is no bookmark", async () => {
    const ws = await createTestWorkspace();
    const res = await ws.api("GET", "/api/labels", undefined, { [BOOKMARK_HEADER]: "" });
    expect(res.status).toBe(200);
  });
});
