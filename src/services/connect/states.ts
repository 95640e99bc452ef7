import { and, eq, lt } from "drizzle-orm";
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
const UNKNOWN_STATE = "This sign-in link is invalid or was already used. Start connecting the account again.";

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
): Promise<{ state: string; expiresAt: number }> {
  const nonce = newSecretToken();
  const now = ctx.now();
  const expiresAt = now + ctx.config.CONNECT_STATE_TTL_SECONDS * 1000;
  const id = await tokenId(nonce);
  const sealed = await sealSecret(ctx, { table: "oauth_states", row: id }, payload);
  await ctx.db.batch([
    // Expired states nobody came back for are swept here, by the index on expires_at.
    ctx.db.delete(oauthStates).where(lt(oauthStates.expiresAt, now)),
    ctx.db.insert(oauthStates).values({
      id,
      workspaceId,
      platform,
      sealed,
      expiresAt,
      createdAt: now,
      apiKeyId,
    }),
  ]);
  const sig = await mac(ctx, PURPOSE, `${workspaceId}\n${platform}\n${nonce}`);
  return { state: `${workspaceId}.${nonce}.${sig}`, expiresAt };
}

/** Verifies and consumes a state; anything wrong (format, MAC, unknown, used, expired) is `invalid_state`. */
export async function consumeState(
  ctx: ServiceContext,
  platform: string,
  state: string,
): Promise<{ workspaceId: string; payload: StatePayload; expired: boolean; apiKeyId: string | null }> {
  const [workspaceId, nonce, sig, extra] = state.split(".");
  if (!workspaceId || !nonce || !sig || extra !== undefined || state.length > 512)
    throw new ConnectError("invalid_state", UNKNOWN_STATE);
  if (!(await macMatches(ctx, PURPOSE, `${workspaceId}\n${platform}\n${nonce}`, sig)))
    throw new ConnectError("invalid_state", UNKNOWN_STATE);
  const [row] = await ctx.db
    .delete(oauthStates)
    .where(
      and(
        eq(oauthStates.id, await tokenId(nonce)),
        eq(oauthStates.workspaceId, workspaceId),
        eq(oauthStates.platform, platform),
      ),
    )
    .returning();
  if (!row) throw new ConnectError("invalid_state", UNKNOWN_STATE);
  // An expired state is consumed too; the caller still learns where to send the browser back to.
  const payload = await openStep<StatePayload>(ctx, { table: "oauth_states", row: row.id }, row.sealed);
  return { workspaceId, payload, expired: row.expiresAt < ctx.now(), apiKeyId: row.apiKeyId };
}
