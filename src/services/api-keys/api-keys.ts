import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { apiKeys, MEMBER_ROLES, workspaceMembers } from "../../db/schema";
import { randomToken, sha256Hex } from "../../lib/crypto";
import { AppError, notFound, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { revokeApiKeyEverywhere } from "../../lib/rate-limit";
import { formatIso } from "../../lib/time";
import { presentApiKey } from "../../presenters/resources";
import { endInvitationsOfRevokedKeys } from "../people/invitation-issuers";
import { ROLE_GRANTS } from "../people/roles";
import { disableEndpointsOfRevokedKeys } from "../webhooks/endpoint-makers";
import { forgetApiKey } from "./authenticate-api-key";
import {
  API_KEYS_MAX_LIVE_PER_WORKSPACE,
  API_KEYS_RESERVED_FOR_FULL,
  type ApiKeyScope,
  liveKeyLimitFor,
  scopeAllows,
  widestScope,
} from "./scopes";

/** The roles whose members may mint a key of `scope` (the `keys` area, up to the role's scope). */
const rolesMinting = (scope: ApiKeyScope) =>
  MEMBER_ROLES.filter(
    (role) => ROLE_GRANTS[role].areas.includes("keys") && scopeAllows(ROLE_GRANTS[role].scope, scope),
  );

async function personMayMint(ctx: WorkspaceContext, userId: string, scope: ApiKeyScope): Promise<boolean> {
  const row = await ctx.db
    .select({ role: workspaceMembers.role })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, ctx.workspaceId), eq(workspaceMembers.userId, userId)))
    .get();
  return !!row && rolesMinting(scope).includes(row.role);
}

/** Fixed prefix so secret scanners can match leaked keys; 32 random bytes follow (256 bits). */
export const API_KEY_PREFIX = "esp_";

export async function mintApiKey(
  workspaceId: string,
  name: string,
  expiresAt: number | null,
  now: number,
  lineage: { scope: ApiKeyScope; parentKeyId: string | null; createdByUserId?: string | null } = {
    scope: "full",
    parentKeyId: null,
  },
) {
  const plainToken = `${API_KEY_PREFIX}${randomToken(32)}`;
  const row: typeof apiKeys.$inferSelect = {
    id: newId(),
    workspaceId,
    name,
    tokenHash: await sha256Hex(plainToken),
    lastUsedAt: null,
    expiresAt,
    revokedAt: null,
    createdAt: now,
    scope: lineage.scope,
    parentKeyId: lineage.parentKeyId,
    createdByUserId: lineage.createdByUserId ?? null,
  };
  return { row, plainToken };
}

/**
 * Mints a key on behalf of the calling key (docs/security.md "API key scopes"): no wider scope than the caller's
 * (default: the caller's own), no later expiry (default: the caller's own), recorded as the caller's child so that
 * revoking the caller revokes it. The workspace's live-key cap is checked in the INSERT itself, as is the caller
 * still being live, so concurrent mints cannot exceed it and a key revoked meanwhile mints nothing. A caller that is
 * not `full` stops `API_KEYS_RESERVED_FOR_FULL` places short of the cap (liveKeyLimitFor), so delegated keys never
 * take the places the owner needs to mint.
 */
export async function createApiKey(
  ctx: WorkspaceContext,
  input: { name: string; expiresAt: number | null; scopes?: ApiKeyScope[] },
) {
  const scope = input.scopes?.length ? widestScope(input.scopes) : ctx.apiKeyScope;
  const errors: Record<string, string[]> = {};
  if (!scopeAllows(ctx.apiKeyScope, scope))
    errors.scopes = [`The scopes may not exceed this API key's own scope (${ctx.apiKeyScope}).`];
  let expiresAt = input.expiresAt;
  if (ctx.apiKeyExpiresAt !== null) {
    if (expiresAt === null) expiresAt = ctx.apiKeyExpiresAt;
    else if (expiresAt > ctx.apiKeyExpiresAt)
      errors.expires_at = [
        `The expires at field must not be later than this API key's own expiry (${formatIso(ctx.apiKeyExpiresAt)}).`,
      ];
  }
  if (Object.keys(errors).length > 0) throw validationError(errors);

  const now = ctx.now();
  const limit = liveKeyLimitFor(ctx.apiKeyScope);
  // A key minted by a signed-in person (owner or admin) is a root key of the workspace, recorded as that person's:
  // it is revoked when they leave or their new role could not mint it (src/services/people/members.ts).
  const { row, plainToken } = await mintApiKey(ctx.workspaceId, input.name, expiresAt, now, {
    scope,
    parentKeyId: ctx.apiKeyId,
    createdByUserId: ctx.person?.userId ?? null,
  });
  // The caller is still live when the row is written: its key unrevoked, or the person still a member whose role
  // mints this scope (a removal or demotion running meanwhile revokes only the keys already written).
  const callerLive =
    ctx.apiKeyId !== null
      ? sql`EXISTS (SELECT 1 FROM api_keys WHERE id = ${ctx.apiKeyId} AND revoked_at IS NULL)`
      : ctx.person !== null
        ? sql`EXISTS (SELECT 1 FROM workspace_members WHERE workspace_id = ${ctx.workspaceId}
            AND user_id = ${ctx.person.userId} AND role IN (${sql.join(rolesMinting(scope), sql`, `)}))`
        : sql`1`;
  const inserted = await ctx.db.run(sql`
    INSERT INTO api_keys (id, workspace_id, name, token_hash, last_used_at, expires_at, revoked_at, created_at, scope, parent_key_id, created_by_user_id)
    SELECT ${row.id}, ${row.workspaceId}, ${row.name}, ${row.tokenHash}, NULL, ${row.expiresAt}, NULL, ${row.createdAt}, ${row.scope}, ${row.parentKeyId}, ${row.createdByUserId}
    WHERE ${callerLive}
      AND (SELECT count(*) FROM api_keys
           WHERE workspace_id = ${ctx.workspaceId} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${now}))
          < ${limit}`);
  if (inserted.meta.changes === 0) {
    const parent =
      ctx.apiKeyId === null ||
      (await ctx.db
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .where(and(eq(apiKeys.id, ctx.apiKeyId), isNull(apiKeys.revokedAt)))
        .get());
    if (!parent)
      throw new AppError("unauthenticated", "Unauthenticated.", { headers: { "WWW-Authenticate": "Bearer" } });
    if (ctx.person !== null && !(await personMayMint(ctx, ctx.person.userId, scope)))
      throw new AppError("forbidden", "Your role in this workspace no longer allows minting this API key.");
    if (limit < API_KEYS_MAX_LIVE_PER_WORKSPACE)
      throw new AppError(
        "validation",
        `This workspace already has ${limit} live API keys; the last ${API_KEYS_RESERVED_FOR_FULL} places are kept for keys minted by a full-scope key.`,
        {
          errors: {
            name: [
              `A ${ctx.apiKeyScope}-scope API key may mint only while the workspace holds fewer than ${limit} live API keys.`,
            ],
          },
        },
      );
    throw new AppError(
      "validation",
      `This workspace already has ${API_KEYS_MAX_LIVE_PER_WORKSPACE} live API keys; revoke one first.`,
      { errors: { name: [`A workspace may hold at most ${API_KEYS_MAX_LIVE_PER_WORKSPACE} live API keys.`] } },
    );
  }
  return { token: presentApiKey(row), plain_token: plainToken };
}

export async function listApiKeys(ctx: WorkspaceContext) {
  const rows = await ctx.db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.workspaceId, ctx.workspaceId), isNull(apiKeys.revokedAt)))
    .orderBy(desc(apiKeys.createdAt), desc(sql`rowid`));
  return rows.map(presentApiKey);
}

/** The live keys of `rootId`'s subtree (itself included), in the workspace. Bounded by the live-key cap. */
function liveSubtreeQuery(ctx: WorkspaceContext, rootId: string) {
  return ctx.db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(
      and(
        isNull(apiKeys.revokedAt),
        sql`${apiKeys.id} IN (WITH RECURSIVE tree(id) AS (
          SELECT id FROM api_keys WHERE id = ${rootId} AND workspace_id = ${ctx.workspaceId}
          UNION
          SELECT k.id FROM api_keys k JOIN tree t ON k.parent_key_id = t.id
        ) SELECT id FROM tree)`,
      ),
    );
}

/**
 * Revokes a key and every key it minted (transitively). Each key's Durable Object learns first (every throttle
 * lease renewal asks it), this isolate drops its cached lookups and leases, then the rows are marked — in one
 * statement over the same tree, so a key minted meanwhile is caught too (and told to its Durable Object after).
 * The keys stop working at once here and within `LEASE_MS` (1 s, throttle-leases.ts) in every other isolate.
 *
 * Who may revoke what: a root `full` key (made by the bootstrap, or before scopes existed) any key of the workspace;
 * any other key only itself and the keys it minted, directly or not — so a delegated key can never revoke the
 * owner's keys.
 *
 * A signed-in person reaches this only as an owner or admin (the `keys` area, src/services/people/roles.ts) and
 * revokes like a root `full` key.
 *
 * Round trips (issue 28): one read batch (the target's live subtree — empty when it is not a live key here —, the
 * caller's parent and the caller's live subtree) and one write, whatever the tree holds.
 */
export async function deleteApiKey(ctx: WorkspaceContext, id: string) {
  const callerId = ctx.apiKeyId ?? "";
  const [tree, caller, callerTree] = await ctx.db.batch([
    liveSubtreeQuery(ctx, id),
    ctx.db.select({ parentKeyId: apiKeys.parentKeyId }).from(apiKeys).where(eq(apiKeys.id, callerId)),
    liveSubtreeQuery(ctx, callerId),
  ]);
  const treeIds = tree.map((r) => r.id);
  // The root of a live subtree is live itself: absent means unknown, revoked or another workspace's.
  if (!treeIds.includes(id)) throw notFound();
  const rootFull =
    ctx.apiKeyScope === "full" &&
    (ctx.apiKeyId === null || (caller[0] !== undefined && caller[0].parentKeyId === null));
  if (!rootFull && id !== ctx.apiKeyId && !callerTree.some((r) => r.id === id))
    throw new AppError("forbidden", "This API key may only revoke itself and the keys it minted.");
  await Promise.all(treeIds.map((keyId) => revokeApiKeyEverywhere(ctx.env, keyId)));
  for (const keyId of treeIds) forgetApiKey(keyId);
  // The invitations those keys made end with them (issue 35), in the same batch; lookup and accept refuse them anyway
  // (src/services/people/invitations.ts issuerCanStillInvite), this keeps them out of the list at once.
  const [marked] = await ctx.db.batch([
    ctx.db
      .update(apiKeys)
      .set({ revokedAt: ctx.now() })
      .where(sql`${apiKeys.revokedAt} IS NULL AND ${apiKeys.id} IN (
        WITH RECURSIVE tree(id) AS (
          SELECT id FROM api_keys WHERE id = ${id} AND workspace_id = ${ctx.workspaceId}
          UNION
          SELECT k.id FROM api_keys k JOIN tree t ON k.parent_key_id = t.id
        )
        SELECT id FROM tree)`)
      .returning({ id: apiKeys.id }),
    endInvitationsOfRevokedKeys(ctx, ctx.workspaceId),
    disableEndpointsOfRevokedKeys(ctx, ctx.workspaceId),
  ]);
  if (!marked.some((r) => r.id === id)) throw notFound();
  const late = marked.map((r) => r.id).filter((keyId) => !treeIds.includes(keyId));
  await Promise.all(late.map((keyId) => revokeApiKeyEverywhere(ctx.env, keyId)));
  for (const keyId of late) forgetApiKey(keyId);
}
