import { and, eq, gt, lt } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { connectSelections } from "../../db/schema";
import type { ConnectCandidate } from "../../platforms/connect";
import { openPayload, sealPayload } from "./states";
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
): Promise<string> {
  const token = newSecretToken();
  const now = ctx.now();
  await ctx.db.batch([
    ctx.db.delete(connectSelections).where(lt(connectSelections.expiresAt, now)),
    ctx.db.insert(connectSelections).values({
      id: await tokenId(token),
      workspaceId,
      platform,
      sealed: await sealPayload(ctx, payload),
      expiresAt: now + ctx.config.CONNECT_STATE_TTL_SECONDS * 1000,
      createdAt: now,
    }),
  ]);
  return token;
}

export interface OpenSelection {
  workspaceId: string;
  platform: string;
  payload: SelectionPayload;
}

/** Reads a live selection without consuming it (the GET of the page). */
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
    payload: await openPayload<SelectionPayload>(ctx, row.sealed),
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
    payload: await openPayload<SelectionPayload>(ctx, row.sealed),
  };
}
