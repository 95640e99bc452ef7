import { and, eq, lt } from "drizzle-orm";
import { requireSecret } from "../../config";
import type { ServiceContext } from "../../context";
import { oauthStates } from "../../db/schema";
import { decryptJson, encryptJson } from "../../lib/crypto";
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

export const sealPayload = (ctx: Pick<ServiceContext, "config">, value: unknown) =>
  encryptJson(requireSecret(ctx.config, "TOKEN_ENCRYPTION_KEY"), value);
export const openPayload = <T>(ctx: Pick<ServiceContext, "config">, sealed: string) =>
  decryptJson<T>(requireSecret(ctx.config, "TOKEN_ENCRYPTION_KEY"), sealed);

export async function createState(
  ctx: ServiceContext,
  workspaceId: string,
  platform: string,
  payload: StatePayload,
): Promise<{ state: string; expiresAt: number }> {
  const nonce = newSecretToken();
  const now = ctx.now();
  const expiresAt = now + ctx.config.CONNECT_STATE_TTL_SECONDS * 1000;
  await ctx.db.batch([
    // Expired states nobody came back for are swept here, by the index on expires_at.
    ctx.db.delete(oauthStates).where(lt(oauthStates.expiresAt, now)),
    ctx.db.insert(oauthStates).values({
      id: await tokenId(nonce),
      workspaceId,
      platform,
      sealed: await sealPayload(ctx, payload),
      expiresAt,
      createdAt: now,
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
): Promise<{ workspaceId: string; payload: StatePayload; expired: boolean }> {
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
  return { workspaceId, payload: await openPayload<StatePayload>(ctx, row.sealed), expired: row.expiresAt < ctx.now() };
}
