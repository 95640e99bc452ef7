// Issue 35 (review 4, Low): an answer to a request with credentials is never kept by a cache
// (src/middleware/private-answers.ts): `Cache-Control: no-store` and `Vary: Authorization, Cookie`, errors included.
import { describe, expect, it } from "vitest";
import { call, createTestWorkspace } from "../support/harness";
import { signedIn, workspaceWithOwner } from "./people/support";

const caching = (res: { status: number; headers: Headers }) => ({
  status: res.status,
  cacheControl: res.headers.get("Cache-Control"),
  vary: res.headers.get("Vary"),
});
const PRIVATE = { cacheControl: "no-store", vary: "Authorization, Cookie" };

describe("answers to authenticated requests are not cached (issue 35)", () => {
  it("a key's reads, writes and refusals, a person's reads, and the MCP endpoint: no-store, Vary on both credentials", async () => {
    const ws = await createTestWorkspace();
    expect(caching(await call("GET", "/api/workspace", { key: ws.key }))).toEqual({ status: 200, ...PRIVATE });
    expect(caching(await call("POST", "/api/labels", { key: ws.key, body: { name: "" } }))).toEqual({
      status: 422,
      ...PRIVATE,
    });
    expect(caching(await call("GET", "/api/workspace", { key: "esp_wrong" }))).toEqual({ status: 401, ...PRIVATE });
    expect(caching(await call("GET", `/api/posts/${crypto.randomUUID()}`, { key: ws.key }))).toEqual({
      status: 404,
      ...PRIVATE,
    });
    const mcp = await call("POST", "/mcp", {
      key: ws.key,
      headers: { Accept: "application/json, text/event-stream" },
      body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    });
    expect(caching(mcp)).toMatchObject({ status: 200, vary: expect.stringContaining("Authorization, Cookie") });
    expect(mcp.headers.get("Cache-Control")).toMatch(/no-store|no-cache/);

    const owner = await workspaceWithOwner();
    const person = await signedIn(owner.email);
    expect(caching(await person.api("GET", "/api/me"))).toEqual({ status: 200, ...PRIVATE });
  });

  it("an answer without credentials is left to its route", async () => {
    const health = await call("GET", "/api/health");
    expect({ status: health.status, vary: health.headers.get("Vary") }).toEqual({ status: 200, vary: null });
  });
});
