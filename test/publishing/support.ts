import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  getQueueResult,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, vi } from "vitest";
import { loadConfig } from "../../src/config";
import worker from "../../src/index";
import type { PublishMessage } from "../../src/publishing/messages";
import type { ClaimMessage } from "../../src/publishing/scheduler";
import { type AccountCredentials, sealCredentials } from "../../src/services/social-accounts/credentials";
import { createTestWorkspace, type TestWorkspace } from "../support/harness";

/**
 * Fixtures for the publishing tests: accounts with sealed credentials, posts and rows written straight into D1
 * (the posts API lives on another branch), and the worker's own `scheduled()` and `queue()` handlers.
 */

const config = () => loadConfig(env);

export interface SeedAccount {
  platform: string;
  credentials: AccountCredentials;
  meta?: Record<string, unknown>;
  username?: string;
  platformUserId?: string | null;
  isActive?: boolean;
  status?: "connected" | "disconnected" | "token_expired";
  tokenExpiresAt?: number | null;
}

/** Connects an account through the API (`POST /api/social-accounts`, 201 expected); its id. */
export async function connectThroughApi(ws: TestWorkspace, body: unknown): Promise<string> {
  const res = await ws.api("POST", "/api/social-accounts", body);
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

export async function seedAccount(ws: TestWorkspace, a: SeedAccount): Promise<string> {
  const id = crypto.randomUUID();
  const now = Date.now();
  await env.DB.prepare(
    `INSERT INTO social_accounts (id, workspace_id, platform, platform_user_id, display_name, username, avatar_url,
       is_active, status, credentials, token_expires_at, meta, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?)`,
  )
    .bind(
      id,
      ws.workspaceId,
      a.platform,
      a.platformUserId === undefined ? "1234567890" : a.platformUserId,
      `${a.platform} account`,
      a.username ?? "tester",
      a.isActive === false ? 0 : 1,
      a.status ?? "connected",
      a.status === "disconnected" ? null : await sealCredentials({ config: config() }, id, a.credentials),
      a.tokenExpiresAt ?? null,
      JSON.stringify(a.meta ?? {}),
      now,
      now,
    )
    .run();
  return id;
}

export interface SeedRow {
  accountId: string;
  platform: string;
  contentType: string;
  meta?: Record<string, unknown>;
  enabled?: boolean;
}

export interface SeededPost {
  postId: string;
  rowIds: string[];
  messages: PublishMessage[];
}

export async function seedPost(
  ws: TestWorkspace,
  p: { content: string; status?: string; scheduledAt?: number | null; rows: SeedRow[]; mediaIds?: string[] },
): Promise<SeededPost> {
  const postId = crypto.randomUUID();
  const now = Date.now();
  const stmts = [
    env.DB.prepare(
      "INSERT INTO posts (id, workspace_id, content, status, scheduled_at, published_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)",
    ).bind(postId, ws.workspaceId, p.content, p.status ?? "publishing", p.scheduledAt ?? null, now, now),
  ];
  const rowIds = p.rows.map(() => crypto.randomUUID());
  p.rows.forEach((r, i) => {
    stmts.push(
      env.DB.prepare(
        `INSERT INTO post_platforms (id, post_id, social_account_id, platform, content_type, status, enabled, meta,
           display_name, display_username, display_avatar, attempts, position, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, '', 0, ?, ?, ?)`,
      ).bind(
        rowIds[i]!,
        postId,
        r.accountId,
        r.platform,
        r.contentType,
        r.enabled === false ? 0 : 1,
        JSON.stringify(r.meta ?? {}),
        `${r.platform} account`,
        "tester",
        i,
        now,
        now,
      ),
    );
  });
  (p.mediaIds ?? []).forEach((mediaId, i) => {
    stmts.push(
      env.DB.prepare("INSERT INTO post_media (post_id, media_id, position) VALUES (?, ?, ?)").bind(postId, mediaId, i),
    );
  });
  await env.DB.batch(stmts);
  const messages = rowIds
    .filter((_, i) => p.rows[i]!.enabled !== false)
    .map((id) => ({ post_platform_id: id, post_id: postId, workspace_id: ws.workspaceId }));
  return { postId, rowIds, messages };
}

/** A media row of the workspace with its bytes in R2. */
export async function seedMedia(
  ws: TestWorkspace,
  type: "image" | "video",
  opts: { bytes?: Uint8Array; mimeType?: string; width?: number | null; height?: number | null } = {},
): Promise<string> {
  const id = crypto.randomUUID();
  const mimeType = opts.mimeType ?? (type === "image" ? "image/jpeg" : "video/mp4");
  const ext = mimeType === "image/gif" ? "gif" : type === "image" ? "jpg" : "mp4";
  const path = `medias/${id}.${ext}`;
  const bytes = opts.bytes ?? new Uint8Array(type === "image" ? 2048 : 3 * 1024 * 1024 + 17).fill(7);
  await env.MEDIA_BUCKET.put(path, bytes, { httpMetadata: { contentType: mimeType } });
  await env.DB.prepare(
    "INSERT INTO media (id, workspace_id, path, type, mime_type, original_filename, size, width, height, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  )
    .bind(
      id,
      ws.workspaceId,
      path,
      type,
      mimeType,
      `file.${ext}`,
      bytes.byteLength,
      opts.width ?? (type === "image" ? 1200 : 1080),
      opts.height ?? (type === "image" ? 800 : 1920),
      Date.now(),
    )
    .run();
  return id;
}

export interface QueueResult {
  outcome: string;
  ackAll: boolean;
  retryBatch: { retry: boolean; delaySeconds?: number };
  explicitAcks: string[];
  retryMessages: { msgId: string; delaySeconds?: number }[];
}

/**
 * One delivery of these messages to the worker's queue() handler, through the runtime's own MessageBatch
 * (createMessageBatch + getQueueResult). The runtime's result does not report retry delays; see `deliver`.
 */
export async function deliverThroughRuntime(
  bodies: unknown[],
  opts: { attempts?: number; queue?: string } = {},
): Promise<QueueResult> {
  const batch = createMessageBatch(
    opts.queue ?? "publish-jobs",
    bodies.map((body, i) => ({ id: `msg-${i}`, timestamp: new Date(), attempts: opts.attempts ?? 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue!(batch as MessageBatch<unknown>, env, ctx);
  return (await getQueueResult(batch, ctx)) as unknown as QueueResult;
}

/**
 * One delivery of these messages to the worker's queue() handler with a MessageBatch that records each message's
 * ack or retry and the retry delay asked for.
 */
export async function deliver(
  bodies: unknown[],
  opts: { attempts?: number; queue?: string; env?: Cloudflare.Env } = {},
): Promise<QueueResult> {
  const result: QueueResult = {
    outcome: "ok",
    ackAll: false,
    retryBatch: { retry: false },
    explicitAcks: [],
    retryMessages: [],
  };
  const messages = bodies.map((body, i) => ({
    id: `msg-${i}`,
    timestamp: new Date(),
    attempts: opts.attempts ?? 1,
    body,
    ack: () => void result.explicitAcks.push(`msg-${i}`),
    retry: (o?: QueueRetryOptions) =>
      void result.retryMessages.push({ msgId: `msg-${i}`, delaySeconds: o?.delaySeconds }),
  }));
  const batch: MessageBatch<unknown> = {
    queue: opts.queue ?? "publish-jobs",
    messages,
    metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } },
    ackAll: () => {
      result.ackAll = true;
    },
    retryAll: (o?: QueueRetryOptions) => {
      result.retryBatch = { retry: true, delaySeconds: o?.delaySeconds };
    },
  };
  const ctx = createExecutionContext();
  await worker.queue!(batch, opts.env ?? env, ctx);
  await waitOnExecutionContext(ctx);
  return result;
}

/**
 * Delivers until every message is acked, feeding retries back with their attempt count (the queue's behaviour,
 * minus the delay). Returns the retry delays asked for, in order.
 */
export async function deliverUntilSettled(bodies: PublishMessage[], maxAttempts = 6): Promise<number[]> {
  const delays: number[] = [];
  let pending = bodies;
  for (let attempt = 1; pending.length > 0 && attempt <= maxAttempts; attempt++) {
    const result = await deliver(pending, { attempts: attempt });
    const retried = new Set(result.retryMessages.map((r) => r.msgId));
    for (const r of result.retryMessages) delays.push(r.delaySeconds ?? 0);
    pending = pending.filter((_, i) => retried.has(`msg-${i}`));
  }
  return delays;
}

/**
 * A PUBLISH_QUEUE that records what the scheduler sends instead of handing it to the local queue (whose consumer
 * would run in the background of later tests).
 */
export function recordingQueue() {
  const sent: PublishMessage[] = [];
  const sendCalls: number[] = [];
  const queue = {
    async send(body: PublishMessage) {
      sent.push(body);
    },
    async sendBatch(messages: Iterable<{ body: PublishMessage }>) {
      const list = [...messages];
      sendCalls.push(list.length);
      for (const m of list) sent.push(m.body);
    },
  } as unknown as Queue;
  return { queue, sent, sendCalls };
}

/** A CLAIM_QUEUE that records the scheduler's fanned-out claim messages. */
export function recordingClaimQueue() {
  const sent: ClaimMessage[] = [];
  const queue = {
    async sendBatch(messages: Iterable<{ body: ClaimMessage }>) {
      for (const m of messages) sent.push(m.body);
    },
  } as unknown as Queue;
  return { queue, sent };
}

/**
 * One tick of the worker's scheduled() handler, then its fanned-out claims delivered to the publish-claims consumer
 * as the queue would (batches of 10, concurrently); returns the publish messages enqueued by both. `baseEnv`: the
 * bindings the Worker runs with (default the test env).
 */
export async function tick(
  recorder = recordingQueue(),
  claims = recordingClaimQueue(),
  baseEnv: Cloudflare.Env = env,
): Promise<PublishMessage[]> {
  const ctx = createExecutionContext();
  const tickEnv = { ...baseEnv, PUBLISH_QUEUE: recorder.queue, CLAIM_QUEUE: claims.queue };
  await worker.scheduled!(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), tickEnv, ctx);
  await waitOnExecutionContext(ctx);
  const batches: ClaimMessage[][] = [];
  for (let i = 0; i < claims.sent.length; i += 10) batches.push(claims.sent.slice(i, i + 10));
  await Promise.all(
    batches.map(async (bodies, b) => {
      const retried: string[] = [];
      const batch: MessageBatch<unknown> = {
        queue: "publish-claims",
        messages: bodies.map((body, i) => ({
          id: `claim-${b}-${i}`,
          timestamp: new Date(),
          attempts: 1,
          body,
          ack: () => {},
          retry: () => void retried.push(`claim-${b}-${i}`),
        })),
        metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } },
        ackAll: () => {},
        retryAll: () => void retried.push("all"),
      };
      const claimCtx = createExecutionContext();
      await worker.queue!(batch, tickEnv, claimCtx);
      await waitOnExecutionContext(claimCtx);
      if (retried.length > 0) throw new Error(`claim messages retried: ${retried.join(", ")}`);
    }),
  );
  return recorder.sent;
}

export const readRow = (id: string) =>
  env.DB.prepare(
    "SELECT status, platform_post_id, platform_url, published_at, error_message, attempts, claimed_at FROM post_platforms WHERE id = ?",
  )
    .bind(id)
    .first<{
      status: string;
      platform_post_id: string | null;
      platform_url: string | null;
      published_at: number | null;
      error_message: string | null;
      attempts: number;
      claimed_at: number | null;
    }>();

export const readPost = (id: string) =>
  env.DB.prepare("SELECT status, published_at FROM posts WHERE id = ?")
    .bind(id)
    .first<{ status: string; published_at: number | null }>();

export const readAccount = (id: string) =>
  env.DB.prepare("SELECT status, is_active, token_expires_at, credentials FROM social_accounts WHERE id = ?")
    .bind(id)
    .first<{ status: string; is_active: number; token_expires_at: number | null; credentials: string | null }>();

export async function openAccountCredentials(id: string): Promise<AccountCredentials> {
  const { openCredentials } = await import("../../src/services/social-accounts/credentials");
  const row = await readAccount(id);
  return openCredentials({ config: config() }, id, row!.credentials!);
}

export { createTestWorkspace };

/**
 * The queue path uses the engine's real adapter context, whose waits are setTimeout: processing polls and in-place
 * retries wait seconds. Those (1 s and more) are made instant; shorter ones keep their time. Undo with
 * `vi.unstubAllGlobals()` after the test.
 */
export function instantLongWaits(): void {
  const realSetTimeout = globalThis.setTimeout;
  vi.stubGlobal("setTimeout", ((fn: () => void, ms?: number) =>
    ms && ms >= 1000 ? realSetTimeout(fn, 0) : realSetTimeout(fn, ms)) as typeof setTimeout);
}
