// fresh storage: runs the webhook delivery sweep, which works on every workspace's deliveries at once.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { dispatchWebhookEvents } from "../../src/services/webhooks/dispatch";
import { dataEvent } from "../../src/services/webhooks/outbox";
import { createTestWorkspace, ISO_OFFSET, type TestWorkspace } from "../support/harness";
import {
  createEndpoint,
  deliverWebhookMessages,
  readDeliveries,
  readEvents,
  receiver,
  recordingQueue,
  testContext,
  verify,
  waitFor,
} from "./support";

/** Records one `media.uploaded` event through the outbox helper and dispatches it to a recording queue. */
async function recordAndDispatch(ws: TestWorkspace, data: unknown = { media_id: "m1" }) {
  const recorder = recordingQueue();
  const ctx = testContext({ now: Date.now() }, recorder.queue);
  await ctx.db.batch([dataEvent(ctx, ws.workspaceId, "media.uploaded", data)]);
  await dispatchWebhookEvents(ctx);
  return recorder;
}

describe("delivery attempts", () => {
  it("retries non-2xx answers on the Standard Webhooks schedule with the same webhook-id, then gives up", async () => {
    const ws = await createTestWorkspace();
    const hook = receiver(() => new Response("down", { status: 503 }));
    const { id, secret } = await createEndpoint(ws, hook.url, ["media.uploaded"]);
    const first = await recordAndDispatch(ws);
    expect(first.sent).toEqual([{ body: { delivery_id: expect.any(String), endpoint_id: id, attempt: 1 } }]);

    const delays: (number | undefined)[] = [];
    let message = first.sent[0]!.body;
    for (let attempt = 1; attempt <= 8; attempt++) {
      const retries = recordingQueue();
      const result = await deliverWebhookMessages([message], retries.queue);
      expect(result).toEqual({ acked: [0], retried: [] });
      const [row] = await readDeliveries(id);
      expect(row).toMatchObject({ attempts: attempt, response_status: 503, response_excerpt: "down" });
      if (attempt < 8) {
        expect(row!.status).toBe("pending");
        expect(retries.sent).toHaveLength(1);
        expect(retries.sent[0]!.body).toEqual({ ...message, attempt: attempt + 1 });
        delays.push(retries.sent[0]!.delaySeconds);
        expect(row!.next_attempt_at! - Date.now()).toBeGreaterThan(retries.sent[0]!.delaySeconds! * 1000 - 5000);
        message = retries.sent[0]!.body;
      } else {
        expect(row).toMatchObject({ status: "failed", next_attempt_at: null, error: "The endpoint answered 503." });
        expect(retries.sent).toEqual([]);
      }
    }
    expect(delays).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(hook.received).toHaveLength(8);
    const ids = new Set(hook.received.map((r) => r.headers["webhook-id"]));
    expect(ids.size).toBe(1);
    expect(new Set(hook.received.map((r) => r.body)).size).toBe(1);
    for (const r of hook.received) expect(verify(secret, r).type).toBe("media.uploaded");
    const [event] = await readEvents(ws.workspaceId);
    expect([...ids]).toEqual([event!.id]);

    // A duplicate or stale message of an attempt already made sends nothing.
    await deliverWebhookMessages([{ ...message, attempt: 3 }], recordingQueue().queue);
    expect(hook.received).toHaveLength(8);

    // The manual retry sends once more (through the queue), same id and body.
    const endpointBefore = await ws.api("GET", `/api/webhooks/${id}`);
    expect(endpointBefore.body.failing_since).toMatch(ISO_OFFSET);
    const again = await ws.api("POST", `/api/webhooks/${id}/deliveries/${message.delivery_id}/retry`);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({
      id: message.delivery_id,
      status: "pending",
      attempts: 8,
      event_type: "media.uploaded",
    });
    await waitFor(async () => (await readDeliveries(id))[0]?.attempts === 9);
    await waitFor(async () => (await readDeliveries(id))[0]?.status === "failed");
    expect(hook.received).toHaveLength(9);
    expect(hook.received[8]!.headers["webhook-id"]).toBe(event!.id);
    expect(hook.received[8]!.body).toBe(hook.received[0]!.body);
    const pending = await ws.api("POST", `/api/webhooks/${id}/deliveries/${crypto.randomUUID()}/retry`);
    expect(pending).toMatchObject({ status: 404, body: { message: "Not found." } });
  });

  it("treats a redirect as a failure and does not follow it", async () => {
    const ws = await createTestWorkspace();
    const hook = receiver(() => new Response(null, { status: 302, headers: { Location: "http://169.254.169.254/" } }));
    const { id } = await createEndpoint(ws, hook.url, ["media.uploaded"]);
    const { sent } = await recordAndDispatch(ws);
    const retries = recordingQueue();
    await deliverWebhookMessages([sent[0]!.body], retries.queue);
    expect(hook.received).toHaveLength(1);
    expect((await readDeliveries(id))[0]).toMatchObject({
      status: "pending",
      response_status: 302,
      error: "The endpoint answered 302.",
    });
    expect(retries.sent.map((s) => s.delaySeconds)).toEqual([5]);
  });

  it("gives an endpoint 10 seconds to answer, then records a timeout and retries", async () => {
    const ws = await createTestWorkspace();
    let reached!: () => void;
    const called = new Promise<void>((r) => {
      reached = r;
    });
    // An endpoint that accepts the request and never answers (until the sender gives up and aborts).
    const hook = receiver(
      (req) =>
        new Promise<Response>((_, reject) => {
          req.signal.addEventListener("abort", () => reject(req.signal.reason));
          reached();
        }),
    );
    const { id } = await createEndpoint(ws, hook.url, ["media.uploaded"]);
    const { sent } = await recordAndDispatch(ws);
    const retries = recordingQueue();
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      let settled = false;
      const delivery = deliverWebhookMessages([sent[0]!.body], retries.queue).finally(() => {
        settled = true;
      });
      await called;
      await vi.advanceTimersByTimeAsync(9_999);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      vi.useRealTimers();
      await delivery;
    } finally {
      vi.useRealTimers();
    }
    expect((await readDeliveries(id))[0]).toMatchObject({
      status: "pending",
      attempts: 1,
      response_status: null,
      response_excerpt: null,
      error: "No answer within 10 seconds.",
    });
    expect(retries.sent.map((s) => s.delaySeconds)).toEqual([5]);
  });

  it("treats an unreachable endpoint as a failure", async () => {
    const ws = await createTestWorkspace();
    const hook = receiver(() => {
      throw new TypeError("connection refused");
    });
    const { id } = await createEndpoint(ws, hook.url, ["media.uploaded"]);
    const { sent } = await recordAndDispatch(ws);
    const retries = recordingQueue();
    await deliverWebhookMessages([sent[0]!.body], retries.queue);
    expect((await readDeliveries(id))[0]).toMatchObject({
      status: "pending",
      attempts: 1,
      response_status: null,
      error: "The endpoint could not be reached.",
    });
    expect(retries.sent).toHaveLength(1);
  });

  it("disables an endpoint that has failed for 5 days and says so with webhook.endpoint.disabled", async () => {
    const ws = await createTestWorkspace();
    const failing = receiver(() => new Response("no", { status: 500 }));
    const watcher = receiver();
    const bad = await createEndpoint(ws, failing.url, ["media.uploaded"]);
    const ops = await createEndpoint(ws, watcher.url, ["webhook.endpoint.disabled"]);
    const { sent } = await recordAndDispatch(ws);

    // Failing for just under 5 days: still enabled, retried.
    await env.DB.prepare("UPDATE webhook_endpoints SET failing_since = ? WHERE id = ?")
      .bind(Date.now() - 5 * 86400_000 + 60_000, bad.id)
      .run();
    const retries = recordingQueue();
    await deliverWebhookMessages([sent[0]!.body], retries.queue);
    expect((await ws.api("GET", `/api/webhooks/${bad.id}`)).body.enabled).toBe(true);

    // Past 5 days, the next failed attempt disables it.
    await env.DB.prepare("UPDATE webhook_endpoints SET failing_since = ? WHERE id = ?")
      .bind(Date.now() - 5 * 86400_000 - 1, bad.id)
      .run();
    const after = recordingQueue();
    await deliverWebhookMessages([retries.sent[0]!.body], after.queue);
    const endpoint = await ws.api("GET", `/api/webhooks/${bad.id}`);
    expect(endpoint.body).toMatchObject({
      enabled: false,
      disabled_reason: "Every delivery attempt failed for 5 days.",
      failing_since: expect.stringMatching(ISO_OFFSET),
    });
    // The pending retry was enqueued before the endpoint was disabled; it finds it disabled and fails.
    const disabledEvent = after.sent.filter((s) => s.body.endpoint_id === ops.id);
    expect(disabledEvent).toHaveLength(1);
    const retry = after.sent.find((s) => s.body.endpoint_id === bad.id)!;
    await deliverWebhookMessages([retry.body, disabledEvent[0]!.body], recordingQueue().queue);
    expect(failing.received).toHaveLength(2);
    expect((await readDeliveries(bad.id))[0]).toMatchObject({ status: "failed", error: "The endpoint is disabled." });
    expect(watcher.received).toHaveLength(1);
    const payload = verify(ops.secret, watcher.received[0]!) as { type: string; data: Record<string, unknown> };
    expect(payload.type).toBe("webhook.endpoint.disabled");
    expect(payload.data).toMatchObject({ id: bad.id, url: failing.url, enabled: false });
    expect(payload.data).not.toHaveProperty("secret");

    // Events are no longer recorded for it.
    await recordAndDispatch(ws);
    expect(await readDeliveries(bad.id)).toHaveLength(1);
  });

  it("a 410 Gone disables the endpoint at once", async () => {
    const ws = await createTestWorkspace();
    const hook = receiver(() => new Response("gone", { status: 410 }));
    const { id } = await createEndpoint(ws, hook.url, ["media.uploaded"]);
    const { sent } = await recordAndDispatch(ws);
    const retries = recordingQueue();
    await deliverWebhookMessages([sent[0]!.body], retries.queue);
    expect(retries.sent).toEqual([]);
    expect((await readDeliveries(id))[0]).toMatchObject({ status: "failed", response_status: 410 });
    expect((await ws.api("GET", `/api/webhooks/${id}`)).body).toMatchObject({
      enabled: false,
      disabled_reason: "The endpoint answered 410 Gone.",
    });
  });

  it("the cron re-enqueues a delivery whose message was lost", async () => {
    const ws = await createTestWorkspace();
    const { id } = await createEndpoint(ws, "https://example.com/lost", ["media.uploaded"]);
    await recordAndDispatch(ws);
    const [row] = await readDeliveries(id);
    await env.DB.prepare("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ?")
      .bind(Date.now() - 6 * 60_000, row!.id)
      .run();
    const { sweepWebhookDeliveries } = await import("../../src/services/webhooks/consumer");
    const recorder = recordingQueue();
    expect(await sweepWebhookDeliveries(testContext({ now: Date.now() }, recorder.queue))).toBe(1);
    expect(recorder.sent).toEqual([{ body: { delivery_id: row!.id, endpoint_id: id, attempt: 1 } }]);
    // Not again on the next tick.
    expect(await sweepWebhookDeliveries(testContext({ now: Date.now() }, recordingQueue().queue))).toBe(0);

    // An attempt interrupted mid-send (the Worker stopped) counts as made; the next one is enqueued.
    await env.DB.prepare(
      "UPDATE webhook_deliveries SET status = 'sending', attempts = 1, last_attempt_at = ? WHERE id = ?",
    )
      .bind(Date.now() - 6 * 60_000, row!.id)
      .run();
    const again = recordingQueue();
    expect(await sweepWebhookDeliveries(testContext({ now: Date.now() }, again.queue))).toBe(1);
    expect(again.sent).toEqual([{ body: { delivery_id: row!.id, endpoint_id: id, attempt: 2 } }]);
    expect((await readDeliveries(id))[0]).toMatchObject({ status: "pending", error: "The attempt was interrupted." });
  });
});

describe("retention", () => {
  it("deletes events older than 30 days with their finished deliveries, and keeps unfinished ones", async () => {
    const ws = await createTestWorkspace();
    const { id } = await createEndpoint(ws, "https://example.com/old", ["media.uploaded"]);
    const old = Date.now() - 31 * 86400_000;
    const stmts = [];
    for (const [n, status] of [
      [1, "succeeded"],
      [2, "failed"],
      [3, "pending"],
    ] as const) {
      stmts.push(
        env.DB.prepare(
          "INSERT INTO webhook_events (id, workspace_id, type, subject, payload, created_at, dispatched_at) VALUES (?, ?, 'media.uploaded', '{}', '{}', ?, ?)",
        ).bind(`msg_old${n}`, ws.workspaceId, old, old),
        env.DB.prepare(
          "INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, status, attempts, next_attempt_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?)",
        ).bind(crypto.randomUUID(), ws.workspaceId, id, `msg_old${n}`, status, Date.now() + 3600_000, old, old),
      );
    }
    await env.DB.batch(stmts);
    await recordAndDispatch(ws); // a fresh event stays
    const { pruneWebhookEvents } = await import("../../src/services/webhooks/consumer");
    expect(await pruneWebhookEvents(testContext({ now: Date.now() }, recordingQueue().queue))).toBe(2);
    expect((await readEvents(ws.workspaceId)).map((e) => e.id).filter((e) => e.startsWith("msg_old"))).toEqual([
      "msg_old3",
    ]);
    expect((await readDeliveries(id)).map((d) => d.status).sort()).toEqual(["pending", "pending"]);
  });
});
