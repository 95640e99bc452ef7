import { and, eq, isNull, or } from "drizzle-orm";
import type { ServiceContext, WorkspaceContext } from "../../context";
import { apiKeys, connectLinks, workspaces } from "../../db/schema";
import { validationError } from "../../lib/errors";
import { formatIso } from "../../lib/time";
import { issuerStillMember } from "../people/issued-by";
import { publicBase } from "./connect-context";
import { allowedRedirect } from "./start-connect";
import { newSecretToken, tokenId } from "./tokens";

/**
 * Hosted connect links: a workspace hands `{PUBLIC_URL}/connect/<token>` to its end user; the page lists the
 * networks and starts each flow for the link's workspace, with no API key in the browser. Only the token's hash
 * is stored; the link works until it expires (several networks can be connected from one link), is deleted, or the
 * API key that made it is revoked or expires — a link never outlives its key (issue 25) — or the signed-in person
 * who made it leaves the workspace (issue 27, `created_by_user_id`).
 */
export const MIN_LINK_TTL_SECONDS = 300;
export const MAX_LINK_TTL_SECONDS = 7 * 86_400;

export const LINK_PURPOSE_MAX_LENGTH = 200;

export interface CreateConnectLinkInput {
  redirect_url?: string | null;
  expires_in?: number | null;
  purpose?: string | null;
}

export async function createConnectLink(ctx: WorkspaceContext, input: CreateConnectLinkInput) {
  const redirectUrl = input.redirect_url ?? null;
  if (redirectUrl !== null && !allowedRedirect(ctx, redirectUrl)) {
    throw validationError({ redirect_url: ["The redirect url is not on this server's allow-list."] });
  }
  const ttl = input.expires_in ?? ctx.config.CONNECT_LINK_TTL_SECONDS;
  const token = newSecretToken();
  const now = ctx.now();
  // Capped at the key's own expiry: a key that ends in two minutes makes a link that ends with it.
  const expiresAt = Math.min(now + ttl * 1000, ctx.apiKeyExpiresAt ?? Number.POSITIVE_INFINITY);
  const id = await tokenId(token);
  const purpose = input.purpose?.trim() || null;
  await ctx.db.insert(connectLinks).values({
    id,
    workspaceId: ctx.workspaceId,
    redirectUrl,
    expiresAt,
    createdAt: now,
    apiKeyId: ctx.apiKeyId,
    createdByUserId: ctx.person?.userId ?? null,
    purpose,
  });
  return { id, url: `${publicBase(ctx)}/connect/${token}`, purpose, expires_at: formatIso(expiresAt) };
}

export interface LiveLink {
  id: string;
  workspaceId: string;
  workspaceName: string;
  purpose: string | null;
  redirectUrl: string | null;
  expiresAt: number;
  apiKeyId: string | null;
}

/** What a token names: a live link, nothing (unknown or expired), or a link whose API key has ended. */
export type LinkLookup =
  | { link: LiveLink }
  | { refused: "unknown" }
  | { refused: "key_ended" | "person_ended"; workspaceName: string; purpose: string | null };

/** The link behind a token, checked against its expiry and its issuing key's. */
export async function resolveConnectLink(ctx: ServiceContext, token: string): Promise<LinkLookup> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return { refused: "unknown" };
  const row = await ctx.db
    .select({
      link: connectLinks,
      workspaceName: workspaces.name,
      keyRevokedAt: apiKeys.revokedAt,
      keyExpiresAt: apiKeys.expiresAt,
      keyId: apiKeys.id,
      personLive: issuerStillMember(connectLinks.workspaceId, connectLinks.createdByUserId, connectLinks.createdAt),
    })
    .from(connectLinks)
    .innerJoin(workspaces, eq(workspaces.id, connectLinks.workspaceId))
    .leftJoin(apiKeys, eq(apiKeys.id, connectLinks.apiKeyId))
    .where(eq(connectLinks.id, await tokenId(token)))
    .get();
  const now = ctx.now();
  if (!row) return { refused: "unknown" };
  const { link } = row;
  if (link.apiKeyId !== null) {
    const ended =
      row.keyId === null || row.keyRevokedAt !== null || (row.keyExpiresAt !== null && row.keyExpiresAt <= now);
    if (ended) return { refused: "key_ended", workspaceName: row.workspaceName, purpose: link.purpose };
  }
  if (link.createdByUserId !== null && !row.personLive)
    return { refused: "person_ended", workspaceName: row.workspaceName, purpose: link.purpose };
  if (link.expiresAt <= now) return { refused: "unknown" };
  return {
    link: {
      id: link.id,
      workspaceId: link.workspaceId,
      workspaceName: row.workspaceName,
      purpose: link.purpose,
      redirectUrl: link.redirectUrl,
      expiresAt: link.expiresAt,
      apiKeyId: link.apiKeyId,
    },
  };
}

/**
 * Whether a link (by id) still exists and its person (if a person made it) is still a member: a link deleted
 * mid-flow, or whose maker left, ends the flows it started.
 */
export async function linkExists(ctx: ServiceContext, linkId: string): Promise<boolean> {
  return !!(await ctx.db
    .select({ id: connectLinks.id })
    .from(connectLinks)
    .where(
      and(
        eq(connectLinks.id, linkId),
        or(
          isNull(connectLinks.createdByUserId),
          issuerStillMember(connectLinks.workspaceId, connectLinks.createdByUserId, connectLinks.createdAt),
        ),
      ),
    )
    .get());
}
