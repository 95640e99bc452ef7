import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { AppError, tooManyRequests, unauthenticated } from "../lib/errors";
import { authenticateApiKey, countPersonRequest } from "../services/api-keys/authenticate-api-key";
import { type ApiKeyScope, scopeAllows, scopeForbidden } from "../services/api-keys/scopes";
import type { ThrottleResult } from "../services/api-keys/throttle-leases";
import { SESSION_COOKIE } from "../services/people/auth";
import { currentPerson, type Membership, membershipsOf, onPrimary } from "../services/people/persons";
import { type PermissionArea, ROLE_GRANTS, roleAllows, roleForbidden } from "../services/people/roles";
import type { AppEnv } from "../types";

/** The header a signed-in request names its workspace with (absent: the person's oldest membership). */
export const WORKSPACE_HEADER = "X-Workspace-Id";

function throttled(window: ThrottleResult): AppError {
  const err = tooManyRequests(window.retryAfterSeconds);
  err.headers!["X-RateLimit-Limit"] = String(window.limit);
  err.headers!["X-RateLimit-Remaining"] = "0";
  return err;
}

/**
 * Bearer API-key authentication, the per-key and per-workspace throttle
 * (src/services/api-keys/authenticate-api-key.ts). Sets `workspace` on the context (with the key's scope) and the
 * `X-RateLimit-*` headers on the response. The scope is checked by `requireScope` (REST) or the tool wrapper (MCP).
 */
export const requireApiKey: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("Authorization") ?? "")?.[1];
  if (!token) throw unauthenticated();
  const service = c.get("service");
  const auth = await authenticateApiKey(service, token, service.config.API_RATE_LIMIT_PER_MINUTE);
  if (!auth) throw unauthenticated();
  c.set("workspace", {
    ...service,
    workspaceId: auth.key.workspaceId,
    apiKeyId: auth.key.id,
    apiKeyScope: auth.key.scope,
    apiKeyExpiresAt: auth.key.expiresAt,
    person: null,
  });

  const { window } = auth;
  if (!window.allowed) throw throttled(window);
  await next();
  c.res.headers.set("X-RateLimit-Limit", String(window.limit));
  // A route that counted more (an MCP batch) says what is left after it.
  c.res.headers.set("X-RateLimit-Remaining", String(c.get("rateLimitRemaining") ?? window.remaining));
};

/** 403 unless the authenticated key's scope covers `need` (runs after `requireApiKey`). */
export const requireScope =
  (need: ApiKeyScope): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const have = c.get("workspace").apiKeyScope;
    if (!scopeAllows(have, need)) throw scopeForbidden(have, need);
    await next();
  };

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** This request's own origin and PUBLIC_URL: the origins a cookie-authenticated unsafe request may come from. */
export function ownOrigins(c: Context<AppEnv>): string[] {
  return [new URL(c.req.url).origin, c.get("service").config.PUBLIC_URL].filter(Boolean);
}

/**
 * CSRF (docs/security.md "Sessions and CSRF"): the session cookie rides along any request the browser sends, so a
 * request it authenticates that changes anything must say where it comes from. `Origin` is sent by every browser on
 * every POST, PUT, PATCH and DELETE (fetch and forms alike); a missing or foreign one is refused.
 */
export function assertSameOrigin(c: Context<AppEnv>): void {
  const origin = c.req.header("Origin");
  if (!origin || !ownOrigins(c).includes(origin))
    throw new AppError(
      "forbidden",
      "Cross-origin request refused: a request signed in with the session cookie that changes anything must carry an Origin header of this site.",
    );
}

/** Clears the session cookie (a session that ended, or sign-out without one). */
export const CLEAR_SESSION_COOKIE = `${SESSION_COOKIE}=; Max-Age=0; Path=/; Secure; HttpOnly; SameSite=Lax`;

export const sessionEnded = () =>
  new AppError("unauthenticated", "Not signed in, or the session has ended: sign in again.", {
    headers: { "WWW-Authenticate": "Bearer", "Set-Cookie": CLEAR_SESSION_COOKIE },
  });

export const hasSessionCookie = (c: Context<AppEnv>) => getCookie(c, SESSION_COOKIE) !== undefined;

/** Appends Set-Cookie lines to a response (a new session, or one that slid forward, or was cleared). */
export function withCookies<R extends Response>(res: R, cookies: string[]): R {
  for (const line of cookies) res.headers.append("Set-Cookie", line);
  if (cookies.length > 0) res.headers.set("Cache-Control", "no-store");
  return res;
}

/**
 * A signed-in person acting in a workspace: the session (better-auth), the workspace from `X-Workspace-Id` or their
 * oldest membership, their role checked against the route's scope and area (src/services/people/roles.ts), then the
 * same throttle as a key, keyed by the person. Sets `workspace` exactly as `requireApiKey` does (apiKeyId null,
 * apiKeyScope the role's scope, `person` set), so the route and the services run unchanged.
 */
const requireSession =
  (need: ApiKeyScope, area: PermissionArea): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    if (!SAFE_METHODS.has(c.req.method)) assertSameOrigin(c);
    const service = c.get("service");
    // The session and the membership are read on the primary, even for a read on a replica (issue 35, review 4): a
    // replica that has not yet seen a sign-out, a removal or a demotion would still let the person in with their old
    // role. What the route then reads stays on the request's own D1 session.
    const primary = onPrimary(service);
    const { signedIn, cookies } = await currentPerson(primary, c.req.raw.headers);
    if (!signedIn) throw sessionEnded();
    const asked = c.req.header(WORKSPACE_HEADER);
    const pick = (list: Membership[]) => list.find((m) => asked === undefined || m.workspace_id === asked);
    const membership = pick(await membershipsOf(primary, signedIn.user.id));
    // An unknown workspace and another team's answer alike (403 either way: nothing is learnt about the id).
    if (!membership)
      throw new AppError(
        "forbidden",
        asked === undefined ? "You are not a member of any workspace." : "You are not a member of this workspace.",
      );
    if (!roleAllows(membership.role, need, area)) throw roleForbidden(membership.role);
    const window = await countPersonRequest(service, signedIn.user.id, membership.workspace_id);
    if (!window.allowed) throw throttled(window);
    c.set("workspace", {
      ...service,
      workspaceId: membership.workspace_id,
      apiKeyId: null,
      apiKeyScope: ROLE_GRANTS[membership.role].scope,
      apiKeyExpiresAt: null,
      person: { userId: signedIn.user.id, role: membership.role },
    });
    await next();
    withCookies(c.res, cookies);
    c.res.headers.set("X-RateLimit-Limit", String(window.limit));
    c.res.headers.set("X-RateLimit-Remaining", String(window.remaining));
  };

/**
 * The one authorization of every REST route (issue 27): a Bearer API key exactly as before (`requireApiKey`, then its
 * scope), or — with no Authorization header — the dashboard's session cookie (`requireSession`). A request with
 * neither answers 401 as before.
 */
export const requirePrincipal = (need: ApiKeyScope, area: PermissionArea): MiddlewareHandler<AppEnv> => {
  const byScope = requireScope(need);
  const bySession = requireSession(need, area);
  return async (c, next) => {
    if (c.req.header("Authorization") === undefined && hasSessionCookie(c)) await bySession(c, next);
    else
      await requireApiKey(c, async () => {
        await byScope(c, next);
      });
  };
};
