import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, createTestWorkspace } from "../support/harness";

afterEach(() => vi.restoreAllMocks());

/** Sessions whose reads of api_keys answer nothing, as a read replica that has not caught up with the primary. */
function lagApiKeysOnReplicas() {
  const withSession = env.DB.withSession.bind(env.DB);
  vi.spyOn(env.DB, "withSession").mockImplementation((constraint?: string) => {
    const session = withSession(constraint);
    return new Proxy(session, {
      get(target, prop) {
        const value = Reflect.get(target, prop);
        if (prop !== "prepare") return typeof value === "function" ? value.bind(target) : value;
        return (sql: string) => {
          const stmt = target.prepare(sql);
          if (!/from "api_keys"/i.test(sql)) return stmt;
          const empty = {
            raw: async () => [],
            all: async () => ({ results: [], success: true, meta: {} }),
            first: async () => null,
          };
          const lagging = new Proxy(stmt, {
            get: (t, p) => (p in empty ? empty[p as keyof typeof empty] : Reflect.get(t, p)),
          });
          return new Proxy(stmt, { get: (t, p) => (p === "bind" ? () => lagging : Reflect.get(t, p)) });
        };
      },
    });
  });
}

describe("API keys and read replicas", () => {
  it("a key minted moments ago authenticates a GET whose session started on a replica that has not seen it", async () => {
    const ws = await createTestWorkspace();
    const minted = await call("POST", "/api/api-keys", { key: ws.key, body: { name: "fresh" } });
    expect(minted.status).toBe(201);
    lagApiKeysOnReplicas();
    const me = await call("GET", "/api/workspace", { key: minted.body.plain_token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(ws.workspaceId);
  });

  it("an unknown key is still refused", async () => {
    lagApiKeysOnReplicas();
    const res = await call("GET", "/api/workspace", { key: "esp_unknown" });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: "Unauthenticated." });
  });
});
