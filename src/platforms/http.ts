import { guardedFetch, OutboundRefusedError } from "../lib/outbound-guard";
import { type AdapterContext, PlatformError } from "./types";

/** Shared HTTP helpers for adapters: reading bodies safely and turning throttle hints into seconds. */

/** Seconds to wait from `Retry-After` (seconds or HTTP date). */
export function retryAfterSeconds(headers: Headers, nowMs: number): number | undefined {
  const value = headers.get("retry-after");
  if (!value) return undefined;
  const n = Number(value);
  if (Number.isFinite(n)) return Math.max(0, Math.ceil(n));
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/** Seconds until a reset given as epoch seconds (X `x-rate-limit-reset`, Bluesky `ratelimit-reset`). */
export function secondsUntilEpoch(epochSeconds: string | null, nowMs: number): number | undefined {
  if (!epochSeconds) return undefined;
  const n = Number(epochSeconds);
  return Number.isFinite(n) ? Math.max(0, Math.ceil(n - nowMs / 1000)) : undefined;
}

/** Seconds until a reset given as an ISO 8601 time (Mastodon `X-RateLimit-Reset`). */
export function secondsUntilIso(iso: string | null, nowMs: number): number | undefined {
  if (!iso) return undefined;
  const at = Date.parse(iso);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

export async function readJson<T = any>(res: Response): Promise<T | null> {
  const text = await res.text().catch(() => "");
  if (!text) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

/** Wraps fetch so network failures and timeouts become transient PlatformErrors. */
export async function platformFetch(
  fetcher: typeof fetch,
  platformLabel: string,
  input: string,
  init: RequestInit = {},
  timeoutMs = 30_000,
): Promise<Response> {
  try {
    return await fetcher(input, { ...init, signal: init.signal ?? AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const reason = err instanceof Error && err.name === "TimeoutError" ? "timed out" : "could not be reached";
    throw new PlatformError("transient", `${platformLabel} ${reason}.`);
  }
}

/** Answers of a platform's JSON API are read whole; past this size the answer is not what the API promises. */
export const PLATFORM_RESPONSE_MAX_BYTES = 1024 * 1024;

/**
 * `platformFetch` for hosts the account chose (Bluesky PDS and video service, Mastodon instance): the shared
 * outbound guard checks every hop (public addresses, ports 80/443, at most 3 redirects; docs/security.md) and bounds
 * the answer's size. A refused address fails the row for good; a timeout or unreachable host is transient.
 */
export async function guardedPlatformFetch(
  actx: AdapterContext,
  platformLabel: string,
  input: string,
  init: RequestInit = {},
  timeoutMs = 30_000,
): Promise<Response> {
  try {
    return await guardedFetch(input, init, {
      allowPrivate: actx.config.MEDIA_FETCH_ALLOW_PRIVATE,
      timeoutMs,
      maxResponseBytes: PLATFORM_RESPONSE_MAX_BYTES,
      fetcher: actx.fetch,
    });
  } catch (err) {
    if (!(err instanceof OutboundRefusedError)) throw err;
    if (err.kind === "refused" || err.kind === "redirects")
      throw new PlatformError("permanent", `The ${platformLabel} server address is not allowed: ${err.message}`);
    const reason = err.kind === "timeout" ? "timed out" : "could not be reached";
    throw new PlatformError("transient", `${platformLabel} ${reason}.`);
  }
}

/** Default classification of an HTTP failure when a platform has nothing more specific. */
export function classifyStatus(status: number): "transient" | "permanent" | "auth" {
  if (status === 401) return "auth";
  if (status === 429 || status >= 500) return "transient";
  return "permanent";
}
