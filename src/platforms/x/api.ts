import { platformFetch, readJson, retryAfterSeconds } from "../http";
import { type AdapterContext, PlatformError } from "../types";
import { problemText, resetSeconds } from "./transform";
import type { XProblem } from "./types";

const LABEL = "X";

export interface XCall {
  path: string;
  token: string;
  method?: string;
  query?: Record<string, string>;
  json?: unknown;
  form?: FormData;
  timeoutMs?: number;
}

export async function xRaw(actx: AdapterContext, call: XCall): Promise<Response> {
  const url = new URL(`${actx.config.X_API_URL}${call.path}`);
  for (const [k, v] of Object.entries(call.query ?? {})) url.searchParams.set(k, v);
  const headers: Record<string, string> = { Authorization: `Bearer ${call.token}`, Accept: "application/json" };
  let body: BodyInit | undefined = call.form;
  if (call.json !== undefined) {
    body = JSON.stringify(call.json);
    headers["Content-Type"] = "application/json";
  }
  return platformFetch(
    actx.fetch,
    LABEL,
    url.toString(),
    { method: call.method ?? (body === undefined ? "GET" : "POST"), headers, body },
    call.timeoutMs,
  );
}

export async function x<T>(actx: AdapterContext, call: XCall): Promise<T> {
  const res = await xRaw(actx, call);
  if (!res.ok) throw await xError(res, actx.now());
  return ((await readJson<T>(res)) ?? {}) as T;
}

/**
 * X failures: 401 token rejected; 429 with `x-rate-limit-reset` (epoch seconds, no Retry-After); 5xx transient;
 * 400/403 the platform's refusal (duplicate content, invalid media, …) in its own words.
 */
export async function xError(res: Response, now: number): Promise<PlatformError> {
  const body = await readJson<XProblem>(res);
  const reason = problemText(body, res.status);
  if (res.status === 401) return new PlatformError("auth", `X rejected the access token: ${reason}`, { status: 401 });
  if (res.status === 429) {
    const wait = retryAfterSeconds(res.headers, now) ?? resetSeconds(res.headers, now);
    return new PlatformError("transient", "X rate limit exceeded.", { status: 429, retryAfterSeconds: wait });
  }
  if (res.status >= 500)
    return new PlatformError("transient", `X is unavailable (HTTP ${res.status}).`, { status: res.status });
  return new PlatformError("permanent", `X refused the post: ${reason}`, { status: res.status });
}

/** Re-chunks a byte stream into pieces of exactly `size` bytes (the last may be shorter). */
export async function* fixedChunks(stream: ReadableStream<Uint8Array>, size: number): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  let buffer = new Uint8Array(size);
  let filled = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    let offset = 0;
    while (offset < value.byteLength) {
      const take = Math.min(size - filled, value.byteLength - offset);
      buffer.set(value.subarray(offset, offset + take), filled);
      filled += take;
      offset += take;
      if (filled === size) {
        yield buffer;
        buffer = new Uint8Array(size);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield buffer.subarray(0, filled);
}
