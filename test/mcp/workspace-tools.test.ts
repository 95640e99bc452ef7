import { describe, expect, it } from "vitest";
import { call, createTestWorkspace, UUID } from "../support/harness";
import { callTool, connectMcp } from "../support/mcp-client";

describe("MCP tool server: auth", () => {
  it("answers 401 without a valid key", async () => {
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    };
    const headers = { Accept: "application/json, text/event-stream" };
    const none = await call("POST", "/mcp", { body: init, headers });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ message: "Unauthenticated." });
    const bad = await call("POST", "/mcp", { body: init, headers: { ...headers, Authorization: "Bearer esp_nope" } });
    expect(bad.status).toBe(401);
  });
});

describe("MCP tool server: workspace tools", () => {
  it("lists tools with described inputs and annotations", async () => {
    const ws = await createTestWorkspace();
    const client = await connectMcp(ws.key);
    const { tools } = await client.listTools();
    // The 26 tools of decisions §10, the webhook tools of issue 19 and the connect tools of issue 18.
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        "list-posts-tool",
        "get-post-tool",
        "create-post-tool",
        "update-post-tool",
        "publish-post-tool",
        "delete-post-tool",
        "duplicate-post-tool",
        "preview-post-tool",
        "attach-media-from-url-tool",
        "request-media-upload-tool",
        "attach-media-from-upload-tool",
        "get-post-metrics-tool",
        "list-content-types-tool",
        "list-labels-tool",
        "create-label-tool",
        "update-label-tool",
        "delete-label-tool",
        "list-signatures-tool",
        "create-signature-tool",
        "update-signature-tool",
        "delete-signature-tool",
        "list-social-accounts-tool",
        "toggle-social-account-tool",
        "get-workspace-tool",
        "list-api-keys-tool",
        "create-api-key-tool",
        "delete-api-key-tool",
        "list-webhooks-tool",
        "create-webhook-tool",
        "get-webhook-tool",
        "update-webhook-tool",
        "delete-webhook-tool",
        "rotate-webhook-secret-tool",
        "test-webhook-tool",
        "list-webhook-deliveries-tool",
        "retry-webhook-delivery-tool",
        // Issue 18: connect accounts.
        "connect-social-account-tool",
        "create-connect-link-tool",
        // Issue 25: connect links can be listed and deleted.
        "list-connect-links-tool",
        "delete-connect-link-tool",
        // Issue 37: queues, and adding a post to one.
        "list-queues-tool",
        "list-queue-slots-tool",
        "add-to-queue-tool",
        "next-free-queue-slot-tool",
        "reserve-queue-slot-tool",
        "reorder-queue-tool",
        // Issue 29: a media item's alt text.
        "update-media-tool",
      ].sort(),
    );
    const byName = new Map(tools.map((t) => [t.name, t]));
    const label = byName.get("update-label-tool")!;
    expect(label.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.get("delete-label-tool")!.annotations).toMatchObject({ destructiveHint: true });
    expect(byName.get("list-labels-tool")!.annotations).toMatchObject({ readOnlyHint: true });
    for (const tool of tools) {
      expect(tool.description, tool.name).toMatch(/\w+/);
      for (const [field, schema] of Object.entries(
        (tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>,
      )) {
        expect(schema.description, `${tool.name}.${field}`).toMatch(/\w+/);
      }
    }
    await client.close();
  });

  it("manages labels, signatures, keys and reads the workspace through tools", async () => {
    const ws = await createTestWorkspace();
    const client = await connectMcp(ws.key);

    const workspace = await callTool(client, "get-workspace-tool");
    expect(workspace.id).toBe(ws.workspaceId);

    const label = await callTool(client, "create-label-tool", { name: "Launch", color: "#112233" });
    expect(label).toMatchObject({ id: expect.stringMatching(UUID), name: "Launch", color: "#112233" });
    const updated = await callTool(client, "update-label-tool", {
      label_id: label.id,
      name: "Launch 2",
      color: "#445566",
    });
    expect(updated).toMatchObject({ id: label.id, name: "Launch 2", color: "#445566" });
    expect(await callTool(client, "list-labels-tool")).toEqual({ items: [updated] });
    expect((await ws.api("GET", "/api/labels")).body).toEqual([updated]);
    expect(await callTool(client, "delete-label-tool", { label_id: label.id })).toEqual({
      deleted: true,
      id: label.id,
    });

    const sig = await callTool(client, "create-signature-tool", { name: "Tags", content: "#a #b" });
    const sig2 = await callTool(client, "update-signature-tool", { signature_id: sig.id, name: "Tags", content: "#c" });
    expect(sig2.content).toBe("#c");
    expect((await callTool(client, "list-signatures-tool")).items).toEqual([sig2]);
    expect(await callTool(client, "delete-signature-tool", { signature_id: sig.id })).toEqual({
      deleted: true,
      id: sig.id,
    });

    const key = await callTool(client, "create-api-key-tool", { name: "agent" });
    expect(key.plain_token).toMatch(/^esp_/);
    expect((await callTool(client, "list-api-keys-tool")).items.map((k: { name: string }) => k.name)).toEqual([
      "agent",
      "Default key",
    ]);
    expect(await callTool(client, "delete-api-key-tool", { api_key_id: key.token.id })).toEqual({
      deleted: true,
      id: key.token.id,
    });

    const catalog = await callTool(client, "list-content-types-tool");
    expect(catalog.platforms).toHaveLength(12);
    expect((await callTool(client, "list-social-accounts-tool")).items).toEqual([]);
    await client.close();
  });

  it("returns service errors as tool errors, not protocol errors", async () => {
    const ws = await createTestWorkspace();
    const client = await connectMcp(ws.key);
    const missing = await client.callTool({
      name: "delete-label-tool",
      arguments: { label_id: "0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a" },
    });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toEqual({ message: "Not found." });
    const past = await client.callTool({
      name: "create-api-key-tool",
      arguments: { name: "x", expires_at: "2001-01-01" },
    });
    expect(past.isError).toBe(true);
    expect(past.structuredContent).toEqual({
      message: "The expires at field must be a date after today.",
      errors: { expires_at: ["The expires at field must be a date after today."] },
    });
    const badInput = await client.callTool({ name: "create-label-tool", arguments: { name: "x", color: "blue" } });
    expect(badInput.isError).toBe(true);
    const toggle = await client.callTool({
      name: "toggle-social-account-tool",
      arguments: { social_account_id: "0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a" },
    });
    expect(toggle.structuredContent).toEqual({ message: "Not found." });
    await client.close();
  });
});
