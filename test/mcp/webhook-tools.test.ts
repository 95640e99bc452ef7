import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createTestWorkspace, ISO_OFFSET, UUID } from "../support/harness";
import { callTool, connectMcp } from "../support/mcp-client";
import { readDeliveries, receiver, verify, waitFor } from "../webhooks/support";

afterEach(() => vi.restoreAllMocks());

describe("MCP tool server: webhook tools", () => {
  it("create, list, get, update, test, deliveries, retry, rotate and delete call the REST verbs", async () => {
    const ws = await createTestWorkspace();
    const client = await connectMcp(ws.key);
    const hook = receiver((_req, n) => new Response(n === 1 ? "busy" : "ok", { status: n === 1 ? 500 : 200 }));

    const created = await callTool(client, "create-webhook-tool", { url: hook.url, events: ["post.published"] });
    expect(created).toMatchObject({ id: expect.stringMatching(UUID), url: hook.url, enabled: true });
    expect(created.secret).toMatch(/^whsec_/);
    const shown = (await ws.api("GET", `/api/webhooks/${created.id}`)).body;
    expect(await callTool(client, "get-webhook-tool", { webhook_id: created.id })).toEqual(shown);
    expect(await callTool(client, "list-webhooks-tool")).toEqual({ items: [shown] });

    const updated = await callTool(client, "update-webhook-tool", {
      webhook_id: created.id,
      events: ["post.published", "post.failed"],
      description: "ops",
    });
    expect(updated).toMatchObject({ events: ["post.published", "post.failed"], description: "ops" });

    // The consumer's retry is recorded, not enqueued: it would come back 5 s later and succeed, so a slow step
    // below could see the delivery finished instead of waiting.
    const retries: { body: unknown; delaySeconds?: number }[] = [];
    vi.spyOn(env.WEBHOOK_QUEUE, "send").mockImplementation(async (body, opts) => {
      retries.push({ body, delaySeconds: opts?.delaySeconds });
      return {} as QueueSendResponse;
    });
    const delivery = await callTool(client, "test-webhook-tool", { webhook_id: created.id });
    expect(delivery).toMatchObject({ event_type: "webhook.test", status: "pending" });
    // The first answer is a 500: the delivery waits for its retry in 5 s; the retry tool cannot jump the queue…
    await waitFor(async () => (await readDeliveries(created.id))[0]?.attempts === 1);
    await waitFor(async () => (await readDeliveries(created.id))[0]?.status === "pending");
    await waitFor(() => retries.length === 1);
    expect(retries).toEqual([
      { body: { delivery_id: delivery.id, endpoint_id: created.id, attempt: 2 }, delaySeconds: 5 },
    ]);
    const busy = await client.callTool({
      name: "retry-webhook-delivery-tool",
      arguments: { webhook_id: created.id, delivery_id: delivery.id },
    });
    expect(busy.isError).toBe(true);
    expect(busy.structuredContent).toEqual({ message: "The delivery is already scheduled or being sent." });

    const page = await callTool(client, "list-webhook-deliveries-tool", { webhook_id: created.id });
    expect(page.meta).toEqual({ current_page: 1, per_page: 50, total: 1, last_page: 1 });
    expect(page.data[0]).toMatchObject({
      id: delivery.id,
      attempts: 1,
      response_status: 500,
      response_excerpt: "busy",
      next_attempt_at: expect.stringMatching(ISO_OFFSET),
    });
    expect(verify(created.secret, hook.received[0]!).type).toBe("webhook.test");

    const rotated = await callTool(client, "rotate-webhook-secret-tool", { webhook_id: created.id });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(await callTool(client, "delete-webhook-tool", { webhook_id: created.id })).toEqual({ deleted: true });
    const missing = await client.callTool({ name: "get-webhook-tool", arguments: { webhook_id: created.id } });
    expect(missing.structuredContent).toEqual({ message: "Not found." });

    const refused = await client.callTool({
      name: "create-webhook-tool",
      arguments: { url: "https://127.0.0.1/x", events: ["post.published"] },
    });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toEqual({
      message: "The url is refused: Private addresses are not allowed.",
      errors: { url: ["The url is refused: Private addresses are not allowed."] },
    });
  });
});
