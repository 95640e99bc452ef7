import { log } from "../../lib/logger";
import { couldNotConfirm, createOnce, sameText, savedState, saveState } from "../checkpoint";
import { requireToken } from "../meta/graph";
import { verifyGraphToken } from "../meta/refresh";
import { registerAdapter } from "../registry";
import {
  type AdapterAccount,
  type AdapterContext,
  type PlatformAdapter,
  PlatformError,
  type PublishRequest,
  type PublishResult,
} from "../types";
import { FACEBOOK_LABEL, FacebookApi } from "./api";
import {
  attachedMediaBody,
  commentUrl,
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

/** Stories cannot be listed back: once the publishing call was sent, a retry cannot tell whether it went live. */
async function storyOnce(req: PublishRequest): Promise<void> {
  if (savedState<{ story_sent_at?: number }>(req)?.story_sent_at) throw couldNotConfirm("Facebook");
  await saveState(req, { story_sent_at: Date.now() });
}

/**
 * Reel: start (→ video_id, saved) → hand Meta the URL → finish with video_state=PUBLISHED → watch processing.
 * A retry with a saved video_id asks the video: finished (its publishing phase began) → that reel; otherwise the
 * upload and finish are done again on the same video id.
 */
async function publishReel(
  fb: FacebookApi,
  req: PublishRequest,
  fileUrl: string,
  description: string | undefined,
): Promise<PublishResult> {
  const saved = savedState<{ video_id: string; upload_url: string }>(req);
  let videoId = saved?.video_id;
  let uploadUrl = saved?.upload_url;
  let finished = false;
  if (videoId) {
    const st = (await fb.videoStatus(videoId)).status;
    finished =
      st?.publishing_phase?.status === "complete" ||
      st?.publishing_phase?.status === "in_progress" ||
      st?.video_status === "ready" ||
      st?.video_status === "processing";
  }
  if (!videoId) {
    const start = await fb.reelStart();
    videoId = start.video_id;
    uploadUrl = start.upload_url;
    await saveState(req, { video_id: videoId, upload_url: uploadUrl });
    ensureSuccess(await fb.uploadByUrl(uploadUrl, fileUrl), "reel upload");
  } else if (!finished && uploadUrl) {
    ensureSuccess(await fb.uploadByUrl(uploadUrl, fileUrl), "reel upload");
  }
  if (!finished) ensureSuccess(await fb.reelFinish(videoId, description), "reel");
  // Finished with video_state=PUBLISHED the reel is committed: a slow processing phase is not a failure
  // (a retry would post it twice); a processing error is.
  const ready = await fb.waitForReel(videoId);
  if (!ready) log("warn", "facebook.reel_still_processing", { videoId });
  return { platformPostId: videoId, platformUrl: reelUrl(videoId) };
}

export const facebookAdapter: PlatformAdapter = {
  platform: "facebook",

  /**
   * No post twice: feed, photo and video posts are created by one call whose answer is the only handle, so a retry
   * after it looks among the Page's posts (or videos) since the call for the same text; a reel saves its
   * `video_id` at start and a retry asks that video; stories cannot be looked up (could not confirm).
   */
  async publish(ctx, req): Promise<PublishResult> {
    const fb = pageApi(ctx, req.account);
    const plan = planFacebook(req.contentType, req.content, req.media);
    const findPost = (text: string | undefined) => async (since: number) => {
      const list = await fb.recent("published_posts", since);
      const hit = list.data?.find((p) => sameText(p.message, text));
      return hit ? feedResult(fb.pageId, { id: hit.id, permalink_url: hit.permalink_url }) : null;
    };
    switch (plan.kind) {
      case "text":
        return createOnce(ctx.now(), req, findPost(req.content), async () =>
          feedResult(fb.pageId, await fb.feed(plan.body)),
        );
      case "photo":
        return createOnce(ctx.now(), req, findPost(req.content), async () => {
          const res = await fb.photo(plan.body);
          const postId = res.post_id ?? res.id;
          return { platformPostId: postId, platformUrl: postUrl(fb.pageId, postId) };
        });
      case "multi_photo":
        return createOnce(ctx.now(), req, findPost(req.content), async () => {
          // Unpublished photos are invisible until attached: uploading them again on a retry posts nothing twice.
          const ids: string[] = [];
          for (const photo of plan.photos) ids.push((await fb.photo(photo)).id);
          return feedResult(fb.pageId, await fb.feed(attachedMediaBody(ids, plan.message)));
        });
      case "video":
        return createOnce(
          ctx.now(),
          req,
          async (since) => {
            const list = await fb.recent("videos", since);
            const hit = list.data?.find((v) => sameText(v.description, req.content));
            return hit ? { platformPostId: hit.id, platformUrl: videoUrl(fb.pageId, hit.id) } : null;
          },
          async () => {
            const res = await fb.video(plan.body);
            return { platformPostId: res.id, platformUrl: videoUrl(fb.pageId, res.id) };
          },
        );
      case "reel":
        return publishReel(fb, req, plan.media.url, plan.description);
      case "photo_story": {
        await storyOnce(req);
        const photo = await fb.photo(plan.photo);
        const res = await fb.photoStory(photo.id);
        ensureSuccess(res, "story");
        return { platformPostId: res.post_id ?? photo.id, platformUrl: null };
      }
      case "video_story": {
        const start = await fb.videoStoryStart();
        ensureSuccess(await fb.uploadByUrl(start.upload_url, plan.media.url), "story upload");
        await storyOnce(req);
        const res = await fb.videoStoryFinish(start.video_id);
        ensureSuccess(res, "story");
        return { platformPostId: res.post_id ?? start.video_id, platformUrl: null };
      }
    }
  },

  /**
   * A first comment under the Page's post, as the Page. No post twice: "sent at T" before the call; a retry reads
   * the post's comments since T (newest first, 25) for one by the Page with the same text.
   */
  async comment(ctx, req): Promise<PublishResult> {
    const fb = pageApi(ctx, req.account);
    const on = req.on.platformPostId;
    const result = (id: string): PublishResult => ({
      platformPostId: id,
      platformUrl: commentUrl(req.on.platformUrl, id),
    });
    return createOnce(
      ctx.now(),
      req,
      async (since) => {
        const list = await fb.recentComments(on, since);
        const hit = list.data?.find((c) => sameText(c.message, req.content) && (c.from?.id ?? fb.pageId) === fb.pageId);
        return hit ? result(hit.id) : null;
      },
      async () => result((await fb.comment(on, req.content)).id),
    );
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
