import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import { type ApiResponse, BASE, type TestWorkspace } from "../harness";

/** A browser request to the Worker that does not follow redirects (the tests check each hop). */
export async function browse(
  method: string,
  path: string,
  opts: { body?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const res = await exports.default.fetch(
    new Request(`${BASE}${path}`, { method, headers: opts.headers, body: opts.body, redirect: "manual" }),
  );
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

/** Opens a consent URL; returns our callback path + query the network redirected to. */
export async function consent(url: string): Promise<string> {
  const res = await fetch(url, { redirect: "manual" });
  expect(res.status, `consent page of ${url}`).toBe(302);
  const location = new URL(res.headers.get("location")!);
  expect(location.origin).toBe(BASE);
  return location.pathname + location.search;
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
): Promise<{ start: ApiResponse; callback: ApiResponse; callbackPath: string }> {
  const start = await ws.api("POST", "/api/social-accounts/connect", body);
  expect(start.status, start.text).toBe(200);
  const callbackPath = await consent(start.body.url);
  const callback = await browse("GET", callbackPath);
  return { start, callback, callbackPath };
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
