import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { workerFetch } from "./worker-fetch";

/** Every test makes its own workspace and key through the public bootstrap endpoint. */
export const BASE = "https://api.test";

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * The client address of a request that names none: one per test file. Test files share a workerd runtime
 * (vitest.config.ts), and with it the per-IP windows (signed uploads, hosted connect pages); a file of its own address
 * counts against its own windows, as when each file had a fresh runtime.
 */
export function fileClientIp(): string {
  let h = 0;
  for (const ch of expect.getState().testPath ?? "") h = (Math.imul(h, 31) + ch.charCodeAt(0)) >>> 0;
  return `10.${(h >>> 16) & 255}.${(h >>> 8) & 255}.${h & 255}`;
}

export async function call<T = any>(
  method: string,
  path: string,
  opts: {
    key?: string | null;
    body?: unknown;
    rawBody?: BodyInit;
    headers?: Record<string, string>;
    /** The Worker's bindings when not the suite's (see workerFetch). */
    env?: Cloudflare.Env;
  } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { "CF-Connecting-IP": fileClientIp(), ...opts.headers };
  if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
  let body: BodyInit | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["Content-Type"] ??= "application/json";
  }
  const res = await workerFetch(new Request(`${BASE}${path}`, { method, headers, body }), opts.env);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // non-JSON body stays text
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export interface TestWorkspace {
  workspaceId: string;
  key: string;
  keyId: string;
  api: <T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ) => Promise<ApiResponse<T>>;
}

let counter = 0;
export async function createTestWorkspace(name = `Workspace ${++counter}`): Promise<TestWorkspace> {
  const res = await call("POST", "/api/admin/workspaces", {
    body: { name },
    headers: { Authorization: `Bearer ${env.ADMIN_TOKEN}` },
  });
  if (res.status !== 201) throw new Error(`bootstrap failed: ${res.status} ${res.text}`);
  const key = res.body.plain_token as string;
  return {
    workspaceId: res.body.workspace.id,
    key,
    keyId: res.body.token.id,
    api: (method, path, body, headers) => call(method, path, { key, body, headers }),
  };
}

/** Matches the `Y-m-d H:i:s` format. */
export const YMDHIS = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
export const ISO_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The 201 body of a new API key: the key as `GET /api/api-keys` lists it (full scope unless `key` says otherwise)
 * and its plain token, shown this once.
 */
export function newApiKeyBody(key: { name: string; expires_at: string | null; scopes?: string[] }) {
  return {
    token: {
      id: expect.stringMatching(UUID),
      name: key.name,
      last_used_at: null,
      expires_at: key.expires_at,
      created_at: expect.stringMatching(ISO_OFFSET),
      scopes: key.scopes ?? ["full"],
    },
    plain_token: expect.stringMatching(/^esp_[A-Za-z0-9_-]{43}$/),
  };
}

/**
 * Polls until `check` holds (work after a response, a queue consumer), failing after `ms`: a deadline, not a
 * number of tries, so a slow machine only makes it wait longer.
 */
export async function waitFor(check: () => boolean | Promise<boolean>, ms = 8000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await scheduler.wait(25);
  }
}

/** SQLite's plan for a query builder's statement on the test D1, its steps joined by " | " (which index it uses). */
export async function queryPlan(query: { toSQL(): { sql: string; params: unknown[] } }): Promise<string> {
  const { sql, params } = query.toSQL();
  const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .bind(...params)
    .all<{ detail: string }>();
  return plan.results.map((r) => r.detail).join(" | ");
}
