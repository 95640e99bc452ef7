import { log } from "../../lib/logger";
import { requireToken } from "../meta/graph";
import { verifyGraphToken } from "../meta/refresh";
import { registerAdapter } from "../registry";
import {
  type AdapterAccount,
  type AdapterContext,
  type PlatformAdapter,
  PlatformError,
  type PublishResult,
} from "../types";
import { FACEBOOK_LABEL, FacebookApi } from "./api";
import {
  attachedMediaBody,
  FACEBOOK_METRIC_NAMES,
  facebookMetrics,
  facebookVideoMetrics,
  feedResult,
  isVideoNode,
  planFacebook,
  postUrl,
  reelUrl,
  videoUrl,
} from "./transform";

/** Facebook Page: feed text, photo, multi-photo (`attached_media`), video, reel (3 phases), story. */

function pageApi(ctx: AdapterContext, account: AdapterAccount): FacebookApi {
  const token = requireToken(FACEBOOK_LABEL, account.credentials.access_token);
  const pageId = account.platformUserId ?? (typeof account.meta.page_id === "string" ? account.meta.page_id : null);
  if (!pageId) throw new PlatformError("permanent", "The Facebook account has no page id.");
  return new FacebookApi(ctx, token, pageId);
}

function ensureSuccess(res: { success?: boolean }, what: string): void {
  if (res.success === false) throw new PlatformError("transient", `Facebook did not confirm the ${what}.`);
}

export const facebookAdapter: PlatformAdapter = {
  platform: "facebook",

  async publish(ctx, req): Promise<PublishResult> {
    const fb = pageApi(ctx, req.account);
    const plan = planFacebook(req.contentType, req.content, req.media);
    switch (plan.kind) {
      case "text":
        return feedResult(fb.pageId, await fb.feed(plan.body));
      case "photo": {
        const res = await fb.photo(plan.body);
        const postId = res.post_id ?? res.id;
        return { platformPostId: postId, platformUrl: postUrl(fb.pageId, postId) };
      }
      case "multi_photo": {
        const ids: string[] = [];
        for (const photo of plan.photos) ids.push((await fb.photo(photo)).id);
        return feedResult(fb.pageId, await fb.feed(attachedMediaBody(ids, plan.message)));
      }
      case "video": {
        const res = await fb.video(plan.body);
        return { platformPostId: res.id, platformUrl: videoUrl(fb.pageId, res.id) };
      }
      case "reel": {
        const start = await fb.reelStart();
        ensureSuccess(await fb.uploadByUrl(start.upload_url, plan.media.url), "reel upload");
        ensureSuccess(await fb.reelFinish(start.video_id, plan.description), "reel");
        // Finished with video_state=PUBLISHED the reel is committed: a slow processing phase is not a failure
        // (a retry would post it twice); a processing error is.
        const ready = await fb.waitForReel(start.video_id);
        if (!ready) log("warn", "facebook.reel_still_processing", { videoId: start.video_id });
        return { platformPostId: start.video_id, platformUrl: reelUrl(start.video_id) };
      }
      case "photo_story": {
        const photo = await fb.photo(plan.photo);
        const res = await fb.photoStory(photo.id);
        ensureSuccess(res, "story");
        return { platformPostId: res.post_id ?? photo.id, platformUrl: null };
      }
      case "video_story": {
        const start = await fb.videoStoryStart();
        ensureSuccess(await fb.uploadByUrl(start.upload_url, plan.media.url), "story upload");
        const res = await fb.videoStoryFinish(start.video_id);
        ensureSuccess(res, "story");
        return { platformPostId: res.post_id ?? start.video_id, platformUrl: null };
      }
    }
  },

  refresh(ctx, account) {
    // No refresh grant, and Page tokens from a long-lived user token do not expire: check that it still works.
    return verifyGraphToken(pageApi(ctx, account).graph, account);
  },

  async metrics(ctx, req) {
    const fb = pageApi(ctx, req.account);
    if (isVideoNode(req.contentType, req.platformUrl)) {
      return facebookVideoMetrics(await fb.videoInsights(req.platformPostId));
    }
    return facebookMetrics(await fb.insights(req.platformPostId, FACEBOOK_METRIC_NAMES));
  },
};

registerAdapter(facebookAdapter);
