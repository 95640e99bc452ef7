import { eq, sql } from "drizzle-orm";
import { supportsThread } from "../catalog/follow-ups";
import { platformSpec } from "../catalog/platforms";
import type { ServiceContext } from "../context";
import { type FollowUpResult, postPlatforms, type ThreadItem } from "../db/schema";
import { log } from "../lib/logger";
import {
  type AdapterAccount,
  type AdapterContext,
  type AdapterMedia,
  type PlatformAdapter,
  PlatformError,
  type PublishCheckpoint,
  type PublishRequest,
  type PublishResult,
} from "../platforms/types";
import { PUBLISH_ERRORS, RowFailure } from "./errors";
import { postLink } from "./post-link";
import { ClaimLost, heldByThisDelivery, type RowRecord } from "./rows";

/**
 * Issue 20 (docs/threads.md): after a row's main post is on the network, its follow-ups — the thread items in order,
 * each a reply to the one before (`root` = the main post), then the first comment — each recorded the moment it is
 * made, so a retry of the row continues where the last attempt stopped and never posts an item twice:
 * - an item recorded `published` is skipped (its result is the next item's parent);
 * - an item a lost answer may have made is looked up first (`findExisting`, Bluesky's derived record key) and
 *   resumes from its own checkpoint (`<row id>:t<n>` / `<row id>:c` keys, `follow_up_state`);
 * - a transient failure retries the row (it stays `publishing`); on the last attempt, or for a permanent failure,
 *   the item is recorded `failed` — later thread items with it (a reply needs its parent) — and the row still
 *   ends `published`: its post is live, and the follow-ups report their own outcome.
 */

export interface FollowUpJob {
  row: RowRecord;
  adapter: PlatformAdapter;
  account: () => AdapterAccount;
  contentType: string;
  meta: Record<string, unknown>;
  /** The thread's items with their media as sent (fitted), in order. */
  thread: { content: string; media: AdapterMedia[] }[];
  firstComment: string | null;
  /** This delivery may have been preceded by one that reached the network (re-claim, or a row resumed). */
  resuming: boolean;
  finalAttempt: boolean;
  /** Wraps a platform call (token refresh on an auth error). */
  call: <T>(fn: () => Promise<T>) => Promise<T>;
}

export const threadKey = (n: number) => `t${n}`;
export const COMMENT_KEY = "c";

/** Errors that end one follow-up: everything but a transient one (unless it is the last attempt). */
function endsItem(err: unknown, finalAttempt: boolean): boolean {
  if (err instanceof ClaimLost) return false;
  if (err instanceof PlatformError) return err.kind !== "transient" || finalAttempt;
  // Unexpected errors are retried like transient ones (publish-row.ts), then end the item on the last attempt.
  return finalAttempt;
}

/** A transient failure of a follow-up, named so the row's error_message says which item is waiting. */
function named(label: string, err: unknown): unknown {
  if (err instanceof PlatformError) {
    return new PlatformError(err.kind, `${label}: ${err.message}`, {
      retryAfterSeconds: err.retryAfterSeconds,
      status: err.status,
    });
  }
  return err;
}

const messageOf = (err: unknown) =>
  err instanceof PlatformError || err instanceof RowFailure ? err.message : PUBLISH_ERRORS.unexpected;

export async function publishFollowUps(
  ctx: ServiceContext,
  actx: AdapterContext,
  job: FollowUpJob,
  main: PublishResult,
): Promise<void> {
  const results: Record<string, FollowUpResult> = { ...(job.row.followUps ?? {}) };
  const state: Record<string, Record<string, unknown>> = { ...(job.row.followUpState ?? {}) };
  let parent: PublishResult = main;
  let broken: string | null = null;

  for (let i = 0; i < job.thread.length; i++) {
    const n = i + 1;
    const key = threadKey(n);
    const done = results[key];
    if (done?.status === "published" && done.platform_post_id) {
      parent = resultOf(done);
      continue;
    }
    if (broken !== null) {
      await saveFollowUp(ctx, job.row, key, failed(`Not published: thread item ${broken} failed.`), results);
      continue;
    }
    if (done?.status === "failed") {
      broken = String(n);
      continue;
    }
    const item = job.thread[i]!;
    const request: PublishRequest = {
      postPlatformId: `${job.row.id}:${key}`,
      contentType: job.contentType,
      content: item.content,
      media: item.media,
      meta: job.meta,
      account: job.account(),
      checkpoint: await itemCheckpoint(ctx, job.row, key, state, [
        item.content,
        item.media.map((m) => m.id),
        parent.platformPostId,
      ]),
      finalAttempt: job.finalAttempt,
      replyTo: { root: main, parent },
    };
    try {
      const made = await publishOnce(actx, job, request);
      await saveFollowUp(ctx, job.row, key, publishedResult(ctx, made), results);
      parent = made;
    } catch (err) {
      if (!endsItem(err, job.finalAttempt)) throw named(`Thread item ${n}`, err);
      log("warn", "thread_item_failed", { post_platform_id: job.row.id, item: n, message: messageOf(err) });
      await saveFollowUp(ctx, job.row, key, failed(messageOf(err)), results);
      broken = String(n);
    }
  }

  if (job.firstComment === null || results[COMMENT_KEY]) return;
  try {
    const made = await commentOnce(ctx, actx, job, main, state);
    await saveFollowUp(ctx, job.row, COMMENT_KEY, publishedResult(ctx, made), results);
  } catch (err) {
    if (!endsItem(err, job.finalAttempt)) throw named("First comment", err);
    log("warn", "first_comment_failed", { post_platform_id: job.row.id, message: messageOf(err) });
    await saveFollowUp(ctx, job.row, COMMENT_KEY, failed(messageOf(err)), results);
  }
}

/** A thread item or reply-comment: looked up first when an earlier delivery may have made it. */
async function publishOnce(actx: AdapterContext, job: FollowUpJob, request: PublishRequest): Promise<PublishResult> {
  if (job.resuming && job.adapter.findExisting) {
    const existing = await job.call(() => job.adapter.findExisting!(actx, request));
    if (existing) return existing;
  }
  return job.call(() => job.adapter.publish(actx, { ...request, account: job.account() }));
}

/** The first comment: the network's comment call where it has one, else a reply to the main post. */
async function commentOnce(
  ctx: ServiceContext,
  actx: AdapterContext,
  job: FollowUpJob,
  main: PublishResult,
  state: Record<string, Record<string, unknown>>,
): Promise<PublishResult> {
  const text = job.firstComment ?? "";
  const checkpoint = await itemCheckpoint(ctx, job.row, COMMENT_KEY, state, [text, main.platformPostId]);
  const key = `${job.row.id}:${COMMENT_KEY}`;
  if (job.adapter.comment) {
    return job.call(() =>
      job.adapter.comment!(actx, {
        key,
        on: main,
        contentType: job.contentType,
        content: text,
        meta: job.meta,
        account: job.account(),
        checkpoint,
      }),
    );
  }
  if (!supportsThread(job.row.platform)) {
    throw new PlatformError(
      "permanent",
      `First comments are not available for ${platformSpec(job.row.platform).label} yet.`,
    );
  }
  return publishOnce(actx, job, {
    postPlatformId: key,
    contentType: job.contentType,
    content: text,
    media: [],
    meta: job.meta,
    account: job.account(),
    checkpoint,
    finalAttempt: job.finalAttempt,
    replyTo: { root: main, parent: main },
  });
}

const failed = (message: string): FollowUpResult => ({
  status: "failed",
  platform_post_id: null,
  platform_url: null,
  error_message: message,
});

const publishedResult = (ctx: ServiceContext, r: PublishResult): FollowUpResult => ({
  status: "published",
  platform_post_id: r.platformPostId,
  platform_url: postLink(ctx.config, r.platformUrl),
  error_message: null,
  reply_ref: r.replyRef ?? null,
});

const resultOf = (r: FollowUpResult): PublishResult => ({
  platformPostId: r.platform_post_id ?? "",
  platformUrl: r.platform_url,
  ...(r.reply_ref ? { replyRef: r.reply_ref } : {}),
});

/**
 * Records one follow-up's outcome the moment it is known (`json_set` of its key: items recorded by other writes are
 * kept). Not fenced on the claim: an item that exists on the network is the truth, like the row's own post.
 */
async function saveFollowUp(
  ctx: ServiceContext,
  row: RowRecord,
  key: string,
  result: FollowUpResult,
  results: Record<string, FollowUpResult>,
): Promise<void> {
  await ctx.db
    .update(postPlatforms)
    .set({
      followUps: sql`json_set(coalesce(${postPlatforms.followUps}, '{}'), ${`$.${key}`}, json(${JSON.stringify(result)}))`,
      updatedAt: ctx.now(),
    })
    .where(eq(postPlatforms.id, row.id));
  results[key] = result;
}

/**
 * A follow-up's own checkpoint (same contract as the row's, publish-row.ts): what an earlier attempt of this same
 * item saved (same text, media and parent), saved again fenced on the claim.
 */
async function itemCheckpoint(
  ctx: ServiceContext,
  row: RowRecord,
  key: string,
  state: Record<string, Record<string, unknown>>,
  fingerprintOf: unknown[],
): Promise<PublishCheckpoint> {
  const request = JSON.stringify(fingerprintOf);
  const stored = state[key];
  let current =
    stored && stored.request === request && stored.state && typeof stored.state === "object"
      ? (stored.state as Record<string, unknown>)
      : null;
  return {
    get saved() {
      return current;
    },
    async save(next) {
      const saved = await ctx.db
        .update(postPlatforms)
        .set({
          followUpState: sql`json_set(coalesce(${postPlatforms.followUpState}, '{}'), ${`$.${key}`}, json(${JSON.stringify({ request, state: next })}))`,
          updatedAt: ctx.now(),
        })
        .where(heldByThisDelivery(row))
        .returning({ id: postPlatforms.id });
      if (saved.length === 0) throw new ClaimLost("The row was claimed by another delivery.");
      state[key] = { request, state: next };
      current = next;
    },
  };
}

/** Stored thread items → what the job sends, with each item's media resolved (and fitted) by `resolve`. */
export async function threadToSend(
  thread: ThreadItem[] | null,
  resolve: (ids: string[]) => Promise<AdapterMedia[]>,
): Promise<{ content: string; media: AdapterMedia[] }[]> {
  const out: { content: string; media: AdapterMedia[] }[] = [];
  for (const item of thread ?? []) out.push({ content: item.content, media: await resolve(item.media) });
  return out;
}
