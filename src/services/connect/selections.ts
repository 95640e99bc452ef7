import { and, eq, gt, lt } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { connectSelections } from "../../db/schema";
import { sealSecret } from "../../lib/sealing";
import type { ConnectCandidate } from "../../platforms/connect";
import { openStep } from "./states";
import { newSecretToken, tokenId } from "./tokens";

/**
 * The accounts one login found, kept server-side (sealed: they carry tokens) until the user picks; the page gets
 * an opaque token and the candidates' names only. Consumed by DELETE … RETURNING, so a pick is applied once.
 */
export interface SelectionPayload {
  candidates: ConnectCandidate[];
  redirect_url: string | null;
  link_id: string | null;
}

export async function createSelection(
  ctx: ServiceContext,
  workspaceId: string,
  platform: string,
  payload: SelectionPayload,
  apiKeyId: string | null = null,
  /** The signed-in person who started the flow (issue 27), with when it started. */
  person: { userId: string | null; since: number } = { userId: null, since: 0 },
): Promise<string> {
  const token = newSecretToken();
  const now = ctx.now();
  const id = await tokenId(token);
  const sealed = await sealSecret(ctx, { table: "connect_selections", row: id }, payload);
  await ctx.db.batch([
    ctx.db.delete(connectSelections).where(lt(connectSelections.expiresAt, now)),
    ctx.db.insert(connectSelections).values({
      id,
      workspaceId,
      platform,
      sealed,
      expiresAt: now + ctx.config.CONNECT_STATE_TTL_SECONDS * 1000,
      createdAt: person.userId === null ? now : person.since,
      apiKeyId,
      createdByUserId: person.userId,
    }),
  ]);
  return token;
}

export interface OpenSelection {
  workspaceId: string;
  platform: string;
  payload: SelectionPayload;
  apiKeyId: string | null;
  createdByUserId: string | null;
  createdAt: number;
}

/**
 * Reads a live selection without consuming it (the GET of the page). A selection that does not open (the key
 * changed) throws ConnectError `invalid_state`, which the hosted pages show.
 */
export async function readSelection(ctx: ServiceContext, token: string): Promise<OpenSelection | null> {
  const row = await ctx.db
    .select()
    .from(connectSelections)
    .where(and(eq(connectSelections.id, await tokenId(token)), gt(connectSelections.expiresAt, ctx.now())))
    .get();
  if (!row) return null;
  return {
    workspaceId: row.workspaceId,
    platform: row.platform,
    payload: await openStep<SelectionPayload>(ctx, { table: "connect_selections", row: row.id }, row.sealed),
    apiKeyId: row.apiKeyId,
    createdByUserId: row.createdByUserId,
    createdAt: row.createdAt,
  };
}

export async function consumeSelection(ctx: ServiceContext, token: string): Promise<OpenSelection | null> {
  const [row] = await ctx.db
    .delete(connectSelections)
    .where(eq(connectSelections.id, await tokenId(token)))
    .returning();
  if (!row || row.expiresAt < ctx.now()) return null;
  return {
    workspaceId: row.workspaceId,
    platform: row.platform,
    payload: await openStep<SelectionPayload>(ctx, { table: "connect_selections", row: row.id }, row.sealed),
    apiKeyId: row.apiKeyId,
    createdByUserId: row.createdByUserId,
    createdAt: row.createdAt,
  };
}
