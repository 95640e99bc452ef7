import type { ServiceContext } from "../../context";
import { authAccounts, authSessions, authUsers, authVerifications } from "../../db/schema";
import { AppError } from "../../lib/errors";

/**
 * People and their sessions are better-auth's (https://better-auth.com/docs/installation): email + password
 * (scrypt, from `node:crypto` under workerd: `@better-auth/utils/password` resolves its `workerd` export condition),
 * sessions in D1 through its drizzle adapter, the session cookie signed with `AUTH_SECRET`. Its HTTP handler is never
 * mounted: every entry point is one of our OpenAPI routes (src/routes/people), which call `auth.api.*` on the server,
 * so there is no public sign-up and no second API surface. docs/security.md "People and sessions".
 */

/** `__Host-`: Secure, Path=/, no Domain — only this exact host ever receives it (RFC 6265bis §4.1.3.2). */
export const SESSION_COOKIE = "__Host-esp-session";
/** A session lives 7 days and slides: used after a day, it is extended to 7 days from then (and the cookie re-set). */
export const SESSION_TTL_SECONDS = 7 * 24 * 60 * 60;
export const SESSION_UPDATE_AGE_SECONDS = 24 * 60 * 60;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

export function authSecret(ctx: ServiceContext): string {
  const secret = ctx.config.AUTH_SECRET;
  if (!secret)
    throw new AppError(
      "service_unavailable",
      "Signing in is not configured on this server: set the AUTH_SECRET secret (README, Configure).",
    );
  return secret;
}

/** better-auth is loaded on first use (like the MCP SDK): a Worker that serves only API keys never evaluates it. */
async function loadBetterAuth() {
  const [{ betterAuth }, { drizzleAdapter }] = await Promise.all([
    import("better-auth/minimal"),
    import("better-auth/adapters/drizzle"),
  ]);
  return { betterAuth, drizzleAdapter };
}

/**
 * The better-auth instance for this request: over the request's D1 session (src/db/session.ts), with the request's
 * origin as its base URL. Built per request (it holds the request's database client); `betterAuth()` only records its
 * options, its context is made on the first call. `better-auth/minimal`: the same library without Kysely (we bring
 * the drizzle adapter), 0.3 MB smaller.
 */
export async function peopleAuth(ctx: ServiceContext) {
  const secret = authSecret(ctx);
  const { betterAuth, drizzleAdapter } = await loadBetterAuth();
  return betterAuth({
    appName: "Edge Social Publisher",
    baseURL: ctx.origin,
    basePath: "/api/auth",
    secret,
    database: drizzleAdapter(ctx.db, {
      provider: "sqlite",
      schema: {
        auth_users: authUsers,
        auth_sessions: authSessions,
        auth_accounts: authAccounts,
        auth_verifications: authVerifications,
      },
      // D1 has no interactive transactions (the adapter's default).
      transaction: false,
    }),
    user: { modelName: "auth_users" },
    account: { modelName: "auth_accounts" },
    verification: { modelName: "auth_verifications" },
    session: {
      modelName: "auth_sessions",
      expiresIn: SESSION_TTL_SECONDS,
      updateAge: SESSION_UPDATE_AGE_SECONDS,
      cookieCache: { enabled: false },
    },
    emailAndPassword: {
      enabled: true,
      // People are made by the admin bootstrap and invitations only (src/services/people/persons.ts).
      disableSignUp: true,
      autoSignIn: false,
      minPasswordLength: PASSWORD_MIN,
      maxPasswordLength: PASSWORD_MAX,
    },
    // Throttling is ours (src/services/people/throttle.ts, in the UploadGuard Durable Object).
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
    logger: { disabled: ctx.config.LOG_LEVEL === "silent", level: "error" },
    advanced: {
      // The name is given whole: no `__Secure-` prefix added; Secure is set explicitly (127.0.0.1 is a secure context).
      useSecureCookies: false,
      cookies: {
        session_token: {
          name: SESSION_COOKIE,
          attributes: { secure: true, httpOnly: true, sameSite: "lax", path: "/" },
        },
      },
      ipAddress: { ipAddressHeaders: ["cf-connecting-ip"] },
      database: { generateId: () => crypto.randomUUID() },
    },
  });
}

/** better-auth's errors (`APIError`), told by shape so the module need not be imported to recognise them. */
export const isAuthApiError = (err: unknown): err is { statusCode: number; message: string } =>
  err instanceof Error && err.name === "APIError" && typeof (err as { statusCode?: unknown }).statusCode === "number";

/** The Set-Cookie lines of a better-auth answer, to pass on. */
export function setCookies(headers: Headers | undefined): string[] {
  return headers?.getSetCookie() ?? [];
}
