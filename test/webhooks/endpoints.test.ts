import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { WEBHOOK_EVENT_TYPES } from "../../src/services/webhooks/event-types";
import { call, createTestWorkspace, ISO_OFFSET, UUID } from "../support/harness";
import { callTool, connectMcp } from "../support/mcp-client";
import { createEndpoint, readDeliveries, receiver, verify, waitFor } from "./support";

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

const endpointBody = (over: Record<string, unknown> = {}) => ({
  id: expect.stringMatching(UUID),
  url: expect.any(String),
  description: "",
  events: ["post.published"],
  enabled: true,
  disabled_reason: null,
  failing_since: null,
  previous_secret_expires_at: null,
  // Made with the workspace's key in these tests (test/webhooks/endpoint-makers.test.ts: people and revocation).
  created_by: { type: "api_key", id: expect.stringMatching(UUID) },
  created_at: expect.stringMatching(ISO_OFFSET),
  updated_at: expect.stringMatching(ISO_OFFSET),
  ...over,
});

describe("webhook endpoints CRUD", () => {
  it("creates with a secret shown once; get, list, update and delete never show it", async () => {
    const ws = await createTestWorkspace();
    const created = await ws.api("POST", "/api/webhooks", {
      url: "https://example.com/hook",
      events: ["post.published", "post.failed", "post.published"],
      description: "CRM",
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      ...endpointBody({
        url: "https://example.com/hook",
        description: "CRM",
        events: ["post.published", "post.failed"],
      }),
      secret: expect.stringMatching(SECRET),
    });
    const id = created.body.id;
    const sealed = await env.DB.prepare("SELECT secret FROM webhook_endpoints WHERE id = ?")
      .bind(id)
      .first<{ secret: string }>();
    expect(sealed!.secret).not.toContain(created.body.secret.slice(6, 20)); // stored encrypted

    const got = await ws.api("GET", `/api/webhooks/${id}`);
    expect(got.status).toBe(200);
    const { secret: _s, ...shown } = created.body;
    expect(got.body).toEqual(shown);
    expect((await ws.api("GET", "/api/webhooks")).body).toEqual([shown]);

    const updated = await ws.api("PUT", `/api/webhooks/${id}`, {
      events: WEBHOOK_EVENT_TYPES,
      url: "https://example.org/other",
      enabled: false,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual(
      endpointBody({
        id,
        url: "https://example.org/other",
        description: "CRM",
        events: [...WEBHOOK_EVENT_TYPES],
        enabled: false,
        disabled_reason: "Disabled by the API.",
      }),
    );
    const reenabled = await ws.api("PUT", `/api/webhooks/${id}`, { enabled: true });
    expect(reenabled.body).toMatchObject({ enabled: true, disabled_reason: null });

    expect((await ws.api("DELETE", `/api/webhooks/${id}`)).status).toBe(204);
    const gone = await ws.api("GET", `/api/webhooks/${id}`);
    expect(gone).toMatchObject({ status: 404, body: { message: "Not found." } });
    expect((await ws.api("DELETE", `/api/webhooks/${id}`)).status).toBe(404);
  });

  it("is scoped to the key's workspace and needs a key", async () => {
    const a = await createTestWorkspace();
    const b = await createTestWorkspace();
    const { id } = await createEndpoint(a, "https://example.com/a", ["post.published"]);
    for (const [method, path] of [
      ["GET", `/api/webhooks/${id}`],
      ["PUT", `/api/webhooks/${id}`],
      ["DELETE", `/api/webhooks/${id}`],
      ["POST", `/api/webhooks/${id}/rotate-secret`],
      ["POST", `/api/webhooks/${id}/test`],
      ["GET", `/api/webhooks/${id}/deliveries`],
      ["POST", `/api/webhooks/${id}/deliveries/${crypto.randomUUID()}/retry`],
    ] as const) {
      const res = await b.api(method, path, method === "PUT" ? { enabled: false } : undefined);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual({ message: "Not found." });
    }
    expect((await b.api("GET", "/api/webhooks")).body).toEqual([]);
    expect((await call("GET", "/api/webhooks")).status).toBe(401);
  });

  it("validates every field at once", async () => {
    const ws = await createTestWorkspace();
    const res = await ws.api("POST", "/api/webhooks", { url: "", events: ["post.nope"], description: "x".repeat(256) });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(["description", "events.0", "url"]);
    const empty = await ws.api("POST", "/api/webhooks", { url: "https://example.com/h", events: [] });
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.errors)).toEqual(["events"]);
  });

  it("refuses non-https and private targets (SSRF rules of media from URL)", async () => {
    const ws = await createTestWorkspace();
    const refused = {
      "http://example.com/hook": "The url field must be an https URL.",
      "ftp://example.com/hook": "The url field must be an https URL.",
      "https://127.0.0.1/hook": "The url is refused: Private addresses are not allowed.",
      "https://10.1.2.3/hook": "The url is refused: Private addresses are not allowed.",
      "https://169.254.169.254/latest/meta-data": "The url is refused: Private addresses are not allowed.",
      "https://[::1]/hook": "The url is refused: Private addresses are not allowed.",
      "https://localhost/hook": "The url is refused: Private addresses are not allowed.",
      "https://metadata.google.internal/": "The url is refused: Private addresses are not allowed.",
      "https://user:pw@example.com/hook": "The url is refused: URLs with credentials are not allowed.",
      "https://example.com:8443/hook": "The url is refused: Only ports 80 and 443 are allowed.",
      "not a url": "The url field must be a valid URL.",
    };
    for (const [url, message] of Object.entries(refused)) {
      const res = await ws.api("POST", "/api/webhooks", { url, events: ["post.published"] });
      expect(res.status, url).toBe(422);
      expect(res.body, url).toEqual({ message, errors: { url: [message] } });
    }
    const { id } = await createEndpoint(ws, "https://example.com/ok", ["post.published"]);
    const put = await ws.api("PUT", `/api/webhooks/${id}`, { url: "https://192.168.1.1/x" });
    expect(put.status).toBe(422);
    expect((await ws.api("GET", "/api/webhooks")).body).toHaveLength(1);
  });

  it("allows at most 20 endpoints per workspace", async () => {
    const ws = await createTestWorkspace();
    for (let i = 0; i < 20; i++) await createEndpoint(ws, `https://example.com/${i}`, ["post.published"]);
    const res = await ws.api("POST", "/api/webhooks", { url: "https://example.com/21", events: ["post.published"] });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: "A workspace can have at most 20 webhook endpoints.",
      errors: { url: ["A workspace can have at most 20 webhook endpoints."] },
    });
  });
});

describe("test event, delivery log and secret rotation", () => {
  it("sends a signed webhook.test through the queue and logs the delivery", async () => {
    const ws = await createTestWorkspace();
    const hook = receiver(() => new Response(`thanks ${"x".repeat(1000)}`, { status: 200 }));
    const { id, secret } = await createEndpoint(ws, hook.url, ["post.published"]);
    const sent = await ws.api("POST", `/api/webhooks/${id}/test`);
    expect(sent.status).toBe(202);
    expect(sent.body).toEqual({
      id: expect.stringMatching(UUID),
      event_id: expect.stringMatching(/^msg_[0-9a-f]{32}$/),
      event_type: "webhook.test",
      status: "pending",
      attempts: 0,
      response_status: null,
      response_excerpt: null,
      duration_ms: null,
      error: null,
      last_attempt_at: null,
      next_attempt_at: expect.stringMatching(ISO_OFFSET),
      created_at: expect.stringMatching(ISO_OFFSET),
    });
    await waitFor(async () => (await readDeliveries(id))[0]?.status === "succeeded");
    expect(hook.received).toHaveLength(1);
    const [r] = hook.received;
    expect(r!.headers["webhook-id"]).toBe(sent.body.event_id);
    expect(r!.headers["content-type"]).toBe("application/json");
    expect(verify(secret, r!)).toEqual({
      type: "webhook.test",
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      data: { endpoint_id: id, message: "A test event sent with POST /api/webhooks/{id}/test." },
    });

    const log = await ws.api("GET", `/api/webhooks/${id}/deliveries`);
    expect(log.status).toBe(200);
    expect(log.body).toEqual({
      data: [
        {
          ...sent.body,
          status: "succeeded",
          attempts: 1,
          response_status: 200,
          response_excerpt: `thanks ${"x".repeat(249)}`,
          duration_ms: expect.any(Number),
          last_attempt_at: expect.stringMatching(ISO_OFFSET),
          next_attempt_at: null,
        },
      ],
      meta: { current_page: 1, per_page: 50, total: 1, last_page: 1 },
    });
  });

  it("pages the delivery log 50 at a time, newest first", async () => {
    const ws = await createTestWorkspace();
    const { id } = await createEndpoint(ws, "https://example.com/h", ["post.published"]);
    const stmts = [];
    for (let i = 0; i < 101; i++) {
      const eventId = `msg_${crypto.randomUUID().replaceAll("-", "")}`;
      stmts.push(
        env.DB.prepare(
          "INSERT INTO webhook_events (id, workspace_id, type, subject, payload, created_at, dispatched_at) VALUES (?, ?, 'post.published', '{}', '{}', ?, ?)",
        ).bind(eventId, ws.workspaceId, i, i),
        env.DB.prepare(
          "INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, status, attempts, created_at, updated_at) VALUES (?, ?, ?, ?, 'succeeded', 1, ?, ?)",
        ).bind(crypto.randomUUID(), ws.workspaceId, id, eventId, 1_700_000_000_000 + i * 1000, 0),
      );
    }
    await env.DB.batch(stmts);
    const pages = await Promise.all([1, 2, 3, 4].map((p) => ws.api("GET", `/api/webhooks/${id}/deliveries?page=${p}`)));
    expect(pages.map((p) => p.body.data.length)).toEqual([50, 50, 1, 0]);
    expect(pages[0]!.body.meta).toEqual({ current_page: 1, per_page: 50, total: 101, last_page: 3 });
    expect(pages[0]!.body.data[0].created_at).toBe("2023-11-14T22:15:00+00:00");
    expect(pages[2]!.body.data[0].created_at).toBe("2023-11-14T22:13:20+00:00");
    expect((await ws.api("GET", `/api/webhooks/${id}/deliveries?page=0`)).status).toBe(422);
  });

  it("rotation: the new secret is shown once and both secrets verify during the grace period", async () => {
    const ws = await createTestWorkspace();
    const hook = receiver();
    const { id, secret: oldSecret } = await createEndpoint(ws, hook.url, ["post.published"]);
    const rotated = await ws.api("POST", `/api/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({
      secret: expect.stringMatching(SECRET),
      previous_secret_expires_at: expect.stringMatching(ISO_OFFSET),
    });
    const expires = Date.parse(rotated.body.previous_secret_expires_at);
    expect(expires - Date.now()).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
    expect(rotated.body.secret).not.toBe(oldSecret);
    expect((await ws.api("GET", `/api/webhooks/${id}`)).body.previous_secret_expires_at).toBe(
      rotated.body.previous_secret_expires_at,
    );

    await ws.api("POST", `/api/webhooks/${id}/test`);
    await waitFor(() => hook.received.length === 1);
    const [r] = hook.received;
    expect(r!.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    expect(verify(rotated.body.secret, r!).type).toBe("webhook.test");
    expect(verify(oldSecret, r!).type).toBe("webhook.test");

    // Once the grace period is over, only the new secret signs.
    await env.DB.prepare("UPDATE webhook_endpoints SET previous_secret_expires_at = ? WHERE id = ?")
      .bind(Date.now() - 1, id)
      .run();
    await waitFor(async () => (await readDeliveries(id))[0]?.status === "succeeded");
    await ws.api("POST", `/api/webhooks/${id}/test`);
    await waitFor(() => hook.received.length === 2);
    const later = hook.received[1]!;
    expect(later.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verify(rotated.body.secret, later).type).toBe("webhook.test");
    expect(() => verify(oldSecret, later)).toThrow();
  });
});

describe("what keys below full see of webhooks (issue 25)", () => {
  it("read and publish keys see the url cut to its origin and no response excerpts; full keys see both (REST and MCP)", async () => {
    const ws = await createTestWorkspace();
    const secretUrl = "https://hooks.example.com/services/T000/B000/s3cr3tPath?token=abc#frag";
    const { id } = await createEndpoint(ws, secretUrl, ["post.published"]);
    const eventId = `msg_${crypto.randomUUID().replaceAll("-", "")}`;
    const deliveryId = crypto.randomUUID();
    await env.DB.batch([
      env.DB.prepare(
        "INSERT INTO webhook_events (id, workspace_id, type, subject, payload, created_at, dispatched_at) VALUES (?, ?, 'post.published', '{}', '{}', 1700000000000, 1700000000000)",
      ).bind(eventId, ws.workspaceId),
      env.DB.prepare(
        "INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, status, attempts, response_status, response_excerpt, duration_ms, error, last_attempt_at, created_at, updated_at) VALUES (?, ?, ?, ?, 'failed', 8, 500, 'internal: db password=hunter2', 12, 'The endpoint answered 500.', 1700000001000, 1700000000000, 1700000001000)",
      ).bind(deliveryId, ws.workspaceId, id, eventId),
    ]);
    const endpoint = (url: string) =>
      endpointBody({
        id,
        url,
        created_at: expect.stringMatching(ISO_OFFSET),
        updated_at: expect.stringMatching(ISO_OFFSET),
      });
    const delivery = (excerpt: string | null) => ({
      id: deliveryId,
      event_id: eventId,
      event_type: "post.published",
      status: "failed",
      attempts: 8,
      response_status: 500,
      response_excerpt: excerpt,
      duration_ms: 12,
      error: "The endpoint answered 500.",
      last_attempt_at: "2023-11-14T22:13:21+00:00",
      next_attempt_at: null,
      created_at: "2023-11-14T22:13:20+00:00",
    });
    const page = (excerpt: string | null) => ({
      data: [delivery(excerpt)],
      meta: { current_page: 1, per_page: 50, total: 1, last_page: 1 },
    });
    const mintKey = async (scope: string) =>
      (await ws.api("POST", "/api/api-keys", { name: scope, scopes: [scope] })).body.plain_token as string;

    const views = [
      {
        key: ws.key,
        url: secretUrl,
        excerpt: "internal: db password=hunter2",
      },
      { key: await mintKey("publish"), url: "https://hooks.example.com", excerpt: null },
      { key: await mintKey("read"), url: "https://hooks.example.com", excerpt: null },
    ];
    for (const view of views) {
      const get = await call("GET", `/api/webhooks/${id}`, { key: view.key });
      expect({ status: get.status, body: get.body }).toEqual({ status: 200, body: endpoint(view.url) });
      const list = await call("GET", "/api/webhooks", { key: view.key });
      expect({ status: list.status, body: list.body }).toEqual({ status: 200, body: [endpoint(view.url)] });
      const log = await call("GET", `/api/webhooks/${id}/deliveries`, { key: view.key });
      expect({ status: log.status, body: log.body }).toEqual({ status: 200, body: page(view.excerpt) });

      const client = await connectMcp(view.key);
      expect(await callTool(client, "get-webhook-tool", { webhook_id: id })).toEqual(endpoint(view.url));
      expect(await callTool(client, "list-webhooks-tool")).toEqual({ items: [endpoint(view.url)] });
      expect(await callTool(client, "list-webhook-deliveries-tool", { webhook_id: id })).toEqual(page(view.excerpt));
      await client.close();
    }
    // The stored URL is untouched: deliveries still go to the whole of it.
    const row = await env.DB.prepare("SELECT url FROM webhook_endpoints WHERE id = ?")
      .bind(id)
      .first<{ url: string }>();
    expect(row!.url).toBe(secretUrl);
  });
});
