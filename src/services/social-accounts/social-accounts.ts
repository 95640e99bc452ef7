import { and, asc, eq, sql } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { socialAccounts } from "../../db/schema";
import { notFound } from "../../lib/errors";
import { presentSocialAccount } from "../../presenters/resources";
import { upsertAccounts } from "../connect/upsert-accounts";
import { accountEvent } from "../webhooks/outbox";
import type { AccountCredentials } from "./credentials";
import { fetchMastodonLimits, limitsMeta } from "./mastodon-instance";
import { originOf, verifyBluesky, verifyMastodon } from "./verify-account";

export interface ConnectAccountInput {
  platform: string;
  display_name: string;
  username: string;
  avatar_url?: string | null;
  platform_user_id?: string | null;
  credentials: {
    access_token?: string;
    refresh_token?: string;
    expires_at?: number | null;
    identifier?: string;
    app_password?: string;
  };
  meta: Record<string, unknown>;
}

export async function listSocialAccounts(ctx: WorkspaceContext) {
  const rows = await ctx.db
    .select()
    .from(socialAccounts)
    .where(eq(socialAccounts.workspaceId, ctx.workspaceId))
    .orderBy(asc(socialAccounts.platform), asc(socialAccounts.displayName), asc(socialAccounts.createdAt));
  return rows.map(presentSocialAccount);
}

/** Account servers are the client's choice: the outbound guard's policy (docs/security.md). */
const outboundPolicy = (ctx: WorkspaceContext) => ({ allowPrivate: ctx.config.MEDIA_FETCH_ALLOW_PRIVATE });

const DEFAULT_BLUESKY_SERVICE = "https://bsky.social";

/** Connects an account from credentials obtained elsewhere (OAuth done by the caller, or app passwords). */
export async function connectSocialAccount(ctx: WorkspaceContext, input: ConnectAccountInput) {
  const meta = { ...input.meta };
  let platformUserId = input.platform_user_id ?? null;
  let username = input.username;
  let avatarUrl = input.avatar_url ?? null;
  let credentials: AccountCredentials;
  let tokenExpiresAt: number | null = input.credentials.expires_at ?? null;
  let server = "";

  if (input.platform === "bluesky") {
    const service = String(meta.service ?? DEFAULT_BLUESKY_SERVICE).replace(/\/+$/, "");
    meta.service = service;
    const session = await verifyBluesky(
      { ...outboundPolicy(ctx), plcUrl: ctx.config.BLUESKY_PLC_URL },
      service,
      input.credentials.identifier ?? "",
      input.credentials.app_password ?? "",
    );
    platformUserId = session.did;
    server = session.pds;
    meta.did = session.did;
    username = username || session.handle;
    credentials = session.credentials;
    tokenExpiresAt = null;
  } else if (input.platform === "mastodon") {
    const instance = String(meta.instance ?? "").replace(/\/+$/, "");
    meta.instance = instance;
    const account = await verifyMastodon(outboundPolicy(ctx), instance, input.credentials.access_token ?? "");
    // The instance's own character limit (docs/text-counting.md); unreadable → the catalog's 500 / 23.
    const limits = await fetchMastodonLimits(outboundPolicy(ctx), instance);
    if (limits) Object.assign(meta, limitsMeta(limits, ctx.now()));
    platformUserId = account.id;
    // The id is the instance's: the account is that id AT this instance (issue 25).
    server = originOf(instance);
    avatarUrl = avatarUrl ?? account.avatar;
    credentials = { access_token: input.credentials.access_token };
    tokenExpiresAt = null;
  } else {
    credentials = {
      access_token: input.credentials.access_token,
      refresh_token: input.credentials.refresh_token,
      expires_at: tokenExpiresAt,
    };
  }

  // Same identity again = reconnect: the existing row gets the new tokens (src/services/connect/upsert-accounts.ts).
  const [account] = await upsertAccounts(ctx, ctx.workspaceId, [
    {
      platform: input.platform,
      platformUserId,
      displayName: input.display_name,
      username,
      avatarUrl,
      credentials,
      tokenExpiresAt,
      meta,
      server,
    },
  ]);
  return account!;
}

async function findAccount(ctx: WorkspaceContext, id: string) {
  const row = await ctx.db
    .select()
    .from(socialAccounts)
    .where(and(eq(socialAccounts.id, id), eq(socialAccounts.workspaceId, ctx.workspaceId)))
    .get();
  if (!row) throw notFound();
  return row;
}

export async function toggleSocialAccount(ctx: WorkspaceContext, id: string) {
  await findAccount(ctx, id);
  // Flip in SQL so two concurrent toggles each take effect.
  const [row] = await ctx.db
    .update(socialAccounts)
    .set({ isActive: sql`NOT ${socialAccounts.isActive}`, updatedAt: ctx.now() })
    .where(and(eq(socialAccounts.id, id), eq(socialAccounts.workspaceId, ctx.workspaceId)))
    .returning();
  if (!row) throw notFound();
  return presentSocialAccount(row);
}

/** Keeps the row (post platforms keep their snapshots) but erases the credentials. */
export async function disconnectSocialAccount(ctx: WorkspaceContext, id: string) {
  const before = await findAccount(ctx, id);
  await ctx.db.batch([
    ctx.db
      .update(socialAccounts)
      .set({ status: "disconnected", isActive: false, credentials: null, tokenExpiresAt: null, updatedAt: ctx.now() })
      .where(and(eq(socialAccounts.id, id), eq(socialAccounts.workspaceId, ctx.workspaceId))),
    // Once per disconnection: a repeated DELETE of a disconnected account records nothing.
    ...(before.status === "disconnected" ? [] : [accountEvent(ctx, "account.disconnected", id)]),
  ]);
}
