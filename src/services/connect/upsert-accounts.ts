import { and, eq, or, sql } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { socialAccounts } from "../../db/schema";
import { conflict } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { presentSocialAccount, type SocialAccountResource } from "../../presenters/resources";
import { accessFacts, connectedHealth } from "../social-accounts/account-health";
import type { AccountCredentials } from "../social-accounts/credentials";
import { sealCredentials } from "../social-accounts/credentials";
import { accountEvent } from "../webhooks/outbox";

export interface AccountToStore {
  platform: string;
  platformUserId: string | null;
  displayName: string;
  username: string;
  avatarUrl: string | null;
  credentials: AccountCredentials;
  tokenExpiresAt: number | null;
  meta: Record<string, unknown>;
  /**
   * The origin that answers for the account (Mastodon instance, Bluesky PDS from the verified DID document); ''
   * or absent for single-server networks. Part of the identity.
   */
  server?: string;
}

/**
 * Connect or reconnect: one row per (workspace, platform, network account id, server) — the unique index of
 * migrations 0008 and 0011. Connecting an identity again keeps its row id (posts keep pointing at it), replaces
 * its tokens and profile, merges meta and sets it connected and active. All accounts of one pick are written in one
 * batch.
 *
 * A reconnect never moves an account to another server (issue 25, docs/security.md "Connected accounts:
 * identity"): the same Mastodon id on another instance is another account (a new row); a Bluesky DID whose
 * verified PDS differs from the one its connected row is bound to is refused (409) — the DID is one account, and it
 * moves only by being connected again after its row was disconnected. A Bluesky row from before migration 0011
 * (server '') is bound to the server of its first verified reconnect.
 */
export async function upsertAccounts(
  ctx: ServiceContext,
  workspaceId: string,
  accounts: AccountToStore[],
): Promise<SocialAccountResource[]> {
  if (accounts.length === 0) return [];
  const now = ctx.now();
  // Ids first (an existing identity keeps its id), so the `account.connected` webhook event of each row can be
  // written in the same batch. Bounded: a pick is at most one login's accounts (≤ 50 organizations, 100 Pages).
  const identified = accounts.filter((a) => a.platformUserId !== null);
  const existing = identified.length
    ? await ctx.db
        .select({
          id: socialAccounts.id,
          platform: socialAccounts.platform,
          puid: socialAccounts.platformUserId,
          server: socialAccounts.server,
          status: socialAccounts.status,
        })
        .from(socialAccounts)
        .where(
          and(
            eq(socialAccounts.workspaceId, workspaceId),
            or(
              ...identified.map((a) =>
                and(eq(socialAccounts.platform, a.platform), eq(socialAccounts.platformUserId, a.platformUserId!)),
              ),
            ),
          ),
        )
    : [];
  const servers = accounts.map((a) => a.server ?? "");
  /** Legacy Bluesky rows (server '') bound now: the UPDATE runs in the batch before their upsert. */
  const bind: { id: string; server: string }[] = [];
  const ids = accounts.map((a, i) => {
    const same = existing.filter((e) => e.platform === a.platform && e.puid === a.platformUserId);
    const exact = same.find((e) => e.server === servers[i]);
    if (exact) return exact.id;
    if (a.platform === "bluesky") {
      const legacy = same.find((e) => e.server === "");
      if (legacy) {
        bind.push({ id: legacy.id, server: servers[i]! });
        return legacy.id;
      }
      const elsewhere = same.find((e) => e.status !== "disconnected");
      if (elsewhere) {
        throw conflict(
          `This Bluesky account (${a.platformUserId}) is connected through ${elsewhere.server}, and its DID document ` +
            `now names ${servers[i]}. A connected account never moves to another server: disconnect it ` +
            `(DELETE /api/social-accounts/${elsewhere.id}) and connect it again.`,
        );
      }
    }
    return newId();
  });
  // Seal first: query builders are thenables, so they must not pass through an await before the batch.
  // Sealed for the row id they will live in (AES-GCM additional data, docs/security.md).
  const sealed = await Promise.all(accounts.map((a, i) => sealCredentials(ctx, ids[i]!, a.credentials)));
  const statements = accounts.map((a, i) => {
    // Issue 29: what the new tokens say about renewal, and health back to ok (a reconnect clears needs_reconnect).
    const health = connectedHealth(accessFacts(ctx.config, a.platform, a.credentials, a.tokenExpiresAt, now), now);
    return ctx.db
      .insert(socialAccounts)
      .values({
        id: ids[i]!,
        workspaceId,
        platform: a.platform,
        platformUserId: a.platformUserId,
        server: servers[i]!,
        displayName: a.displayName.slice(0, 255),
        username: a.username.slice(0, 255),
        avatarUrl: a.avatarUrl,
        isActive: true,
        status: "connected",
        credentials: sealed[i]!,
        tokenExpiresAt: a.tokenExpiresAt,
        ...health,
        meta: a.meta,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoUpdate({
        target: [
          socialAccounts.workspaceId,
          socialAccounts.platform,
          socialAccounts.platformUserId,
          socialAccounts.server,
        ],
        targetWhere: sql`platform_user_id IS NOT NULL`,
        set: {
          displayName: sql`excluded.display_name`,
          username: sql`excluded.username`,
          avatarUrl: sql`coalesce(excluded.avatar_url, ${socialAccounts.avatarUrl})`,
          isActive: true,
          status: "connected",
          // Sealed for ids[i]: only valid in that row. A concurrent connect that created the row under another id
          // meanwhile keeps its own credentials rather than receive ones that would not open there.
          credentials: sql`CASE WHEN excluded.id = ${socialAccounts.id} THEN excluded.credentials ELSE ${socialAccounts.credentials} END`,
          tokenExpiresAt: sql`excluded.token_expires_at`,
          ...health,
          meta: sql`json_patch(${socialAccounts.meta}, excluded.meta)`,
          updatedAt: now,
        },
      })
      .returning();
  });
  const events = ids.map((id) => accountEvent(ctx, "account.connected", id));
  const binds = bind.map((b) =>
    ctx.db
      .update(socialAccounts)
      .set({ server: b.server })
      .where(and(eq(socialAccounts.id, b.id), eq(socialAccounts.server, ""))),
  );
  const [first, ...rest] = [...binds, ...statements];
  const results = await ctx.db.batch([first!, ...rest, ...events]);
  return results
    .slice(binds.length, binds.length + statements.length)
    .map((rows) => presentSocialAccount((rows as (typeof socialAccounts.$inferSelect)[])[0]!));
}
