import { describe, expect, it, vi } from "vitest";
import { describeAuth } from "../support/auth-cases";
import { spyOnPrepare } from "../support/d1-spy";
import { call, createTestWorkspace, ISO_OFFSET, newApiKeyBody, waitFor } from "../support/harness";

describe("API keys", () => {
  describeAuth("GET", "/api/api-keys");
  describeAuth("POST", "/api/api-keys", { name: "x" });
  describeAuth("DELETE", "/api/api-keys/0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a");

  it("creates a key, returns the plain token once, and the key works on its own", async () => {
    const ws = await createTestWorkspace();
    const res = await ws.api("POST", "/api/api-keys", { name: "CI", expires_at: "2099-01-02T03:04:05Z" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual(newApiKeyBody({ name: "CI", expires_at: "2099-01-02T03:04:05+00:00" }));
    const me = await call("GET", "/api/workspace", { key: res.body.plain_token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(ws.workspaceId);

    const list = await ws.api("GET", "/api/api-keys");
    expect(list.status).toBe(200);
    expect(list.body.map((k: { name: string }) => k.name)).toEqual(["CI", "Default key"]);
    expect(JSON.stringify(list.body)).not.toContain(res.body.plain_token);
    expect(Object.keys(list.body[0]).sort()).toEqual([
      "created_at",
      "expires_at",
      "id",
      "last_used_at",
      "name",
      "scopes",
    ]);
  });

  it("reads a bare date or datetime as UTC", async () => {
    const ws = await createTestWorkspace();
    const a = await ws.api("POST", "/api/api-keys", { name: "a", expires_at: "2099-05-06" });
    expect(a.body.token.expires_at).toBe("2099-05-06T00:00:00+00:00");
    const b = await ws.api("POST", "/api/api-keys", { name: "b", expires_at: "2099-05-06 07:08:09" });
    expect(b.body.token.expires_at).toBe("2099-05-06T07:08:09+00:00");
    const c = await ws.api("POST", "/api/api-keys", { name: "c", expires_at: "2099-05-06T07:08:09+02:00" });
    expect(c.body.token.expires_at).toBe("2099-05-06T05:08:09+00:00");
  });

  it("concurrent first requests of a key share one key lookup", async () => {
    const ws = await createTestWorkspace();
    const fresh = await ws.api("POST", "/api/api-keys", { name: "burst" });
    const lookups: string[] = [];
    spyOnPrepare((q, prepare) => {
      if (/^select .* from "api_keys" where .*"token_hash"/i.test(q)) lookups.push(q);
      return prepare(q);
    });
    try {
      const burst = await Promise.all(
        Array.from({ length: 20 }, () => call("GET", "/api/workspace", { key: fresh.body.plain_token })),
      );
      expect(burst.map((r) => [r.status, r.body.id])).toEqual(Array.from({ length: 20 }, () => [200, ws.workspaceId]));
    } finally {
      vi.restoreAllMocks();
    }
    expect(lookups).toHaveLength(1);
  });

  it("records last_used_at when a key is used", async () => {
    const ws = await createTestWorkspace();
    await ws.api("GET", "/api/workspace");
    // The write happens after the response.
    let lastUsed: string | null = null;
    await waitFor(async () => {
      const list = await ws.api("GET", "/api/api-keys");
      lastUsed = list.body.find((k: { id: string }) => k.id === ws.keyId)?.last_used_at ?? null;
      return lastUsed !== null;
    });
    expect(lastUsed).toMatch(ISO_OFFSET);
  });

  it("validates name and expires_at", async () => {
    const ws = await createTestWorkspace();
    const missing = await ws.api("POST", "/api/api-keys", {});
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({
      message: "The name field is required.",
      errors: { name: ["The name field is required."] },
    });

    const long = await ws.api("POST", "/api/api-keys", { name: "n".repeat(256) });
    expect(long.status).toBe(422);
    expect(long.body.errors).toEqual({ name: ["The name field must not be greater than 255 characters."] });

    const bad = await ws.api("POST", "/api/api-keys", { name: "x", expires_at: "someday" });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      message: "The expires at field must be a valid date.",
      errors: { expires_at: ["The expires at field must be a valid date."] },
    });

    const past = await ws.api("POST", "/api/api-keys", { name: "x", expires_at: "2020-01-01" });
    expect(past.status).toBe(422);
    expect(past.body.errors).toEqual({ expires_at: ["The expires at field must be a date after today."] });
  });

  it("revokes a key: 204, gone from the list, stops working at once", async () => {
    const ws = await createTestWorkspace();
    const created = await ws.api("POST", "/api/api-keys", { name: "temp" });
    const del = await ws.api("DELETE", `/api/api-keys/${created.body.token.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    const res = await call("GET", "/api/workspace", { key: created.body.plain_token });
    expect(res.status).toBe(401);
    const list = await ws.api("GET", "/api/api-keys");
    expect(list.body.map((k: { id: string }) => k.id)).toEqual([ws.keyId]);
    const again = await ws.api("DELETE", `/api/api-keys/${created.body.token.id}`);
    expect(again.status).toBe(404);
  });

  it("cannot see or revoke another workspace's keys", async () => {
    const a = await createTestWorkspace();
    const b = await createTestWorkspace();
    const res = await b.api("DELETE", `/api/api-keys/${a.keyId}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: "Not found." });
    const list = await b.api("GET", "/api/api-keys");
    expect(list.body.map((k: { id: string }) => k.id)).toEqual([b.keyId]);
    const stillWorks = await a.api("GET", "/api/workspace");
    expect(stillWorks.status).toBe(200);
  });
});
