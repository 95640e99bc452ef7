import { and, eq, gt } from "drizzle-orm";
import type { ServiceContext, WorkspaceContext } from "../../context";
import { connectLinks } from "../../db/schema";
import { validationError } from "../../lib/errors";
import { formatIso } from "../../lib/time";
import { publicBase } from "./connect-context";
import { allowedRedirect } from "./start-connect";
import { newSecretToken, tokenId } from "./tokens";

/**
 * Hosted connect links: a workspace hands `{PUBLIC_URL}/connect/<token>` to its end user; the page lists the
 * networks and starts each flow for the link's workspace, with no API key in the browser. Only the token's hash
 * is stored; the link works until it expires (several networks can be connected from one link).
 */
export const MIN_LINK_TTL_SECONDS = 300;
export const MAX_LINK_TTL_SECONDS = 7 * 86_400;

export interface CreateConnectLinkInput {
  redirect_url?: string | null;
  expires_in?: number | null;
}

export async function createConnectLink(ctx: WorkspaceContext, input: CreateConnectLinkInput) {
  const redirectUrl = input.redirect_url ?? null;
  if (redirectUrl !== null && !allowedRedirect(ctx, redirectUrl)) {
    throw validationError({ redirect_url: ["The redirect url is not on this server's allow-list."] });
  }
  const ttl = input.expires_in ?? ctx.config.CONNECT_LINK_TTL_SECONDS;
  const token = newSecretToken();
  const now = ctx.now();
  const expiresAt = now + ttl * 1000;
  await ctx.db.insert(connectLinks).values({
    id: await tokenId(token),
    workspaceId: ctx.workspaceId,
    redirectUrl,
    expiresAt,
    createdAt: now,
  });
  return { url: `${publicBase(ctx)}/connect/${token}`, expires_at: formatIso(expiresAt) };
}

export interface LiveLink {
  id: string;
  workspaceId: string;
  redirectUrl: string | null;
  expiresAt: number;
}

/** The link behind a token, or null when unknown or expired. */
export async function resolveConnectLink(ctx: ServiceContext, token: string): Promise<LiveLink | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const row = await ctx.db
    .select()
    .from(connectLinks)
    .where(and(eq(connectLinks.id, await tokenId(token)), gt(connectLinks.expiresAt, ctx.now())))
    .get();
  return row
    ? { id: row.id, workspaceId: row.workspaceId, redirectUrl: row.redirectUrl, expiresAt: row.expiresAt }
    : null;
}
