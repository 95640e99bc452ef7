import { log } from "../../lib/logger";
import { couldNotConfirm, savedState, saveState } from "../checkpoint";
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
import {
  choosePrivacyLevel,
  photoInitBody,
  planChunks,
  postUrl,
  profileUrl,
  statusOutcome,
  videoInitBody,
} from "./transform";
import type { TikTokCreatorInfo } from "./types";

/**
 * TikTok (Content Posting API, Direct Post). Videos go up as FILE_UPLOAD chunks streamed from R2 (no domain
 * verification needed), or as PULL_FROM_URL from the public media URL when row or account `meta.video_source`
 * is "PULL_FROM_URL". Photo posts are PULL_FROM_URL only (TikTok's rule). No metrics: TikTok is
 * `platform_not_supported` (decisions §11).
 *
 * No post twice: the `publish_id` is saved before the call that makes TikTok publish (the last chunk of a
 * FILE_UPLOAD); a pull-from-URL init publishes by itself, so "init sent" is saved before it. A retry resumes from
 * the publish id (status/fetch) and never starts a second post while the first may still go live; an init whose
 * answer was lost leaves nothing to ask, so that row fails as could-not-confirm.
 *
 * After TikTok accepted the post it is polled STATUS_POLLS times. PUBLISH_COMPLETE with a public id → its URL;
 * complete without one (private posts) → published at the creator's profile URL; FAILED → the row fails; still
 * processing (moderation) → a retry re-checks later (`STILL_PROCESSING_RETRY_SECONDS`), and the queue's last
 * delivery records it as published at the profile URL (TikTok accepted it; moderation ends on TikTok's side).
 */
export const STATUS_POLL_INTERVAL_MS = 5_000;
export const STATUS_POLLS = 36;
export const STILL_PROCESSING_RETRY_SECONDS = 300;

type TikTokState = {
  /** Saved before a pull-from-URL init (which publishes by itself). */
  init_sent_at?: number;
  publish_id?: string;
  /** FILE_UPLOAD posts only publish once all `file_size` bytes are up. */
  file_upload?: boolean;
  file_size?: number;
  is_photo?: boolean;
};

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
  const username = creator.creator_username || req.account.username;
  const saved = savedState<TikTokState>(req);
  if (saved?.publish_id) {
    const resumed = await resume(ctx, api, req, saved, username);
    if (resumed) return resumed;
  } else if (saved?.init_sent_at) {
    throw couldNotConfirm("TikTok");
  }

  const privacy = choosePrivacyLevel(
    req.meta.privacy_level ?? req.account.meta.privacy_level,
    creator.privacy_level_options,
  );
  if (!privacy.ok) throw new PlatformError("permanent", privacy.message);

  let publishId: string;
  if (isPhoto) {
    await saveState(req, { init_sent_at: ctx.now(), is_photo: true } satisfies TikTokState);
    publishId = (
      await api.initPhoto(
        photoInitBody(
          req,
          privacy.level,
          creator,
          req.media.map((m) => m.url),
        ),
      )
    ).publish_id;
    await saveState(req, { publish_id: publishId, is_photo: true } satisfies TikTokState);
  } else {
    publishId = await publishVideo(ctx, api, req, privacy.level, creator);
  }
  return awaitPublication(ctx, api, req, publishId, username, isPhoto);
}

/** A retry with a saved publish id: null when that attempt never finished uploading (nothing will publish). */
async function resume(
  ctx: AdapterContext,
  api: TikTokApi,
  req: PublishRequest,
  saved: TikTokState,
  username: string,
): Promise<PublishResult | null> {
  const data = await api.fetchStatus(saved.publish_id!);
  if (saved.file_upload && data.status === "PROCESSING_UPLOAD" && (data.uploaded_bytes ?? 0) < (saved.file_size ?? 0)) {
    log("info", "tiktok.upload_unfinished", { publishId: saved.publish_id });
    return null;
  }
  return awaitPublication(ctx, api, req, saved.publish_id!, username, saved.is_photo === true);
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
    await saveState(req, { init_sent_at: ctx.now() } satisfies TikTokState);
    const init = await api.initVideo(
      videoInitBody(req, privacyLevel, creator, { source: "PULL_FROM_URL", video_url: media.url }),
    );
    await saveState(req, { publish_id: init.publish_id } satisfies TikTokState);
    return init.publish_id;
  }

  const { body, size } = await ctx.openMedia(media);
  const reader = new ChunkReader(body);
  try {
    const plan = planChunks(size);
    const init = await api.initVideo(videoInitBody(req, privacyLevel, creator, plan.source));
    if (!init.upload_url) throw new PlatformError("transient", "TikTok did not return an upload URL.");
    // Saved before the bytes go up: the last chunk is what makes TikTok publish.
    await saveState(req, { publish_id: init.publish_id, file_upload: true, file_size: size } satisfies TikTokState);
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
  req: PublishRequest,
  publishId: string,
  username: string,
  isPhoto: boolean,
): Promise<PublishResult> {
  const atProfile = { platformPostId: publishId, platformUrl: profileUrl(username) };
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
      // Private (SELF_ONLY) posts complete without a public id: the creator's profile is where they are.
      if (!outcome.postId) return atProfile;
      return {
        platformPostId: outcome.postId,
        platformUrl: postUrl(username, outcome.postId, isPhoto ? "photo" : "video"),
      };
    }
  }
  log("info", "tiktok.still_processing", { publishId, final: req.finalAttempt === true });
  if (req.finalAttempt) return atProfile;
  throw new PlatformError("transient", "TikTok is still processing the post; it will be checked again.", {
    retryAfterSeconds: STILL_PROCESSING_RETRY_SECONDS,
  });
}

async function refresh(ctx: AdapterContext, account: AdapterAccount): Promise<RefreshedCredentials> {
  const refreshToken = requireToken(account, "refresh", "TikTok");
  const body = await refreshTikTokToken(ctx, refreshToken);
  return refreshedFromTokenResponse(body, account.credentials, ctx.now());
}

export const tiktokAdapter: PlatformAdapter = { platform: "tiktok", publish, refresh };

registerAdapter(tiktokAdapter);
