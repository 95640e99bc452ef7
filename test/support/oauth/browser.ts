import { expect } from "vitest";
import { type ApiResponse, BASE, fileClientIp, type TestWorkspace } from "../harness";
import { workerFetch } from "../worker-fetch";

/**
 * The test browser's cookies for our origin (the flow binding cookie, issue 25): kept from every answer, sent with
 * every request unless `cookies: false` (another browser) or an explicit Cookie header.
 */
const jar = new Map<string, string>();
export const clearCookies = () => jar.clear();
export const cookieJar = () => new Map(jar);

/** A browser request to the Worker that does not follow redirects (the tests check each hop). */
export async function browse(
  method: string,
  path: string,
  opts: { body?: string; headers?: Record<string, string>; cookies?: boolean } = {},
): Promise<ApiResponse> {
  const headers = new Headers(opts.headers);
  if (!headers.has("CF-Connecting-IP")) headers.set("CF-Connecting-IP", fileClientIp());
  if (opts.cookies !== false && !headers.has("Cookie") && jar.size > 0) {
    headers.set("Cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
  }
  const res = await workerFetch(
    new Request(`${BASE}${path}`, { method, headers, body: opts.body, redirect: "manual" }),
  );
  if (opts.cookies !== false) {
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const eq = pair!.indexOf("=");
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
  }
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // HTML
  }
  return { status: res.status, headers: res.headers, body, text };
}

/**
 * Plays the user's browser in workerd tests: opens the consent URL on the fake network (which redirects back at
 * once), follows the redirect to our callback, and submits selection pages like a form post would.
 */

/**
 * Opens a consent URL; returns our callback path + query the network redirected to. A URL of ours is the hop of an
 * API-started flow (issue 25): its page is continued (which binds this browser) on to the network's consent page.
 */
export async function consent(url: string): Promise<string> {
  if (url.startsWith(`${BASE}/connect/authorize/`)) url = await continueHop(url);
  const res = await fetch(url, { redirect: "manual" });
  expect(res.status, `consent page of ${url}`).toBe(302);
  const location = new URL(res.headers.get("location")!);
  expect(location.origin).toBe(BASE);
  return location.pathname + location.search;
}

/** The hop page of an API-started flow: "Continue" binds this browser; returns the network's consent URL. */
export async function continueHop(url: string): Promise<string> {
  const path = url.slice(BASE.length);
  const page = await browse("GET", path);
  expect(page.status, page.text).toBe(200);
  const { action, csrf } = formOf(page.text);
  const go = await postForm(action, [["csrf", csrf]]);
  expect(go.status, go.text).toBe(303);
  return go.headers.get("location")!;
}

export function formOf(html: string): { action: string; csrf: string } {
  const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!action || !csrf) throw new Error(`no form in page: ${html.slice(0, 500)}`);
  return { action: action.replace(/&amp;/g, "&"), csrf };
}

export function postForm(path: string, fields: [string, string][], headers: Record<string, string> = {}) {
  return browse("POST", path, {
    body: new URLSearchParams(fields).toString(),
    headers: { "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "same-origin", ...headers },
  });
}

/** Starts a connection through the API and consents; returns the callback answer. */
export async function connectThroughApi(
  ws: TestWorkspace,
  body: Record<string, unknown>,
): Promise<{ start: ApiResponse; consentAt: string; callback: ApiResponse; callbackPath: string }> {
  const start = await ws.api("POST", "/api/social-accounts/connect", body);
  expect(start.status, start.text).toBe(200);
  // The API answers our first-party hop; continuing it binds this browser and leads to the network's consent URL.
  expect(start.body.url).toMatch(/^https:\/\/api\.test\/connect\/authorize\/[A-Za-z0-9_-]{43}$/);
  const consentAt = await continueHop(start.body.url);
  const callbackPath = await consent(consentAt);
  const callback = await browse("GET", callbackPath);
  return { start, consentAt, callback, callbackPath };
}

/** Follows the 303 to the selection page, ticks `picks` (candidate indices) and submits. */
export async function pickAccounts(callback: ApiResponse, picks: number[]): Promise<ApiResponse> {
  expect(callback.status).toBe(303);
  const selectPath = callback.headers.get("location")!;
  expect(selectPath).toMatch(/^\/connect\/select\/[A-Za-z0-9_-]{43}$/);
  const page = await browse("GET", selectPath);
  expect(page.status).toBe(200);
  const { action, csrf } = formOf(page.text);
  return postForm(action, [["csrf", csrf], ...picks.map((i): [string, string] => ["account", String(i)])]);
}
