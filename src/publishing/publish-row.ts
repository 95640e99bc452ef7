import { and, asc, eq } from "drizzle-orm";
import { checkRowTexts, rowText } from "../catalog/follow-ups";
import { accountTextLimits } from "../catalog/rules";
import type { ServiceContext } from "../context";
import { eqFilterOnly, inJsonArray } from "../db/json-params";
import { media, postMedia, postPlatforms, posts, socialAccounts } from "../db/schema";
import { errorFields, log } from "../lib/logger";
import { mediaPublicUrl } from "../lib/media-url";
import { VariantError } from "../media/variants";
import { adapterFor } from "../platforms";
import {
  type AdapterContext,
  type AdapterMedia,
  PlatformError,
  type PublishCheckpoint,
  type PublishRequest,
  type PublishResult,
} from "../platforms/types";
import { noteLinkedInVersionSunset } from "../services/health/linkedin-version";
import { threadForRules } from "../services/posts/row-texts";
import { clearNeedsReconnect, markNeedsReconnect } from "../services/social-accounts/account-health";
import { refreshMastodonLimits } from "../services/social-accounts/mastodon-instance";
import { askAgainAfterMark, loadAccount, markTokenExpired, needsRefresh, refreshAccount } from "./accounts";
import { createAdapterContext } from "./context";
import { PUBLISH_ERRORS, RowFailure } from "./errors";
import { fitMediaForRow } from "./fit-media";
import type { PublishMessage } from "./messages";
import { recordPublishOutcome } from "./outcomes";
import { isFinalAttempt, PUBLISH_MAX_RETRIES, retryDelaySeconds } from "./retry-policy";
import {
  ClaimLost,
  claimPendingRow,
  markRowFailed,
  markRowPublished,
  noteRetry,
  type RowRecord,
  reclaimPublishingRow,
  recordMainPost,
  savePublishState,
} from "./rows";
import { type FollowUpJob, publishFollowUps, threadToSend } from "./thread";

/** What the queue transport does with the message afterwards. */
export type PublishOutcome =
  | { action: "ack"; result: "published" | "failed" | "skipped" }
  | { action: "retry"; delaySeconds: number };

export interface PublishOptions {
  /** Overrides of the adapter context (tests: instant sleeps). */
  adapterContext?: Partial<AdapterContext>;
  maxRetries?: number;
}

/**
 * Publishes one post-platform row for one queue delivery (`attempt` = `message.attempts`). The row is claimed
 * before anything reaches a platform; a delivery that cannot claim it does nothing.
 */
export async function publishRow(
  ctx: ServiceContext,
  msg: PublishMessage,
  attempt: number,
  opts: PublishOptions = {},
): Promise<PublishOutcome> {
  const current = await ctx.db
    .select({ status: postPlatforms.status, enabled: postPlatforms.enabled, postId: postPlatforms.postId })
    .from(postPlatforms)
    .innerJoin(posts, eq(posts.id, postPlatforms.postId))
    .where(and(eq(postPlatforms.id, msg.post_platform_id), eq(posts.workspaceId, msg.workspace_id)))
    .get();
  if (!current || current.postId !== msg.post_id || !current.enabled) return skipped();
  if (current.status === "published" || current.status === "failed") return skipped();

  const claimedBefore = current.status === "publishing";
  const row = claimedBefore
    ? await reclaimPublishingRow(ctx, msg.post_platform_id, attempt)
    : await claimPendingRow(ctx, msg.post_platform_id, attempt);
  if (!row) return skipped();

  const actx = createAdapterContext(ctx, opts.adapterContext);
  try {
    const finalAttempt = isFinalAttempt(attempt, opts.maxRetries ?? PUBLISH_MAX_RETRIES);
    const { main: result, followUps } = await publishClaimed(ctx, actx, row, claimedBefore, finalAttempt);
    if (followUps) {
      // Issue 20: the post is recorded before its thread and first comment, so no retry posts it again.
      if (!row.platformPostId) await recordMainPost(ctx, row, result);
      await publishFollowUps(ctx, actx, followUps, result);
    }
    await markRowPublished(ctx, row, result);
    log("info", "publish_succeeded", { post_platform_id: row.id, platform: row.platform, attempt });
    recordPublishOutcome(ctx.env, row.platform, "published", msg.workspace_id);
    return { action: "ack", result: "published" };
  } catch (err) {
    return handleFailure(ctx, row, err, attempt, opts.maxRetries ?? PUBLISH_MAX_RETRIES);
  }
}

const skipped = (): PublishOutcome => ({ action: "ack", result: "skipped" });

async function handleFailure(
  ctx: ServiceContext,
  row: RowRecord,
  err: unknown,
  attempt: number,
  maxRetries: number,
): Promise<PublishOutcome> {
  let message: string;
  let transient = false;
  let hint: number | undefined;
  if (err instanceof ClaimLost) {
    log("warn", "publish_claim_lost", { post_platform_id: row.id, platform: row.platform, attempt });
    return skipped();
  }
  if (err instanceof RowFailure) {
    message = err.message;
  } else if (err instanceof PlatformError && err.needsReconnect) {
    // A permission the network took back (docs/account-health.md): the account needs a reconnect, recorded once
    // with the network's reason; this row fails saying so. The account's next row asks the network again
    // (publishClaimed): a success clears the mark, a refusal fails that row the same way (no second event).
    await markNeedsReconnect(ctx, row.socialAccountId, err.message);
    message = PUBLISH_ERRORS.needsReconnect(err.message);
  } else if (err instanceof PlatformError) {
    // LinkedIn no longer serves the configured version: the deep health check shows it to the operator.
    if (err.status === 426 && row.platform.startsWith("linkedin"))
      await noteLinkedInVersionSunset(ctx, ctx.config.LINKEDIN_API_VERSION);
    message = err.kind === "auth" ? PUBLISH_ERRORS.sessionExpired : err.message;
    transient = err.kind === "transient";
    hint = err.retryAfterSeconds;
  } else {
    log("error", "publish_unexpected_error", { post_platform_id: row.id, platform: row.platform, ...errorFields(err) });
    message = PUBLISH_ERRORS.unexpected;
    transient = true;
  }

  if (transient && !isFinalAttempt(attempt, maxRetries)) {
    const delaySeconds = retryDelaySeconds(attempt, hint);
    await noteRetry(ctx, row, message);
    log("warn", "publish_retry", { post_platform_id: row.id, platform: row.platform, attempt, delaySeconds, message });
    recordPublishOutcome(ctx.env, row.platform, "retry");
    return { action: "retry", delaySeconds };
  }
  await markRowFailed(ctx, row, message);
  log("warn", "publish_failed", { post_platform_id: row.id, platform: row.platform, attempt, message });
  recordPublishOutcome(ctx.env, row.platform, "failed");
  return { action: "ack", result: "failed" };
}

async function publishClaimed(
  ctx: ServiceContext,
  actx: AdapterContext,
  row: RowRecord,
  claimedBefore: boolean,
  finalAttempt: boolean,
): Promise<{ main: PublishResult; followUps: FollowUpJob | null }> {
  const post = await ctx.db.select().from(posts).where(eq(posts.id, row.postId)).get();
  if (!post) throw new RowFailure(PUBLISH_ERRORS.unexpected);

  const accountRow = await ctx.db.select().from(socialAccounts).where(eq(socialAccounts.id, row.socialAccountId)).get();
  // Disconnecting also deactivates, so "disconnected" is checked first to give the more precise reason.
  if (!accountRow || accountRow.status === "disconnected" || !accountRow.credentials) {
    throw new RowFailure(PUBLISH_ERRORS.disconnected);
  }
  if (!accountRow.isActive) throw new RowFailure(PUBLISH_ERRORS.deactivated);
  if (accountRow.status === "token_expired") throw new RowFailure(PUBLISH_ERRORS.sessionExpired);
  // A mark of a permission refusal is asked again (issue 35, docs/decisions/0111): the row goes to the network, whose
  // answer is the check — the publish call is the only one that proves a write permission on most networks. An
  // account whose access has ended by time fails at once.
  const marked = accountRow.health === "needs_reconnect";
  if (marked && !askAgainAfterMark(accountRow, ctx.now())) {
    throw new RowFailure(PUBLISH_ERRORS.needsReconnect(accountRow.healthReason ?? "access ended"));
  }

  const items = await loadPostMedia(ctx, row.postId);
  // Issue 20: the row's own text, and its thread items' media (docs/threads.md).
  const content = rowText(row.content, post.content) ?? "";
  const threadMedia = await loadMediaById(
    ctx,
    post.workspaceId,
    (row.thread ?? []).flatMap((t) => t.media),
  );
  const meta = { ...(row.meta ?? {}) };
  // A Mastodon account counts against its instance's limit, read again once a day old (docs/text-counting.md).
  const accountMeta =
    row.platform === "mastodon" ? await refreshMastodonLimits(ctx, accountRow) : (accountRow.meta ?? {});
  checkRules(row, post.content, items, meta, accountMeta, threadMedia);
  // Images over the network's limits (a Mastodon instance's own, when read) go out as their fitted variants
  // (issue 16); the original never changes.
  const accountLimits = accountTextLimits(row.platform, accountMeta);
  const sent = await fitMediaForRow(ctx, row.platform, row.contentType, items, accountLimits).catch((err: unknown) => {
    throw err instanceof VariantError ? new RowFailure(err.message) : err;
  });

  const adapter = adapterFor(row.platform);
  if (!adapter) throw new RowFailure(PUBLISH_ERRORS.noAdapter);

  let loaded = await loadAccount(ctx, accountRow);
  let refreshed = false;
  const refresh = async () => {
    refreshed = true;
    const outcome = await refreshAccount(ctx, actx, adapter, loaded);
    if (!outcome.ok) throw new RowFailure(PUBLISH_ERRORS.sessionExpired);
    loaded = outcome.loaded;
  };
  if (needsRefresh(adapter, loaded, ctx.now())) await refresh();

  const checkpoint = await checkpointFor(ctx, row, content, items, meta);
  const request = (): PublishRequest => ({
    postPlatformId: row.id,
    contentType: row.contentType,
    content,
    media: sent,
    meta,
    account: loaded.account,
    checkpoint,
    finalAttempt,
  });
  // A token rejected by the platform is refreshed once; a second rejection ends the session.
  const withAuth = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof PlatformError) || err.kind !== "auth") throw err;
      if (refreshed || !adapter.refresh) {
        await markTokenExpired(ctx, loaded);
        throw new RowFailure(PUBLISH_ERRORS.sessionExpired);
      }
      await refresh();
      return call();
    }
  };

  const hasFollowUps = (row.thread?.length ?? 0) > 0 || row.firstComment !== null;
  const followUps = async (): Promise<FollowUpJob | null> =>
    hasFollowUps
      ? {
          row,
          adapter,
          account: () => loaded.account,
          contentType: row.contentType,
          meta,
          thread: await threadToSend(row.thread, (ids) =>
            fitMediaForRow(
              ctx,
              row.platform,
              row.contentType,
              ids.flatMap((id) => threadMedia.get(id) ?? []),
              accountLimits,
            ).catch((err: unknown) => {
              throw err instanceof VariantError ? new RowFailure(err.message) : err;
            }),
          ),
          firstComment: row.firstComment,
          resuming: claimedBefore || row.platformPostId !== null,
          finalAttempt,
          call: withAuth,
        }
      : null;

  // An earlier attempt already made the post and stopped in its follow-ups: continue from there.
  if (row.platformPostId) {
    const main: PublishResult = {
      platformPostId: row.platformPostId,
      platformUrl: row.platformUrl,
      ...(row.replyRef ? { replyRef: row.replyRef } : {}),
    };
    return { main, followUps: await followUps() };
  }
  if (claimedBefore && adapter.findExisting) {
    const existing = await withAuth(() => adapter.findExisting!(actx, request()));
    if (existing) {
      log("info", "publish_found_existing", { post_platform_id: row.id, platform: row.platform });
      return { main: existing, followUps: await followUps() };
    }
  }
  const job = await followUps(); // media fitted before the post is made: a thread that cannot go out fails first
  const main = await withAuth(() => adapter.publish(actx, request()));
  if (marked) await clearNeedsReconnect(ctx, row.socialAccountId);
  return { main, followUps: job };
}

/**
 * The row's publish checkpoint. What was saved is offered back only for the same request (content, type, media,
 * meta): a post edited after a lost attempt is a new post, and an old handle must not publish the old text.
 */
async function checkpointFor(
  ctx: ServiceContext,
  row: RowRecord,
  content: string,
  items: AdapterMedia[],
  meta: Record<string, unknown>,
): Promise<PublishCheckpoint> {
  const request = await requestFingerprint(row.contentType, content, items, meta);
  const stored = row.publishState;
  const saved =
    stored && stored.request === request && stored.state && typeof stored.state === "object"
      ? (stored.state as Record<string, unknown>)
      : null;
  let current = saved;
  return {
    get saved() {
      return current;
    },
    async save(state) {
      await savePublishState(ctx, row, { request, state });
      current = state;
    },
  };
}

async function requestFingerprint(
  contentType: string,
  content: string,
  items: AdapterMedia[],
  meta: Record<string, unknown>,
): Promise<string> {
  const text = JSON.stringify([contentType, content, items.map((m) => m.id), meta]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

function checkRules(
  row: RowRecord,
  postContent: string | null,
  items: AdapterMedia[],
  meta: Record<string, unknown>,
  accountMeta: Record<string, unknown>,
  threadMedia: ReadonlyMap<string, AdapterMedia>,
) {
  if (row.platform === "pinterest") {
    const board = nonEmpty(meta.board_id) ?? nonEmpty(accountMeta.default_board_id);
    if (!board) throw new RowFailure(PUBLISH_ERRORS.pinterestBoard);
    meta.board_id = board;
  }
  // The length problem (worded for publish time) comes first, then media problems, then the row's thread items and
  // first comment (issue 20: a row whose follow-ups cannot go out fails before anything is posted).
  const problems = checkRowTexts(
    {
      platform: row.platform,
      contentType: row.contentType,
      postContent,
      postMedia: items,
      content: row.content,
      thread: threadForRules(row.thread, threadMedia),
      firstComment: row.firstComment,
      limits: accountTextLimits(row.platform, accountMeta),
    },
    "publish",
  );
  const problem = problems.find((p) => p.field === "content") ?? problems[0];
  if (problem) throw new RowFailure(problem.message);
}

const nonEmpty = (v: unknown): string | undefined =>
  typeof v === "string" && v.trim() !== "" ? v : typeof v === "number" ? String(v) : undefined;

async function loadPostMedia(ctx: ServiceContext, postId: string): Promise<AdapterMedia[]> {
  const rows = await ctx.db
    .select({ m: media })
    .from(postMedia)
    .innerJoin(media, eq(media.id, postMedia.mediaId))
    .where(eq(postMedia.postId, postId))
    .orderBy(asc(postMedia.position));
  return rows.map(({ m }) => adapterMedia(ctx, m));
}

/** The workspace's media of `ids` (thread items'), by id; no statement when there are none. */
async function loadMediaById(
  ctx: ServiceContext,
  workspaceId: string,
  ids: string[],
): Promise<Map<string, AdapterMedia>> {
  if (ids.length === 0) return new Map();
  const rows = await ctx.db
    .select()
    .from(media)
    .where(and(inJsonArray(media.id, [...new Set(ids)]), eqFilterOnly(media.workspaceId, workspaceId)));
  return new Map(rows.map((m) => [m.id, adapterMedia(ctx, m)]));
}

function adapterMedia(ctx: ServiceContext, m: typeof media.$inferSelect): AdapterMedia {
  return {
    id: m.id,
    type: m.type,
    mimeType: m.mimeType,
    url: mediaPublicUrl(ctx.config, ctx.origin, m.path),
    path: m.path,
    size: m.size,
    width: m.width,
    height: m.height,
    durationSeconds: m.durationSeconds,
    originalFilename: m.originalFilename,
    alt: m.alt,
  };
}
