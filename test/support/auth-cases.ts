import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createTestWorkspace } from "./harness";

const UNAUTH = { message: "Unauthenticated." };

/**
 * The shared auth test every route's tests run: no key, wrong scheme, unknown key, revoked key, expired key → 401
 * with `WWW-Authenticate: Bearer`. `path` may contain ids of the caller's own resources.
 */
export function describeAuth(method: string, path: string | (() => Promise<string>), body?: unknown) {
  describe(`auth: ${method} ${typeof path === "string" ? path : "(resource)"}`, () => {
    const resolve = async () => (typeof path === "string" ? path : path());
    const expect401 = async (headers: Record<string, string>) => {
      const res = await call(method, await resolve(), { body, headers });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTH);
      expect(res.headers.get("WWW-Authenticate")).toBe("Bearer");
    };

    it("rejects a missing key", () => expect401({}));
    it("rejects a wrong scheme", async () => {
      const ws = await createTestWorkspace();
      await expect401({ Authorization: `Basic ${ws.key}` });
    });
    it("rejects an unknown key", () =>
      expect401({ Authorization: "Bearer esp_unknownunknownunknownunknownunknownunknown" }));
    it("rejects a revoked key", async () => {
      const ws = await createTestWorkspace();
      const del = await ws.api("DELETE", `/api/api-keys/${ws.keyId}`);
      expect(del.status).toBe(204);
      await expect401({ Authorization: `Bearer ${ws.key}` });
    });
    it("rejects an expired key", async () => {
      const ws = await createTestWorkspace();
      await env.DB.prepare("UPDATE api_keys SET expires_at = ? WHERE id = ?")
        .bind(Date.now() - 1000, ws.keyId)
        .run();
      await expect401({ Authorization: `Bearer ${ws.key}` });
    });
  });
}
