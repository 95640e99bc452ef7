import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { type ApiResponse, BASE, call, UUID } from "../../support/harness";

/** Test helpers for signed-in people (issue 27): the session cookie, sent like a browser on our origin sends it. */
export const SESSION_COOKIE = "__Host-esp-session";
export const PASSWORD = "correct horse battery";

let counter = 0;
/** An email of its own per call (test files share runtimes and their D1). */
export const uniqueEmail = (label = "person") =>
  `${label}-${Date.now().toString(36)}-${++counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;

/** The cookie's value from a response's Set-Cookie lines (undefined when none sets it). */
export function sessionCookieFrom(res: ApiResponse): string | undefined {
  for (const line of res.headers.getSetCookie()) {
    const m = new RegExp(`^${SESSION_COOKIE}=([^;]*)`).exec(line);
    if (m) return m[1];
  }
  return undefined;
}

/** Bootstraps a workspace with an owner who has a password; returns the workspace, its key and the owner. */
export async function workspaceWithOwner(name = `People ${++counter}`, email = uniqueEmail("owner")) {
  const res = await call("POST", "/api/admin/workspaces", {
    body: { name, owner: { email, name: "Owner", password: PASSWORD } },
    headers: { Authorization: `Bearer ${env.ADMIN_TOKEN}` },
  });
  expect(res.status, res.text).toBe(201);
  return {
    workspaceId: res.body.workspace.id as string,
    key: res.body.plain_token as string,
    owner: res.body.owner as { id: string; email: string; name: string },
    email,
  };
}

/**
 * A client address of its own for each sign-in (the per-IP sign-in window is 5 a minute and the file's address is
 * shared by its tests); the throttle test names its own.
 */
export const freshIp = () =>
  `10.${(counter++ * 7) % 250}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

export async function signIn(email: string, password = PASSWORD, headers: Record<string, string> = {}) {
  return call("POST", "/api/session", {
    body: { email, password },
    headers: { Origin: BASE, "CF-Connecting-IP": freshIp(), ...headers },
  });
}

export interface Person {
  cookie: string;
  /** A request as the dashboard sends it: the cookie, our Origin, and the workspace header when given. */
  api: <T = any>(
    method: string,
    path: string,
    body?: unknown,
    opts?: { workspaceId?: string; headers?: Record<string, string> },
  ) => Promise<ApiResponse<T>>;
}

export function asPerson(cookie: string, defaultWorkspace?: string): Person {
  return {
    cookie,
    api: (method, path, body, opts = {}) => {
      const headers: Record<string, string> = { Cookie: `${SESSION_COOKIE}=${cookie}`, Origin: BASE };
      const ws = opts.workspaceId ?? defaultWorkspace;
      if (ws) headers["X-Workspace-Id"] = ws;
      return call(method, path, { body, headers: { ...headers, ...opts.headers } });
    },
  };
}

/** Signs in and returns the person's client; fails the test unless sign-in answered 200 with the cookie. */
export async function signedIn(email: string, password = PASSWORD, workspaceId?: string): Promise<Person> {
  const res = await signIn(email, password);
  expect(res.status, res.text).toBe(200);
  const cookie = sessionCookieFrom(res);
  expect(cookie).toBeDefined();
  return asPerson(cookie as string, workspaceId);
}

/**
 * Invites (with the workspace's full API key, bound to the address: only an invitation naming an email makes an
 * account) and accepts as a new person; returns the person signed in.
 */
export async function memberWithRole(
  ws: { workspaceId: string; key: string },
  role: "owner" | "admin" | "editor" | "viewer",
  email = uniqueEmail(role),
): Promise<Person & { email: string; userId: string }> {
  const invite = await call("POST", "/api/invitations", { key: ws.key, body: { role, email } });
  expect(invite.status, invite.text).toBe(201);
  const accepted = await call("POST", "/api/invitations/accept", {
    body: { token: invite.body.token, name: role, email, password: PASSWORD },
    headers: { Origin: BASE, "CF-Connecting-IP": freshIp() },
  });
  expect(accepted.status, accepted.text).toBe(200);
  return { ...asPerson(sessionCookieFrom(accepted) as string, ws.workspaceId), email, userId: accepted.body.user.id };
}

export { UUID };
