import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { expect } from "vitest";
import { loadConfig } from "../../src/config";
import type { ServiceContext } from "../../src/context";
import { createDb } from "../../src/db/client";
import worker from "../../src/index";
import type { WebhookMessage } from "../../src/services/webhooks/messages";
import { fakeOrigin } from "../support/fake-fetch";
import type { TestWorkspace } from "../support/harness";

/** A fake receiver on its own public origin: records every request and answers with `respond`. */
export interface Received {
  headers: Record<string, string>;
  body: string;
  json: { type: string; timestamp: string; data: any };
}

let receivers = 0;
export function receiver(
  respond: (req: Request, n: number) => Response | Promise<Response> = () => new Response("ok"),
) {
  const origin = `https://hooks-${++receivers}-${crypto.randomUUID().slice(0, 8)}.example.com`;
  const received: Received[] = [];
  fakeOrigin(origin, async (request) => {
    const body = await request.text();
    received.push({ headers: Object.fromEntries(request.headers), body, json: JSON.parse(body) });
    return respond(request, received.length);
  });
  return { url: `${origin}/hook`, received };
}

export async function createEndpoint(ws: TestWorkspace, url: string, events: string[]) {
  const res = await ws.api("POST", "/api/webhooks", { url, events });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; secret: string };
}

/** Verifies a received request with the official `standardwebhooks` library; returns the parsed payload. */
export function verify(secret: string, r: Received): { type: string; timestamp: string; data: any } {
  return new Webhook(secret).verify(r.body, {
    "webhook-id": r.headers["webhook-id"]!,
    "webhook-timestamp": r.headers["webhook-timestamp"]!,
    "webhook-signature": r.headers["webhook-signature"]!,
  }) as { type: string; timestamp: string; data: any };
}

/** Background queue deliveries take a moment: poll for them with `waitFor`. */
export { waitFor } from "../support/harness";

/** A WEBHOOK_QUEUE that records what is sent (with delays) instead of handing it to the local queue. */
export function recordingQueue() {
  const sent: { body: WebhookMessage; delaySeconds?: number }[] = [];
  const queue = {
    async send(body: WebhookMessage, opts?: QueueSendOptions) {
      sent.push({ body, delaySeconds: opts?.delaySeconds });
    },
    async sendBatch(messages: Iterable<MessageSendRequest<WebhookMessage>>) {
      for (const m of messages) sent.push({ body: m.body, delaySeconds: m.delaySeconds });
    },
  } as unknown as Queue;
  return { queue, sent };
}

/** A ServiceContext over the real D1 with a recording queue and a clock the test moves. */
export function testContext(clock: { now: number }, queue: Queue): ServiceContext & { settle(): Promise<void> } {
  const pending: Promise<unknown>[] = [];
  return {
    env: { ...env, WEBHOOK_QUEUE: queue },
    db: createDb(env.DB),
    config: loadConfig(env),
    now: () => clock.now,
    requestId: crypto.randomUUID(),
    webhookOutbox: { recorded: false },
    origin: "https://api.test",
    waitUntil: (p) => void pending.push(p),
    settle: async () => {
      await Promise.all(pending.splice(0));
    },
  };
}

/**
 * One delivery of these messages to the worker's queue() handler for `webhook-deliveries` (under `workerEnv`: a
 * copy of env with other secrets is a restarted Worker).
 */
export async function deliverWebhookMessages(bodies: WebhookMessage[], queue: Queue, workerEnv: Cloudflare.Env = env) {
  const acked: number[] = [];
  const retried: number[] = [];
  const batch: MessageBatch<unknown> = {
    queue: "webhook-deliveries",
    messages: bodies.map((body, i) => ({
      id: `m${i}`,
      timestamp: new Date(),
      attempts: 1,
      body,
      ack: () => void acked.push(i),
      retry: () => void retried.push(i),
    })),
    metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } },
    ackAll: () => {},
    retryAll: () => {},
  };
  const ctx = createExecutionContext();
  await worker.queue!(batch, { ...workerEnv, WEBHOOK_QUEUE: queue }, ctx);
  await waitOnExecutionContext(ctx);
  return { acked, retried };
}

export const readDeliveries = (endpointId: string) =>
  env.DB.prepare(
    "SELECT id, event_id, status, attempts, next_attempt_at, response_status, response_excerpt, error FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY created_at, rowid",
  )
    .bind(endpointId)
    .all<{
      id: string;
      event_id: string;
      status: string;
      attempts: number;
      next_attempt_at: number | null;
      response_status: number | null;
      response_excerpt: string | null;
      error: string | null;
    }>()
    .then((r) => r.results);

export const readEvents = (workspaceId: string) =>
  env.DB.prepare("SELECT id, type, dispatched_at FROM webhook_events WHERE workspace_id = ? ORDER BY created_at, rowid")
    .bind(workspaceId)
    .all<{ id: string; type: string; dispatched_at: number | null }>()
    .then((r) => r.results);
