import { guardedPlatformFetch, readJson, retryAfterSeconds, secondsUntilEpoch } from "../http";
import { type AdapterContext, PlatformError } from "../types";
import type { XrpcErrorBody } from "./types";

/** XRPC client: one call = one NSID on a host (the account's PDS, the AppView, or the video service). */

const LABEL = "Bluesky";
const AUTH_ERRORS = new Set(["ExpiredToken", "InvalidToken", "AuthenticationRequired", "AuthMissing"]);

export interface XrpcCall {
  host: string;
  nsid: string;
  method?: "GET" | "POST";
  token?: string;
  query?: Record<string, string | string[]>;
  json?: unknown;
  body?: BodyInit;
  contentType?: string;
  timeoutMs?: number;
}

export function xrpcUrl(host: string, nsid: string, query: Record<string, string | string[]> = {}): string {
  const url = new URL(`${host}/xrpc/${nsid}`);
  for (const [k, v] of Object.entries(query)) {
    for (const item of Array.isArray(v) ? v : [v]) url.searchParams.append(k, item);
  }
  return url.toString();
}

export async function xrpcRaw(actx: AdapterContext, call: XrpcCall): Promise<Response> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (call.token) headers.Authorization = `Bearer ${call.token}`;
  let body = call.body;
  if (call.json !== undefined) {
    body = JSON.stringify(call.json);
    headers["Content-Type"] = "application/json";
  } else if (call.contentType) headers["Content-Type"] = call.contentType;
  return guardedPlatformFetch(
    actx,
    LABEL,
    xrpcUrl(call.host, call.nsid, call.query),
    { method: call.method ?? (body === undefined ? "GET" : "POST"), headers, body },
    call.timeoutMs,
  );
}

export async function xrpc<T>(actx: AdapterContext, call: XrpcCall): Promise<T> {
  const res = await xrpcRaw(actx, call);
  if (!res.ok) throw await xrpcError(res, actx.now());
  return ((await readJson<T>(res)) ?? {}) as T;
}

/**
 * XRPC failures: expired/invalid tokens come back as 400 `ExpiredToken`/`InvalidToken` (not 401); 429 carries
 * `retry-after` and `ratelimit-reset` (epoch seconds); 5xx is transient; other 4xx are the platform's refusal.
 */
export async function xrpcError(res: Response, now: number): Promise<PlatformError> {
  return xrpcErrorFrom(res.status, res.headers, (await readJson<XrpcErrorBody>(res)) ?? {}, now);
}

export function xrpcErrorFrom(status: number, headers: Headers, body: XrpcErrorBody, now: number): PlatformError {
  const res = { status, headers };
  const reason = body.message || body.error || `HTTP ${res.status}`;
  if (res.status === 401 || (body.error && AUTH_ERRORS.has(body.error))) {
    return new PlatformError("auth", `Bluesky rejected the session: ${reason}`, { status: res.status });
  }
  if (res.status === 429) {
    const wait = retryAfterSeconds(res.headers, now) ?? secondsUntilEpoch(res.headers.get("ratelimit-reset"), now);
    return new PlatformError("transient", "Bluesky rate limit exceeded.", { status: 429, retryAfterSeconds: wait });
  }
  if (res.status >= 500) {
    return new PlatformError("transient", `Bluesky is unavailable (HTTP ${res.status}): ${reason}`, {
      status: res.status,
    });
  }
  return new PlatformError("permanent", `Bluesky refused the post: ${reason}`, { status: res.status });
}
