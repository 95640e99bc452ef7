import type { Platform } from "../catalog/platforms";
import type { Config } from "../config";
import { AppError } from "../lib/errors";
import { guardedFetch, type OutboundPolicy } from "../lib/outbound-guard";
import { readBoundedText } from "../lib/read-body";
import type { AccountCredentials } from "../services/social-accounts/credentials";

/**
 * The one interface each network's connect code implements (src/platforms/<name>/connect.ts), next to its
 * adapter. Like adapters, connectors are request/response code against the network (hosts from Config) and never
 * touch D1: the connect service (src/services/connect) owns states, PKCE verifiers, selections and storage.
 */

export interface ConnectContext {
  config: Config;
  fetch: typeof fetch;
  /** For hosts the user chose (Mastodon instances): the outbound guard's policy (docs/security.md). */
  outbound: OutboundPolicy;
  now: () => number;
  /** Mastodon: our OAuth app per instance, registered once and cached by the service. */
  apps: {
    get(instance: string, redirectUri: string): Promise<OAuthClient | null>;
    put(instance: string, redirectUri: string, client: OAuthClient): Promise<void>;
  };
}

export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

export interface AuthorizeInput {
  state: string;
  /** Our callback URL, `{PUBLIC_URL}/api/oauth/<platform>/callback`. */
  redirectUri: string;
  /** S256 challenge when the connector uses PKCE. */
  codeChallenge: string | null;
  /** Mastodon instance origin. */
  instance: string | null;
}

export interface CompleteInput {
  code: string;
  redirectUri: string;
  codeVerifier: string | null;
  instance: string | null;
}

/** One account a login can connect; becomes one social account row. */
export interface ConnectCandidate {
  platform: Platform;
  platformUserId: string;
  displayName: string;
  username: string;
  avatarUrl: string | null;
  credentials: AccountCredentials;
  /** Epoch ms; null for tokens that do not expire. */
  tokenExpiresAt: number | null;
  meta: Record<string, unknown>;
  /** The origin that answers for the account when the network has many servers (Mastodon's instance). */
  server?: string;
  /** What the selection page shows under the name (e.g. "Facebook Page", "Board"). */
  detail?: string;
}

export interface ConnectOutcome {
  /** Scopes the network says were granted; null when it does not say (checked by a profile call instead). */
  grantedScopes: string[] | null;
  candidates: ConnectCandidate[];
}

/**
 * - `single`: the login is the account (X, TikTok, Threads, Instagram Login, LinkedIn member, Mastodon);
 * - `many`: the user ticks which of several accounts to connect (Pages, IG business accounts, organizations,
 *   channels);
 * - `one-of`: the user picks one option for the single account (Pinterest: its default board).
 */
export type SelectionKind = "single" | "many" | "one-of";

export interface PlatformConnector {
  platform: Platform;
  label: string;
  /** PKCE with S256 (required by X and TikTok, supported by Google and Mastodon). */
  pkce: boolean;
  selection: SelectionKind;
  /** Scopes asked for; `requiredScopes` are the ones the adapter cannot work without. */
  scopes: string[];
  requiredScopes: string[];
  /** Whether the app credentials (client id/secret) are configured; unconfigured networks are not offered. */
  configured(config: Config): boolean;
  /** Mastodon: needs an instance from the user. */
  needsInstance?: boolean;
  authorizeUrl(ctx: ConnectContext, input: AuthorizeInput): Promise<string>;
  /** Code → tokens → profile (and pages/orgs/channels/boards). Throws ConnectError. */
  complete(ctx: ConnectContext, input: CompleteInput): Promise<ConnectOutcome>;
}

export type ConnectErrorCode =
  | "access_denied"
  | "invalid_state"
  | "exchange_failed"
  | "missing_scopes"
  | "no_accounts"
  | "not_configured"
  | "network_error"
  | "revoked"
  | "browser_mismatch";

/** A failed connect step: rendered as an HTML page and as `?error=<code>` on the redirect URL. */
export class ConnectError extends Error {
  readonly code: ConnectErrorCode;
  constructor(code: ConnectErrorCode, message: string) {
    super(message);
    this.name = "ConnectError";
    this.code = code;
  }
}

export function buildUrl(base: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(base);
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}

/** Scope strings come space-, comma- or both-separated depending on the network. */
export function splitScopes(value: unknown): string[] | null {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value !== "string") return null;
  return value.split(/[\s,]+/).filter(Boolean);
}

const CONNECT_TIMEOUT_MS = 20_000;

/** A network call during connect: network failures become `network_error`, answers are parsed as JSON. */
export async function connectFetch(
  ctx: ConnectContext,
  label: string,
  url: string,
  init: RequestInit = {},
  opts: { userChosenHost?: boolean } = {},
): Promise<{ res: Response; body: any }> {
  let res: Response;
  try {
    res = opts.userChosenHost
      ? // A host the user typed: checked by the outbound guard on every hop, answers bounded.
        await guardedFetch(url, init, {
          ...ctx.outbound,
          timeoutMs: CONNECT_TIMEOUT_MS,
          maxResponseBytes: 1024 * 1024,
          fetcher: ctx.fetch,
        })
      : await ctx.fetch(url, { ...init, signal: AbortSignal.timeout(CONNECT_TIMEOUT_MS) });
  } catch {
    throw new ConnectError("network_error", `${label} could not be reached. Try again in a moment.`);
  }
  return { res, body: await readConnectAnswer(res, label) };
}

/**
 * Every answer read during connect is bounded (issue 25): the largest real one (a login's 100 Pages, 100 boards)
 * is a few hundred KB, so 1 MiB; past it the connect fails as a network error and the rest is never read.
 */
export const CONNECT_ANSWER_MAX_BYTES = 1024 * 1024;

async function readConnectAnswer(res: Response, label: string): Promise<any> {
  let text: string;
  try {
    text = await readBoundedText(res, CONNECT_ANSWER_MAX_BYTES);
  } catch (err) {
    if (err instanceof AppError && err.code === "payload_too_large") {
      throw new ConnectError("network_error", `${label} answered with more data than expected. Try again later.`);
    }
    return null;
  }
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The reason an OAuth token endpoint gave, from the RFC 6749 envelope or the network's own (no final stop). */
export function oauthReason(body: any): string {
  return reasonOf(body).replace(/[.\s]+$/, "");
}

function reasonOf(body: any): string {
  if (!body || typeof body !== "object") return "no details";
  const e = body.error;
  if (typeof body.error_description === "string") return body.error_description;
  if (e && typeof e === "object" && typeof e.message === "string") return e.message; // Meta Graph
  if (typeof body.error_message === "string") return body.error_message; // Instagram Login
  if (typeof body.message === "string") return body.message; // Pinterest
  if (typeof e === "string") return e;
  return "no details";
}

/** POSTs a form to a token endpoint; a non-2xx answer or one without an access token is `exchange_failed`. */
export async function exchangeCode(
  ctx: ConnectContext,
  label: string,
  url: string,
  form: Record<string, string | null | undefined>,
  headers: Record<string, string> = {},
  opts: { userChosenHost?: boolean } = {},
): Promise<any> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) if (v !== null && v !== undefined) body.set(k, v);
  const { res, body: json } = await connectFetch(
    ctx,
    label,
    url,
    {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json", ...headers },
      body,
    },
    opts,
  );
  const token = json?.access_token ?? json?.data?.[0]?.access_token;
  if (!res.ok || !token) {
    throw new ConnectError("exchange_failed", `${label} refused the authorization code: ${oauthReason(json)}.`);
  }
  return json;
}

/** A GET with a Bearer token during connect; failures name the network and its reason. */
export async function getJson(ctx: ConnectContext, label: string, url: string, token?: string): Promise<any> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const { res, body } = await connectFetch(ctx, label, url, { headers });
  if (!res.ok) throw new ConnectError("network_error", `${label} did not return the account: ${oauthReason(body)}.`);
  return body ?? {};
}

export const basicAuth = (id: string, secret: string) => `Basic ${btoa(`${id}:${secret}`)}`;

/**
 * When the refresh credential itself ends, where the token answer says (docs/account-health.md):
 * `refresh_token_expires_in` (LinkedIn programmatic refresh tokens, 365 days; Pinterest continuous refresh tokens,
 * 60 days rolling; Google, only for time-based access) or `refresh_expires_in` (TikTok). Epoch ms, or undefined
 * when the answer does not say.
 */
export const refreshExpiresAtFrom = (
  token: { refresh_token_expires_in?: unknown; refresh_expires_in?: unknown },
  nowMs: number,
): number | undefined => expiresAtFrom(token.refresh_token_expires_in ?? token.refresh_expires_in, nowMs) ?? undefined;

export const expiresAtFrom = (expiresIn: unknown, nowMs: number): number | null =>
  typeof expiresIn === "number" && expiresIn > 0 ? nowMs + expiresIn * 1000 : null;
