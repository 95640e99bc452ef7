import { AppError } from "../../lib/errors";

/**
 * API key scopes (docs/security.md "API key scopes"). Each is a superset of the one before it:
 * - `read`: every read (GET routes, read-only tools);
 * - `publish`: reads, plus posts (create, update, publish, delete), media (upload, from URL, signed uploads) and
 *   delegating narrower keys (mint `publish`/`read` keys, revoke the keys it minted);
 * - `full`: everything, including labels, signatures, social accounts and API keys.
 * Every REST route and MCP tool declares the scope it needs; reads default to `read`, writes to `full`.
 */
export const API_KEY_SCOPES = ["read", "publish", "full"] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

const RANK: Record<ApiKeyScope, number> = { read: 0, publish: 1, full: 2 };

export const scopeAllows = (have: ApiKeyScope, need: ApiKeyScope) => RANK[have] >= RANK[need];

/** The widest of the scopes asked for (a key holds one level; `["read", "publish"]` is `publish`). */
export const widestScope = (scopes: readonly ApiKeyScope[]): ApiKeyScope =>
  scopes.reduce<ApiKeyScope>((a, b) => (RANK[b] > RANK[a] ? b : a), "read");

/** The scope a route needs unless it says otherwise: reads need `read`, anything else `full`. */
export const defaultScopeFor = (method: string): ApiKeyScope =>
  method.toLowerCase() === "get" || method.toLowerCase() === "head" ? "read" : "full";

/** 403 for a key whose scope does not cover the operation (REST answers it as JSON, MCP as a tool error). */
export const scopeForbidden = (have: ApiKeyScope, need: ApiKeyScope) =>
  new AppError(
    "forbidden",
    `This API key's scope (${have}) does not allow this operation; it needs the ${need} scope.`,
  );

/** Live (unrevoked, unexpired) keys a workspace may hold; minting past it answers 422. */
export const API_KEYS_MAX_LIVE_PER_WORKSPACE = 50;

/**
 * The last places under the cap that only a `full` key may mint into (issue 25, finding 12): a `publish` or `read`
 * key mints only while the workspace holds fewer than 45 live keys, so delegated keys (and their children) can
 * never lock the owner out of minting — the owner can always mint, and revoke the delegated tree.
 */
export const API_KEYS_RESERVED_FOR_FULL = 5;

/** How many live keys the workspace may hold for a mint by a key of `scope` to still succeed. */
export const liveKeyLimitFor = (scope: ApiKeyScope) =>
  scope === "full" ? API_KEYS_MAX_LIVE_PER_WORKSPACE : API_KEYS_MAX_LIVE_PER_WORKSPACE - API_KEYS_RESERVED_FOR_FULL;
