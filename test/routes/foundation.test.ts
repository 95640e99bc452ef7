import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { describeAuth } from "../support/auth-cases";
import { call, createTestWorkspace, newApiKeyBody, UUID, YMDHIS } from "../support/harness";

describe("GET /api/health", () => {
  it("answers ok without auth and carries a request id", async () => {
    const res = await call("GET", "/api/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
    expect(res.headers.get("X-Request-Id")).toMatch(UUID);
  });
});

describe("errors", () => {
  it("answers 404 JSON for unknown routes", async () => {
    const res = await call("GET", "/api/nope");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: "Not found." });
    expect(res.headers.get("X-Request-Id")).toMatch(UUID);
  });

  it("answers 405 with Allow for a known path under another method", async () => {
    const res = await call("PATCH", "/api/labels");
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ message: "Method not allowed." });
    expect(res.headers.get("Allow")).toBe("GET, POST, HEAD");
  });

  it("answers 405 for parameterised paths", async () => {
    const res = await call("GET", "/api/labels/0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a");
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("PUT, DELETE");
  });

  it("answers 400 for malformed JSON", async () => {
    const ws = await createTestWorkspace();
    const res = await call("POST", "/api/labels", {
      key: ws.key,
      rawBody: "{not json",
      headers: { "Content-Type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Malformed JSON body." });
  });

  it("answers 413 for a JSON body over 1 MiB", async () => {
    const ws = await createTestWorkspace();
    const res = await ws.api("POST", "/api/signatures", { name: "big", content: "x".repeat(1024 * 1024 + 10) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ message: "Payload too large." });
  });

  it("reports every validation issue with dotted paths", async () => {
    const ws = await createTestWorkspace();
    const res = await ws.api("POST", "/api/labels", { name: "x".repeat(256), color: "red" });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: "The name field must not be greater than 255 characters. (and 1 more error)",
      errors: {
        name: ["The name field must not be greater than 255 characters."],
        color: ["The color field must be a hex colour in the form #RRGGBB."],
      },
    });
  });

  it("reports wrong types and missing fields", async () => {
    const ws = await createTestWorkspace();
    const res = await ws.api("POST", "/api/signatures", { name: 42 });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: "The name field must be a string. (and 1 more error)",
      errors: { name: ["The name field must be a string."], content: ["The content field is required."] },
    });
  });

  it("answers 404 for a non-UUID path id", async () => {
    const ws = await createTestWorkspace();
    const res = await ws.api("PUT", "/api/labels/not-a-uuid", { name: "a", color: "#000000" });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: "Not found." });
  });
});

describe("POST /api/admin/workspaces", () => {
  it("creates a workspace and a working key", async () => {
    const res = await call("POST", "/api/admin/workspaces", {
      body: { name: "Acme" },
      headers: { Authorization: `Bearer ${env.ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      workspace: {
        id: expect.stringMatching(UUID),
        name: "Acme",
        created_at: expect.stringMatching(YMDHIS),
        updated_at: expect.stringMatching(YMDHIS),
      },
      ...newApiKeyBody({ name: "Default key", expires_at: null }),
    });
    const me = await call("GET", "/api/workspace", { key: res.body.plain_token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual(res.body.workspace);
  });

  it("refuses a wrong admin token", async () => {
    const res = await call("POST", "/api/admin/workspaces", {
      body: { name: "x" },
      headers: { Authorization: "Bearer nope" },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: "Unauthenticated." });
  });

  it("answers 404 when ADMIN_TOKEN is not set", async () => {
    const { default: worker } = await import("../../src/index");
    const { createExecutionContext } = await import("cloudflare:test");
    const res = await worker.fetch(
      new Request("https://api.test/api/admin/workspaces", {
        method: "POST",
        headers: { Authorization: "Bearer anything", "Content-Type": "application/json" },
        body: JSON.stringify({ name: "x" }),
      }),
      { ...env, ADMIN_TOKEN: undefined } as unknown as Cloudflare.Env,
      createExecutionContext(),
    );
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: "Not found." });
  });

  it("stores only a hash of the key", async () => {
    const ws = await createTestWorkspace();
    const row = await env.DB.prepare("SELECT * FROM api_keys WHERE id = ?")
      .bind(ws.keyId)
      .first<Record<string, unknown>>();
    expect(JSON.stringify(row)).not.toContain(ws.key);
    expect(row?.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("GET /api/workspace", () => {
  describeAuth("GET", "/api/workspace");
});
