import { count, desc, eq, sql } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { aliased } from "../../db/aliased";
import { apiKeys, connectLinks } from "../../db/schema";
import { formatIso } from "../../lib/time";
import { issuerStillMember } from "../people/issued-by";

export const CONNECT_LINKS_PER_PAGE = 50;

export type ConnectLinkStatus = "active" | "expired" | "key_ended" | "person_left";

/** A link as the API shows it (never its token: only its hash, the id, is stored). */
export function presentConnectLink(
  link: typeof connectLinks.$inferSelect,
  key: { id: string | null; revokedAt: number | null; expiresAt: number | null },
  now: number,
  /** Whether the person who made the link (if a person did) is still a member since before it was made. */
  personLive = true,
) {
  const keyEnded =
    link.apiKeyId !== null &&
    (key.id === null || key.revokedAt !== null || (key.expiresAt !== null && key.expiresAt <= now));
  const personLeft = link.createdByUserId !== null && !personLive;
  const status: ConnectLinkStatus = keyEnded
    ? "key_ended"
    : personLeft
      ? "person_left"
      : link.expiresAt <= now
        ? "expired"
        : "active";
  return {
    id: link.id,
    purpose: link.purpose,
    redirect_url: link.redirectUrl,
    api_key_id: link.apiKeyId,
    status,
    expires_at: formatIso(link.expiresAt),
    created_at: formatIso(link.createdAt),
  };
}

/** The workspace's connect links, newest first, 50 per page (expired and ended ones too, until deleted). */
export async function listConnectLinks(ctx: WorkspaceContext, page: number) {
  const where = eq(connectLinks.workspaceId, ctx.workspaceId);
  const [rows, [total]] = await ctx.db.batch([
    ctx.db
      .select({
        link: connectLinks,
        // Aliased: batch rows are keyed by column name, and both tables have `id` and `expires_at`.
        keyId: aliased(apiKeys.id, "key_id"),
        keyRevokedAt: aliased(apiKeys.revokedAt, "key_revoked_at"),
        keyExpiresAt: aliased(apiKeys.expiresAt, "key_expires_at"),
        personLive:
          sql<number>`${issuerStillMember(connectLinks.workspaceId, connectLinks.createdByUserId, connectLinks.createdAt)}`.as(
            "person_live",
          ),
      })
      .from(connectLinks)
      .leftJoin(apiKeys, eq(apiKeys.id, connectLinks.apiKeyId))
      .where(where)
      // Ties (links made in the same millisecond) in the order they were made: the table's rowid.
      .orderBy(desc(connectLinks.createdAt), desc(sql`${connectLinks}.rowid`))
      .limit(CONNECT_LINKS_PER_PAGE)
      .offset((page - 1) * CONNECT_LINKS_PER_PAGE),
    ctx.db.select({ n: count() }).from(connectLinks).where(where),
  ]);
  const now = ctx.now();
  const n = total?.n ?? 0;
  return {
    data: rows.map((r) =>
      presentConnectLink(
        r.link,
        { id: r.keyId, revokedAt: r.keyRevokedAt, expiresAt: r.keyExpiresAt },
        now,
        !!r.personLive,
      ),
    ),
    meta: {
      current_page: page,
      per_page: CONNECT_LINKS_PER_PAGE,
      total: n,
      last_page: Math.max(1, Math.ceil(n / CONNECT_LINKS_PER_PAGE)),
    },
  };
}
