import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { call } from "../../support/harness";
import { asPerson, signedIn, workspaceWithOwner } from "./support";

afterEach(() => vi.restoreAllMocks());

/** D1 sessions whose reads of `table` answer nothing, as a read replica that has not caught up with the primary. */
function lagOnReplicas(table: string) {
  const withSession = env.DB.withSession.bind(env.DB);
  vi.spyOn(env.DB, "withSession").mockImplementation((constraint?: string) => {
    const session = withSession(constraint);
    return new Proxy(session, {
      get(target, prop) {
        const value = Reflect.get(target, prop);
        if (prop !== "prepare") return typeof value === "function" ? value.bind(target) : value;
        return (sql: string) => {
          const stmt = target.prepare(sql);
          if (!new RegExp(`from "${table}"`, "i").test(sql)) return stmt;
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

describe("sessions and read replicas (issue 27)", () => {
  it("a session made moments ago authenticates a GET whose D1 session started on a replica that has not seen it", async () => {
    const ws = await workspaceWithOwner();
    const person = await signedIn(ws.email);
    lagOnReplicas("auth_sessions");
    const res = await person.api("GET", "/api/workspace");
    expect(res.status, res.text).toBe(200);
    expect(res.body.id).toBe(ws.workspaceId);
    expect((await person.api("GET", "/api/me")).status).toBe(200);
  });

  it("a membership made moments ago is found on the primary", async () => {
    const ws = await workspaceWithOwner();
    const person = await signedIn(ws.email);
    lagOnReplicas("workspace_members");
    const res = await person.api("GET", "/api/workspace");
    expect(res.status, res.text).toBe(200);
    const me = await person.api("GET", "/api/me");
    expect(me.body.memberships).toHaveLength(1);
  });

  it("a forged cookie is still refused", async () => {
    lagOnReplicas("auth_sessions");
    const res = await asPerson("forged.AAAA").api("GET", "/api/workspace");
    expect(res.status).toBe(401);
    expect((await call("GET", "/api/workspace")).status).toBe(401);
  });
});
