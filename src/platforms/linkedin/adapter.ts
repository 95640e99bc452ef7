import type { Platform } from "../../catalog/platforms";
import { couldNotConfirm, createOnce, sameText, savedState, saveState } from "../checkpoint";
import { refreshedFromTokenResponse } from "../oauth";
import { registerAdapter } from "../registry";
import {
  type AdapterAccount,
  type AdapterContext,
  type PlatformAdapter,
  PlatformError,
  type PublishRequest,
} from "../types";
import { LINKEDIN_LABEL, LinkedInApi, refreshLinkedInToken } from "./api";
import { byteRanges } from "./parts";
import {
  authorUrn,
  commentUrl,
  imageContent,
  pageMetrics,
  planMedia,
  postBody,
  postUrl,
  videoContent,
} from "./transform";

/**
 * LinkedIn member (`linkedin`) and LinkedIn Page (`linkedin-page`): same versioned REST API, different author URN.
 * Images: initializeUpload → PUT; video: initializeUpload → ETag'd part PUTs → finalizeUpload → poll; then
 * `POST /rest/posts`, whose id comes back in `x-restli-id`. Only pages have post metrics (decisions §11).
 */

function api(ctx: AdapterContext, account: AdapterAccount): LinkedInApi {
  const token = account.credentials.access_token;
  if (!token) throw new PlatformError("auth", `The ${LINKEDIN_LABEL} account has no access token.`);
  return new LinkedInApi(ctx, token);
}

async function uploadImages(ctx: AdapterContext, li: LinkedInApi, owner: string, images: PublishRequest["media"]) {
  const urns: string[] = [];
  for (const image of images) {
    const init = await li.initializeImageUpload(owner);
    await li.uploadImage(init.uploadUrl, await ctx.readMedia(image), image.mimeType);
    urns.push(init.image);
  }
  return urns;
}

async function uploadVideo(
  ctx: AdapterContext,
  li: LinkedInApi,
  owner: string,
  video: PublishRequest["media"][number],
) {
  const { body, size } = await ctx.openMedia(video);
  let init: Awaited<ReturnType<LinkedInApi["initializeVideoUpload"]>>;
  try {
    init = await li.initializeVideoUpload(owner, size);
  } catch (err) {
    await body.cancel().catch(() => {});
    throw err;
  }
  const etags: string[] = [];
  let i = 0;
  for await (const part of byteRanges(body, init.uploadInstructions)) {
    etags.push(await li.uploadPart(init.uploadInstructions[i++]!.uploadUrl, part));
  }
  await li.finalizeVideoUpload(init.video, init.uploadToken ?? "", etags);
  await li.waitForVideo(init.video);
  return init.video;
}

async function buildPostBody(ctx: AdapterContext, li: LinkedInApi, req: PublishRequest) {
  const author = authorUrn(req.account);
  const plan = planMedia(req.contentType, req.media);
  let content: Record<string, unknown> | undefined;
  if (plan.kind === "images") {
    content = imageContent(
      await uploadImages(ctx, li, author, plan.images),
      plan.images.map((m) => m.alt),
    );
  } else if (plan.kind === "video") {
    const title = typeof req.meta.title === "string" && req.meta.title ? req.meta.title : undefined;
    content = videoContent(await uploadVideo(ctx, li, author, plan.video), title);
  }
  return postBody(author, req.content, content);
}

function createLinkedInAdapter(platform: Extract<Platform, "linkedin" | "linkedin-page">): PlatformAdapter {
  const adapter: PlatformAdapter = {
    platform,

    async publish(ctx, req) {
      const li = api(ctx, req.account);
      // A retry after the create call was sent resends the very same body (same media URNs): LinkedIn either
      // creates it (the first never arrived) or answers DUPLICATE_POST naming the post the first call made.
      const sent = savedState<{ post_body: Record<string, unknown> }>(req);
      const body = sent?.post_body ?? (await buildPostBody(ctx, li, req));
      if (!sent) await saveState(req, { post_body: body });
      const created = await li.createPost(body);
      if (created.duplicate && !sent) {
        throw new PlatformError(
          "permanent",
          `LinkedIn refused the post as a duplicate of an earlier one: ${postUrl(created.urn)}`,
          { status: 422 },
        );
      }
      return { platformPostId: created.urn, platformUrl: postUrl(created.urn) };
    },

    /**
     * A first comment under the post, by the member or the Page (Comments API). No post twice: "sent at T" before
     * the call; a retry reads the post's comments for one by the same actor since T with the same text. LinkedIn
     * lets only approved apps read members' comments (403): then the comment ends as could-not-confirm.
     */
    async comment(ctx, req) {
      const li = api(ctx, req.account);
      const actor = authorUrn(req.account);
      const postUrn = req.on.platformPostId;
      const result = (urn: string) => ({ platformPostId: urn, platformUrl: commentUrl(postUrn, urn) });
      return createOnce(
        ctx.now(),
        req,
        async (since) => {
          const list = await li.comments(postUrn);
          if (!list) throw couldNotConfirm(LINKEDIN_LABEL, "comment");
          const hit = list.elements?.find(
            (c) => c.actor === actor && sameText(c.message?.text, req.content) && (c.created?.time ?? since) >= since,
          );
          if (!hit) return null;
          return result(hit.$URN ?? `urn:li:comment:(${postUrn},${hit.id})`);
        },
        async () => result(await li.createComment(postUrn, actor, req.content)),
      );
    },

    async refresh(ctx, account) {
      const refreshToken = account.credentials.refresh_token;
      if (!refreshToken) throw new PlatformError("auth", "The LinkedIn account has no refresh token; reconnect it.");
      const resp = await refreshLinkedInToken(ctx, refreshToken);
      return refreshedFromTokenResponse(resp, account.credentials, ctx.now());
    },
  };
  if (platform === "linkedin-page") {
    adapter.metrics = async (ctx, req) => {
      const stats = await api(ctx, req.account).shareStatistics(authorUrn(req.account), req.platformPostId);
      return pageMetrics(stats);
    };
  }
  return adapter;
}

export const linkedInAdapter = createLinkedInAdapter("linkedin");
export const linkedInPageAdapter = createLinkedInAdapter("linkedin-page");
registerAdapter(linkedInAdapter);
registerAdapter(linkedInPageAdapter);
