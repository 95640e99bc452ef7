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

/** X's problem types for billing (docs.x.com/x-api/fundamentals/response-codes-and-errors; shapes as X sends them). */
const CREDITS_DEPLETED = /\/problems\/credits-depleted$/;
const USAGE_CAPPED = /\/problems\/usage-capped$/;
/**
 * 403s a reconnect heals (docs/account-health.md): `…/problems/unsupported-authentication` — the token is not a
 * user-context token this endpoint takes (docs.x.com/x-api/fundamentals/response-codes-and-errors, "Error types";
 * docs.x.com/fundamentals/authentication) — and `…/problems/oauth1-permissions`, "Your client app is not configured
 * with the appropriate oauth1 app permissions for this endpoint.": the token was granted while the app could only
 * read; after the app is set to "Read and write" the member must authorize it again (X's answer to POST /2/tweets as
 * integrators quote it; the types list of the page above does not name it). Other 403s — duplicate content, a
 * deleted parent, `client-forbidden` (the app's access tier, which a reconnect cannot change) — are not.
 */
const NEEDS_RECONNECT = /\/problems\/(unsupported-authentication|oauth1-permissions)$/;

export const X_CREDITS_DEPLETED_MESSAGE =
  "X refused the request: the X developer account has no API credits left (HTTP 402, credits depleted). Add credits in the X Developer Console (console.x.com), then publish again; nothing was posted.";

/**
 * X failures: 401 token rejected; 429 with `x-rate-limit-reset` (epoch seconds, no Retry-After); 5xx transient;
 * 400/403 the platform's refusal (duplicate content, invalid media, …) in its own words. Billing is not a rate
 * limit and says so: a pay-per-use account out of credits (402 `…/problems/credits-depleted`) and a spent monthly
 * usage cap (429 `UsageCapExceeded`, `…/problems/usage-capped`, `period: "Monthly"`) are permanent — waiting minutes
 * does not heal them —, while a spent daily usage cap (`period: "Daily"`) and a spent 24-hour post limit (429 with
 * `x-user-limit-24hour-remaining: 0` or the app's) wait for their reset.
 */
export async function xError(res: Response, now: number): Promise<PlatformError> {
  const body = await readJson<XProblem>(res);
  const reason = problemText(body, res.status);
  if (CREDITS_DEPLETED.test(body?.type ?? "") || (res.status === 402 && /credit/i.test(reason))) {
    return new PlatformError("permanent", X_CREDITS_DEPLETED_MESSAGE, { status: res.status });
  }
  if (res.status === 402) {
    return new PlatformError("permanent", `X refused the request: payment required (HTTP 402): ${reason}`, {
      status: 402,
    });
  }
  if (res.status === 401) return new PlatformError("auth", `X rejected the access token: ${reason}`, { status: 401 });
  if (USAGE_CAPPED.test(body?.type ?? "") || body?.title === "UsageCapExceeded") {
    const cap = [body?.period, body?.scope].filter(Boolean).join(" ").toLowerCase();
    // X's OpenAPI (api.x.com/2/openapi.json, `UsageCapExceededProblem`): `period` is "Daily" or "Monthly", `scope`
    // "Account" or "Product". A daily cap heals within a day: the row waits for it (transient, with the reset time)
    // instead of being told to wait for the next billing period.
    if (/^daily$/i.test(body?.period ?? "")) {
      const resetAt = dailyCapResetAt(res.headers, now);
      const wait = Math.ceil((resetAt - now) / 1000);
      const at = new Date(resetAt).toISOString();
      return new PlatformError(
        "transient",
        `X's ${cap} usage cap is used up (UsageCapExceeded: "${reason}"): X takes these requests again when the daily cap resets, by ${at}; the post is tried again then (publish it again after that time if its retries are spent); nothing was posted.`,
        { status: res.status, retryAfterSeconds: wait },
      );
    }
    return new PlatformError(
      "permanent",
      `X's ${cap ? `${cap} ` : ""}usage cap is used up (UsageCapExceeded: "${reason}"): X takes no more of these requests from this app until the cap resets with the next billing period or is raised in the X Developer Console; nothing was posted.`,
      { status: res.status },
    );
  }
  if (res.status === 429) {
    const wait = retryAfterSeconds(res.headers, now) ?? resetSeconds(res.headers, now);
    const daily = dailyLimitSpent(res.headers);
    if (daily) {
      const at = Number(res.headers.get(`x-${daily}-limit-24hour-reset`));
      const when = Number.isFinite(at) && at > 0 ? ` (it resets at ${new Date(at * 1000).toISOString()})` : "";
      return new PlatformError(
        "transient",
        `X's 24-hour post limit for this ${daily === "user" ? "account" : "app"} is used up${when}; the post waits for it.`,
        { status: 429, retryAfterSeconds: wait },
      );
    }
    return new PlatformError("transient", "X rate limit exceeded.", { status: 429, retryAfterSeconds: wait });
  }
  if (res.status >= 500)
    return new PlatformError("transient", `X is unavailable (HTTP ${res.status}).`, { status: res.status });
  const needsReconnect = res.status === 403 && NEEDS_RECONNECT.test(body?.type ?? "");
  return new PlatformError("permanent", `X refused the post: ${reason}`, { status: res.status, needsReconnect });
}

/**
 * When a spent daily usage cap takes requests again (epoch ms): the 24-hour reset X sends
 * (`x-user-limit-24hour-reset` / `x-app-limit-24hour-reset`, epoch seconds:
 * docs.x.com/x-api/fundamentals/rate-limits) when it sends one, else a whole day — the longest a daily cap lasts.
 */
function dailyCapResetAt(headers: Headers, now: number): number {
  for (const h of ["x-user-limit-24hour-reset", "x-app-limit-24hour-reset"]) {
    const at = Number(headers.get(h)) * 1000;
    if (headers.get(h) && Number.isFinite(at) && at > now) return at;
  }
  return now + 24 * 3600 * 1000;
}

/** Which 24-hour limit X says is spent (docs.x.com/x-api/fundamentals/rate-limits, `x-*-limit-24hour-*`). */
function dailyLimitSpent(headers: Headers): "user" | "app" | null {
  if (headers.get("x-user-limit-24hour-remaining") === "0") return "user";
  if (headers.get("x-app-limit-24hour-remaining") === "0") return "app";
  return null;
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
