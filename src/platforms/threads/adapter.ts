import { log } from "../../lib/logger";
import { publishContainerOnce } from "../meta/containers";
import { requireToken } from "../meta/graph";
import { refreshLongLivedToken } from "../meta/refresh";
import { registerAdapter } from "../registry";
import { type AdapterAccount, type AdapterContext, type PlatformAdapter, PlatformError } from "../types";
import { THREADS_LABEL, ThreadsApi } from "./api";
import {
  carouselParent,
  planThreads,
  THREADS_METRIC_NAMES,
  type ThreadsPlan,
  threadsMetrics,
  threadsProfileUrl,
  threadsUrl,
} from "./transform";

/** Threads: text, image, video, carousel — container, (poll), `threads_publish`. */

function api(ctx: AdapterContext, account: AdapterAccount): ThreadsApi {
  const token = requireToken(THREADS_LABEL, account.credentials.access_token);
  // A Threads token belongs to one user, so `me` works when the user id was not stored.
  return new ThreadsApi(ctx, token, account.platformUserId ?? "me");
}

function withReplyTo(plan: ThreadsPlan, parentId: string | undefined): ThreadsPlan {
  if (!parentId || plan.kind !== "single") return plan;
  return { ...plan, container: { ...plan.container, reply_to_id: parentId } };
}

/** How long a row over the publishing quota waits before it looks again (the retry policy's longest delay). */
export const THREADS_QUOTA_RECHECK_SECONDS = 1800;

/**
 * Threads allows 250 API-published posts and 1,000 replies per profile in a moving 24-hour window, and refuses
 * `threads_publish` past them (developers.facebook.com/documentation/threads/overview "Posts";
 * …/retrieve-and-manage-replies "Rate limits"), advising apps that schedule posts to check first. Read before
 * anything is created: over the quota the row waits (transient, 30 minutes between looks, over the queue's retries)
 * and, still over it on the last attempt, fails with this message. Threads does not say when the oldest post leaves
 * the window, so the wait is not to the minute. A check that fails (a missing permission, an outage) does not stop
 * the post: Threads still enforces the limit itself; an expired token goes on to the refresh as usual.
 */
async function checkQuota(th: ThreadsApi, kind: "post" | "reply"): Promise<void> {
  let usage: number | undefined;
  let total: number | undefined;
  try {
    const limit = (await th.publishingLimit(kind)).data?.[0];
    usage = kind === "post" ? limit?.quota_usage : limit?.reply_quota_usage;
    total = (kind === "post" ? limit?.config : limit?.reply_config)?.quota_total;
  } catch (err) {
    if (err instanceof PlatformError && err.kind === "auth") throw err;
    log("warn", "threads.quota_check_failed", { kind, reason: err instanceof Error ? err.message : String(err) });
    return;
  }
  if (typeof usage !== "number" || typeof total !== "number" || usage < total) return;
  const what = kind === "post" ? "posts" : "replies";
  throw new PlatformError(
    "transient",
    `Threads' publishing limit is reached: ${usage} of ${total} ${what} in the last 24 hours (a moving window). ` +
      `Nothing was sent; the ${kind} goes out once the window has room.`,
    { retryAfterSeconds: THREADS_QUOTA_RECHECK_SECONDS },
  );
}

export const threadsAdapter: PlatformAdapter = {
  platform: "threads",

  async publish(ctx, req) {
    const th = api(ctx, req.account);
    // A thread item or first comment is a reply: `reply_to_id` on the container that is published (not on
    // carousel children). Only replies in the account's own threads are made, which Threads allows any app.
    const parentId = req.replyTo?.parent.platformPostId;
    const plan = withReplyTo(planThreads(req.content, req.media), parentId);
    const { mediaId, creationId } = await publishContainerOnce(ctx, req, {
      create: async () => {
        // Only before a new post is made: a container saved by an earlier attempt may already count in the quota.
        await checkQuota(th, parentId ? "reply" : "post");
        if (plan.kind === "single") {
          const id = await th.createContainer(plan.container);
          if (plan.poll) await th.waitUntilFinished(id);
          return id;
        }
        const children: string[] = [];
        for (const child of plan.children) children.push(await th.createContainer(child));
        for (const id of children) await th.waitUntilFinished(id);
        const parent = await th.createContainer({ ...carouselParent(children, plan.text), reply_to_id: parentId });
        await th.waitUntilFinished(parent);
        return parent;
      },
      fate: (id) => th.fate(id),
      publish: (id) => th.publish(id),
      findPublished: async (since) => {
        const wanted = req.content.trim();
        if (parentId) {
          // Reading replies needs `threads_read_replies`: without it the reply (published, per its container) is
          // recorded at the profile rather than failed.
          const replies = await th.recentReplies(since).catch((err: unknown) => {
            if (err instanceof PlatformError && err.kind === "permanent") return { data: [] };
            throw err;
          });
          return (
            replies.data?.find((t) => (t.text ?? "").trim() === wanted && t.replied_to?.id === parentId)?.id ?? null
          );
        }
        const list = await th.recentThreads(since);
        return list.data?.find((t) => (t.text ?? "").trim() === wanted)?.id ?? null;
      },
    });
    // Published per its container but not among the account's recent threads: live, so published at the profile.
    if (!mediaId) return { platformPostId: creationId, platformUrl: threadsProfileUrl(req.account.username) };
    // Published: a failed permalink lookup must not turn into a retry (and a duplicate thread).
    let platformUrl: string | null = null;
    try {
      platformUrl = threadsUrl(await th.permalink(mediaId), req.account.username);
    } catch (err) {
      log("warn", "threads.permalink_failed", { mediaId, reason: err instanceof Error ? err.message : String(err) });
    }
    return { platformPostId: mediaId, platformUrl };
  },

  refresh(ctx, account) {
    return refreshLongLivedToken(ctx, account, {
      label: THREADS_LABEL,
      host: ctx.config.THREADS_GRAPH_URL,
      grantType: "th_refresh_token",
    });
  },

  async metrics(ctx, req) {
    return threadsMetrics(await api(ctx, req.account).insights(req.platformPostId, THREADS_METRIC_NAMES));
  },
};

registerAdapter(threadsAdapter);
