import { log } from "../../lib/logger";
import { ChunkReader } from "../chunk-reader";
import { refreshedFromTokenResponse, requireToken } from "../oauth";
import { registerAdapter } from "../registry";
import {
  type AdapterAccount,
  type AdapterContext,
  type PlatformAdapter,
  PlatformError,
  type PublishRequest,
  type PublishResult,
  type RefreshedCredentials,
} from "../types";
import { refreshTikTokToken, TikTokApi } from "./api";
import { choosePrivacyLevel, photoInitBody, planChunks, postUrl, statusOutcome, videoInitBody } from "./transform";
import type { TikTokCreatorInfo } from "./types";

/**
 * TikTok (Content Posting API, Direct Post). Videos go up as FILE_UPLOAD chunks streamed from R2 (no domain
 * verification needed), or as PULL_FROM_URL from the public media URL when row or account `meta.video_source`
 * is "PULL_FROM_URL". Photo posts are PULL_FROM_URL only (TikTok's rule). No metrics: TikTok is
 * `platform_not_supported` (decisions §11).
 *
 * Once TikTok has accepted a post (init succeeded and the bytes are up) it publishes asynchronously; the adapter
 * then never throws a retryable error, so a retry can never post twice. It polls `status/fetch` up to
 * STATUS_POLLS times; a FAILED status fails the row, PUBLISH_COMPLETE returns the public post id, and a post
 * still processing (or complete without a public id, as private posts are) is reported with its `publish_id`
 * and no URL.
 */
export const STATUS_POLL_INTERVAL_MS = 5_000;
export const STATUS_POLLS = 36;

const accessToken = (account: AdapterAccount): string => requireToken(account, "access", "TikTok");

async function publish(ctx: AdapterContext, req: PublishRequest): Promise<PublishResult> {
  const api = new TikTokApi(ctx, accessToken(req.account));
  const isPhoto = req.contentType === "tiktok_photo";
  if (isPhoto) {
    if (req.media.length === 0 || req.media.some((m) => m.type !== "image")) {
      throw new PlatformError("permanent", "A TikTok photo post needs 1 to 35 images and no video.");
    }
  } else if (req.media.length !== 1 || req.media[0]!.type !== "video") {
    throw new PlatformError("permanent", "A TikTok video post needs exactly one video.");
  }

  const creator = await api.creatorInfo();
  const privacy = choosePrivacyLevel(
    req.meta.privacy_level ?? req.account.meta.privacy_level,
    creator.privacy_level_options,
  );
  if (!privacy.ok) throw new PlatformError("permanent", privacy.message);

  const publishId = isPhoto
    ? (
        await api.initPhoto(
          photoInitBody(
            req,
            privacy.level,
            creator,
            req.media.map((m) => m.url),
          ),
        )
      ).publish_id
    : await publishVideo(ctx, api, req, privacy.level, creator);

  return awaitPublication(ctx, api, publishId, creator.creator_username || req.account.username, isPhoto);
}

async function publishVideo(
  ctx: AdapterContext,
  api: TikTokApi,
  req: PublishRequest,
  privacyLevel: string,
  creator: TikTokCreatorInfo,
): Promise<string> {
  const media = req.media[0]!;
  const source = req.meta.video_source ?? req.account.meta.video_source;
  if (source === "PULL_FROM_URL") {
    const init = await api.initVideo(
      videoInitBody(req, privacyLevel, creator, { source: "PULL_FROM_URL", video_url: media.url }),
    );
    return init.publish_id;
  }

  const { body, size } = await ctx.openMedia(media);
  const reader = new ChunkReader(body);
  try {
    const plan = planChunks(size);
    const init = await api.initVideo(videoInitBody(req, privacyLevel, creator, plan.source));
    if (!init.upload_url) throw new PlatformError("transient", "TikTok did not return an upload URL.");
    for (const range of plan.ranges) {
      const bytes = await reader.read(range.last - range.first + 1);
      await api.uploadChunk(init.upload_url, bytes, range, size, media.mimeType || "video/mp4");
    }
    return init.publish_id;
  } finally {
    await reader.cancel();
  }
}

async function awaitPublication(
  ctx: AdapterContext,
  api: TikTokApi,
  publishId: string,
  username: string,
  isPhoto: boolean,
): Promise<PublishResult> {
  for (let attempt = 0; attempt < STATUS_POLLS; attempt++) {
    if (attempt > 0) await ctx.sleep(STATUS_POLL_INTERVAL_MS);
    let data: Awaited<ReturnType<TikTokApi["fetchStatus"]>>;
    try {
      data = await api.fetchStatus(publishId);
    } catch (err) {
      // The post is already on its way: a failed status read must not make the engine post it again.
      log("warn", "tiktok.status_fetch_failed", { publishId, message: err instanceof Error ? err.message : "" });
      continue;
    }
    const outcome = statusOutcome(data);
    if (outcome.state === "failed") throw new PlatformError("permanent", outcome.message);
    if (outcome.state === "complete") {
      if (!outcome.postId) return { platformPostId: publishId, platformUrl: null };
      return {
        platformPostId: outcome.postId,
        platformUrl: postUrl(username, outcome.postId, isPhoto ? "photo" : "video"),
      };
    }
  }
  log("info", "tiktok.still_processing", { publishId });
  return { platformPostId: publishId, platformUrl: null };
}

async function refresh(ctx: AdapterContext, account: AdapterAccount): Promise<RefreshedCredentials> {
  const refreshToken = requireToken(account, "refresh", "TikTok");
  const body = await refreshTikTokToken(ctx, refreshToken);
  return refreshedFromTokenResponse(body, account.credentials, ctx.now());
}

export const tiktokAdapter: PlatformAdapter = { platform: "tiktok", publish, refresh };

registerAdapter(tiktokAdapter);
