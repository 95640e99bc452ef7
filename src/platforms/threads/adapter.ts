import { log } from "../../lib/logger";
import { requireToken } from "../meta/graph";
import { refreshLongLivedToken } from "../meta/refresh";
import { registerAdapter } from "../registry";
import type { AdapterAccount, AdapterContext, PlatformAdapter } from "../types";
import { THREADS_LABEL, ThreadsApi } from "./api";
import { carouselParent, planThreads, THREADS_METRIC_NAMES, threadsMetrics, threadsUrl } from "./transform";

/** Threads: text, image, video, carousel — container, (poll), `threads_publish`. */

function api(ctx: AdapterContext, account: AdapterAccount): ThreadsApi {
  const token = requireToken(THREADS_LABEL, account.credentials.access_token);
  // A Threads token belongs to one user, so `me` works when the user id was not stored.
  return new ThreadsApi(ctx, token, account.platformUserId ?? "me");
}

export const threadsAdapter: PlatformAdapter = {
  platform: "threads",

  async publish(ctx, req) {
    const th = api(ctx, req.account);
    const plan = planThreads(req.content, req.media);

    let creationId: string;
    if (plan.kind === "single") {
      creationId = await th.createContainer(plan.container);
      if (plan.poll) await th.waitUntilFinished(creationId);
    } else {
      const children: string[] = [];
      for (const child of plan.children) children.push(await th.createContainer(child));
      for (const id of children) await th.waitUntilFinished(id);
      creationId = await th.createContainer(carouselParent(children, plan.text));
      await th.waitUntilFinished(creationId);
    }

    const mediaId = await th.publish(creationId);
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
