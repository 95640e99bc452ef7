import { and, eq, gt, isNotNull, isNull, lt } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { oauthStates } from "../../db/schema";
import { errorFields, log } from "../../lib/logger";
import { openSecret, type SealedAt, sealSecret, UnopenableSecretError } from "../../lib/sealing";
import { ConnectError } from "../../platforms/connect";
import { mac, macMatches, newSecretToken, tokenId } from "./tokens";

/**
 * OAuth `state`: `<workspace id>.<nonce>.<mac>`. The MAC binds the nonce to the workspace and platform, so a state
 * cannot be replayed against another workspace or network; the row (keyed by the nonce's hash) holds the sealed
 * PKCE verifier and the redirect URL, lives CONNECT_STATE_TTL_SECONDS and is consumed by one conditional DELETE …
 * RETURNING, so exactly one callback can use it.
 */
export interface StatePayload {
  code_verifier: string | null;
  redirect_url: string | null;
  instance: string | null;
  link_id: string | null;
}

const PURPOSE = "oauth-state";
export const OTHER_BROWSER =
  "This sign-in was started in another browser, or this browser did not keep its sign-in cookie. Open the connect link again in this browser, with cookies allowed for this site.";
const UNKNOWN_STATE = "This sign-in link is invalid or was already used. Start connecting the account again.";
export const EXPIRED_STATE = "This sign-in link has expired. Start connecting the account again.";

/**
 * How long an expired state is kept (issue 35): a browser that comes back from the network's consent page after
 * CONNECT_STATE_TTL_SECONDS still learns that its flow expired (`invalid_state`) and goes back to the flow's
 * redirect_url, instead of "invalid or already used" with nowhere to go. The binding cookie lives as long
 * (bindingLifetimeSeconds), so it is still there to show that this is the browser that started the flow.
 */
export const EXPIRED_STATE_KEPT_SECONDS = 24 * 60 * 60;

/** Max-Age of the browser binding cookie: the state's life and the day its expired row is kept. */
export const bindingLifetimeSeconds = (config: { CONNECT_STATE_TTL_SECONDS: number }) =>
  config.CONNECT_STATE_TTL_SECONDS + EXPIRED_STATE_KEPT_SECONDS;

/** What the hosted pages say when a state or selection was sealed under a key the server no longer has. */
export const UNREADABLE_STEP =
  "This sign-in can no longer be read: the encryption key of this server changed since it started. " +
  "Start connecting the account again.";

/**
 * Opens a state's or selection's payload (sealed for its row, src/lib/sealing.ts); one that does not open is a
 * ConnectError the hosted pages show as such, never a 500.
 */
export async function openStep<T>(ctx: Pick<ServiceContext, "config">, at: SealedAt, sealed: string): Promise<T> {
  try {
    return await openSecret<T>(ctx, at, sealed);
  } catch (err) {
    if (!(err instanceof UnopenableSecretError)) throw err;
    log("warn", "connect_step_unopenable", { table: at.table, ...errorFields(err) });
    throw new ConnectError("invalid_state", UNREADABLE_STEP);
  }
}

export async function createState(
  ctx: ServiceContext,
  workspaceId: string,
  platform: string,
  payload: StatePayload,
  /** The API key that started the flow (directly or through its link): the callback is refused once it has ended. */
  apiKeyId: string | null,
  /** SHA-256 of the browser's binding cookie when the flow starts in a browser; else the hop binds it later. */
  browserHash: string | null = null,
  /** The signed-in person who started the flow through the API (issue 27); refused once they leave. */
  createdByUserId: string | null = null,
): Promise<{ state: string; nonce: string; expiresAt: number }> {
  const nonce = newSecretToken();
  const now = ctx.now();
  const expiresAt = now + ctx.config.CONNECT_STATE_TTL_SECONDS * 1000;
  const id = await tokenId(nonce);
  const sealed = await sealSecret(ctx, { table: "oauth_states", row: id }, payload);
  await ctx.db.batch([
    // States nobody came back for are swept here, by the index on expires_at, a day after they expired.
    ctx.db.delete(oauthStates).where(lt(oauthStates.expiresAt, now - EXPIRED_STATE_KEPT_SECONDS * 1000)),
    ctx.db.insert(oauthStates).values({
      id,
      workspaceId,
      platform,
      sealed,
      expiresAt,
      createdAt: now,
      apiKeyId,
      browserHash,
      createdByUserId,
    }),
  ]);
  const sig = await mac(ctx, PURPOSE, `${workspaceId}\n${platform}\n${nonce}`);
  return { state: `${workspaceId}.${nonce}.${sig}`, nonce, expiresAt };
}

/** Keeps the network's consent URL for the hop (flows started through the API, bound later). */
export async function recordAuthorizeUrl(ctx: ServiceContext, nonce: string, url: string): Promise<void> {
  await ctx.db
    .update(oauthStates)
    .set({ authorizeUrl: url })
    .where(eq(oauthStates.id, await tokenId(nonce)));
}

export interface UnboundState {
  workspaceId: string;
  platform: string;
  authorizeUrl: string;
}

const unboundWhere = async (ctx: ServiceContext, nonce: string) =>
  and(
    eq(oauthStates.id, await tokenId(nonce)),
    isNull(oauthStates.browserHash),
    isNotNull(oauthStates.authorizeUrl),
    gt(oauthStates.expiresAt, ctx.now()),
  );

/** A live API-started flow no browser has claimed yet (the hop's page). */
export async function readUnboundState(ctx: ServiceContext, nonce: string): Promise<UnboundState | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(nonce)) return null;
  const row = await ctx.db
    .select()
    .from(oauthStates)
    .where(await unboundWhere(ctx, nonce))
    .get();
  return row ? { workspaceId: row.workspaceId, platform: row.platform, authorizeUrl: row.authorizeUrl! } : null;
}

/** Binds the flow to this browser, once: the first browser to continue owns it; null when already bound or gone. */
export async function bindState(ctx: ServiceContext, nonce: string, browserHash: string): Promise<UnboundState | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(nonce)) return null;
  const [row] = await ctx.db
    .update(oauthStates)
    .set({ browserHash })
    .where(await unboundWhere(ctx, nonce))
    .returning();
  return row ? { workspaceId: row.workspaceId, platform: row.platform, authorizeUrl: row.authorizeUrl! } : null;
}

/**
 * Verifies and consumes a state; anything wrong (format, MAC, unknown, used) is `invalid_state`, a live state in
 * another browser `browser_mismatch`. An expired state is `expired: true` for the browser it is bound to (consumed,
 * so the caller sends that browser back to its redirect_url with `invalid_state`); in any other browser it is
 * `invalid_state` "expired" too, but that browser learns nothing more (no redirect_url) and the state stays.
 */
export async function consumeState(
  ctx: ServiceContext,
  platform: string,
  state: string,
  /** SHA-256 of the binding cookie the callback's browser presented (null: none). */
  browserHash: string | null,
): Promise<{
  workspaceId: string;
  payload: StatePayload;
  expired: boolean;
  apiKeyId: string | null;
  createdByUserId: string | null;
  createdAt: number;
}> {
  const [workspaceId, nonce, sig, extra] = state.split(".");
  if (!workspaceId || !nonce || !sig || extra !== undefined || state.length > 512)
    throw new ConnectError("invalid_state", UNKNOWN_STATE);
  if (!(await macMatches(ctx, PURPOSE, `${workspaceId}\n${platform}\n${nonce}`, sig)))
    throw new ConnectError("invalid_state", UNKNOWN_STATE);
  const id = await tokenId(nonce);
  const ours = and(
    eq(oauthStates.id, id),
    eq(oauthStates.workspaceId, workspaceId),
    eq(oauthStates.platform, platform),
  );
  // Only the browser the flow is bound to consumes it: a callback replayed into another browser (RFC 9700 §4.7)
  // neither completes nor spends the state.
  const [row] = browserHash
    ? await ctx.db
        .delete(oauthStates)
        .where(and(ours, eq(oauthStates.browserHash, browserHash)))
        .returning()
    : [];
  if (!row) {
    const other = await ctx.db
      .select({ id: oauthStates.id, expiresAt: oauthStates.expiresAt })
      .from(oauthStates)
      .where(ours)
      .get();
    if (other && other.expiresAt < ctx.now()) throw new ConnectError("invalid_state", EXPIRED_STATE);
    if (other) throw new ConnectError("browser_mismatch", OTHER_BROWSER);
    throw new ConnectError("invalid_state", UNKNOWN_STATE);
  }
  // An expired state is consumed too; the caller still learns where to send the browser back to.
  const payload = await openStep<StatePayload>(ctx, { table: "oauth_states", row: row.id }, row.sealed);
  return {
    workspaceId,
    payload,
    expired: row.expiresAt < ctx.now(),
    apiKeyId: row.apiKeyId,
    createdByUserId: row.createdByUserId,
    createdAt: row.createdAt,
  };
}
