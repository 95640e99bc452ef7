/**
 * Small building blocks for platform fakes: a call recorder (what each fake received) and scripted one-off
 * answers ("the next POST /v5/pins answers 429"), so tests can inject failures into an otherwise realistic fake.
 */

import { expect } from "vitest";
import type { PlatformError } from "../../../src/platforms/types";

export interface RecordedCall {
  method: string;
  /** Path and query, e.g. `/v2/post/publish/video/init/` or `/upload/youtube/v3/videos?uploadType=resumable`. */
  path: string;
  /** The headers that matter to the platform, lower-case, only when present. */
  headers: Record<string, string>;
  /** Parsed JSON body. */
  json?: unknown;
  /** Parsed form body (urlencoded or multipart text fields). */
  form?: Record<string, string>;
  /** Size of a binary body (uploads). */
  bytes?: number;
}

const RECORDED_HEADERS = [
  "authorization",
  "content-type",
  "content-range",
  "content-length",
  "x-upload-content-type",
  "x-upload-content-length",
];

export function pickHeaders(request: Request, names: string[] = RECORDED_HEADERS): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = request.headers.get(name);
    if (value !== null) out[name] = value;
  }
  return out;
}

export function pathOf(request: Request): string {
  const url = new URL(request.url);
  return url.pathname + url.search;
}

type Scripted = {
  method: string;
  path: string;
  respond: (request: Request) => Response | Promise<Response>;
  skip: number;
};

/** One-off answers consumed in order, matched by method and pathname (query ignored). */
export class Script {
  #queue: Scripted[] = [];

  /**
   * The next `times` matching requests get `respond`'s answer instead of the fake's normal one; with `skip`,
   * the first `skip` matching requests are answered normally before that ("the second chunk PUT fails").
   */
  add(
    method: string,
    path: string,
    respond: (request: Request) => Response | Promise<Response>,
    times = 1,
    { skip = 0 }: { skip?: number } = {},
  ): void {
    for (let i = 0; i < times; i++) this.#queue.push({ method, path, respond, skip: i === 0 ? skip : 0 });
  }

  take(request: Request): Scripted["respond"] | undefined {
    const pathname = new URL(request.url).pathname;
    const index = this.#queue.findIndex((s) => s.method === request.method && s.path === pathname);
    if (index < 0) return undefined;
    const entry = this.#queue[index]!;
    if (entry.skip > 0) {
      entry.skip--;
      return undefined;
    }
    return this.#queue.splice(index, 1)[0]!.respond;
  }
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=UTF-8", ...headers },
  });
}

/** Deterministic pseudo-random bytes for test media (fast, no crypto). */
export function testBytes(size: number, seed = 7): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out[i] = x >>> 16;
  }
  return out;
}

/** Hex SHA-256 of bytes: compare uploads by digest (toEqual on megabytes of bytes is slow and memory-hungry). */
export async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Text fields of a parsed form (urlencoded or multipart); files are skipped. */
export function formFields(form: FormData): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of form.entries()) if (typeof value === "string") out[name] = value;
  return out;
}

/** What a promise rejected with; fails the test if it resolved. */
function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e) => e,
  );
}

/** The PlatformError a rejected adapter call threw (anything else fails the test). */
export async function platformFailure(promise: Promise<unknown>): Promise<PlatformError> {
  const err = (await rejectionOf(promise)) as Error;
  expect(err.name).toBe("PlatformError");
  return err as PlatformError;
}

/** What a rejected adapter call threw, as a plain object tests can compare whole. */
export async function platformRejection(
  promise: Promise<unknown>,
): Promise<Pick<PlatformError, "name" | "kind" | "message" | "retryAfterSeconds" | "status">> {
  const err = (await rejectionOf(promise)) as PlatformError;
  return {
    name: err.name,
    kind: err.kind,
    message: err.message,
    retryAfterSeconds: err.retryAfterSeconds,
    status: err.status,
  };
}
