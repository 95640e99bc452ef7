import { afterEach, describe, expect, it, vi } from "vitest";
import { lagOnReplicas } from "../support/d1-spy";
import { call, createTestWorkspace } from "../support/harness";

afterEach(() => vi.restoreAllMocks());

describe("API keys and read replicas", () => {
  it("a key minted moments ago authenticates a GET whose session started on a replica that has not seen it", async () => {
    const ws = await createTestWorkspace();
    const minted = await call("POST", "/api/api-keys", { key: ws.key, body: { name: "fresh" } });
    expect(minted.status).toBe(201);
    lagOnReplicas("api_keys");
    const me = await call("GET", "/api/workspace", { key: minted.body.plain_token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(ws.workspaceId);
  });

  it("an unknown key is still refused", async () => {
    lagOnReplicas("api_keys");
    const res = await call("GET", "/api/workspace", { key: "esp_unknown" });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: "Unauthenticated." });
  });
});
