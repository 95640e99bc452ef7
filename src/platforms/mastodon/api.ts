import { guardedPlatformFetch, readJson, retryAfterSeconds, secondsUntilIso } from "../http";
import { type AdapterContext, PlatformError } from "../types";
import { multipartParts } from "./transform";
import type { MastodonError } from "./types";

const LABEL = "Mastodon";

export interface MastodonCall {
  instance: string;
  path: string;
  token: string;
  method?: string;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export async function mastodonRaw(actx: AdapterContext, call: MastodonCall): Promise<Response> {
  const headers: Record<string, string> = { Authorization: `Bearer ${call.token}`, Accept: "application/json" };
  let body = call.body;
  if (call.json !== undefined) {
    body = JSON.stringify(call.json);
    headers["Content-Type"] = "application/json";
  }
  return guardedPlatformFetch(
    actx,
    LABEL,
    `${call.instance}${call.path}`,
    { method: call.method ?? (body === undefined ? "GET" : "POST"), headers: { ...headers, ...call.headers }, body },
    call.timeoutMs,
  );
}

export async function mastodon<T>(actx: AdapterContext, call: MastodonCall): Promise<{ status: number; body: T }> {
  const res = await mastodonRaw(actx, call);
  if (!res.ok) throw await mastodonError(res, actx.now());
  return { status: res.status, body: (await readJson<T>(res)) as T };
}

const NOT_PROCESSED = /not finished processing/i;

/**
 * Mastodon errors are `{"error": "..."}`: 401 invalid token (no refresh exists: reconnect), 422 validation (except
 * "media not finished processing", which is worth a retry), 429 with `X-RateLimit-Reset` as ISO 8601, 5xx.
 */
export async function mastodonError(res: Response, now: number): Promise<PlatformError> {
  const body = (await readJson<MastodonError>(res)) ?? {};
  const reason = body.error_description || body.error || `HTTP ${res.status}`;
  if (res.status === 401)
    return new PlatformError("auth", `Mastodon rejected the access token: ${reason}`, { status: 401 });
  if (res.status === 429) {
    const wait = retryAfterSeconds(res.headers, now) ?? secondsUntilIso(res.headers.get("x-ratelimit-reset"), now);
    return new PlatformError("transient", "Mastodon rate limit exceeded.", { status: 429, retryAfterSeconds: wait });
  }
  if (res.status >= 500) {
    return new PlatformError("transient", `Mastodon is unavailable (HTTP ${res.status}).`, { status: res.status });
  }
  if (res.status === 422 && NOT_PROCESSED.test(reason)) {
    return new PlatformError("transient", `Mastodon: ${reason}`, { status: 422, retryAfterSeconds: 10 });
  }
  return new PlatformError("permanent", `Mastodon refused the post: ${reason}`, { status: res.status });
}

/** A streamed multipart body with an exact length (FixedLengthStream gives the request its Content-Length). */
export function streamingMultipart(
  fields: Record<string, string>,
  file: { field: string; filename: string; contentType: string; body: ReadableStream<Uint8Array>; size: number },
): { body: ReadableStream<Uint8Array>; contentType: string } {
  const boundary = `----esp${crypto.randomUUID().replace(/-/g, "")}`;
  const { head, tail } = multipartParts(boundary, fields, file);
  const { readable, writable } = new FixedLengthStream(head.byteLength + file.size + tail.byteLength);
  const pump = async () => {
    const writer = writable.getWriter();
    try {
      await writer.write(head);
      const reader = file.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        await writer.write(value);
      }
      await writer.write(tail);
      await writer.close();
    } catch (err) {
      await writer.abort(err).catch(() => {});
    }
  };
  void pump();
  return { body: readable, contentType: `multipart/form-data; boundary=${boundary}` };
}
