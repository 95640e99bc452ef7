import { createOnce, sameText } from "../checkpoint";
import { refreshedFromTokenResponse, requireToken } from "../oauth";
import { registerAdapter } from "../registry";
import {
  type AdapterAccount,
  type AdapterContext,
  type Metric,
  type MetricsRequest,
  type PlatformAdapter,
  PlatformError,
  type PublishRequest,
  type PublishResult,
  type RefreshedCredentials,
} from "../types";
import { PinterestApi, refreshPinterestToken } from "./api";
import {
  analyticsWindow,
  boardId,
  createPinBody,
  imageMediaSource,
  metricsFromAnalytics,
  metricTypes,
  pinUrl,
  videoMediaSource,
} from "./transform";
import type { PinterestMediaSource } from "./types";

/**
 * Pinterest v5. Image Pins and carousels name the public media URLs (`image_url` / `multiple_image_urls`);
 * a video Pin registers `/v5/media`, streams the file from R2 to the returned upload URL as the S3 form POST,
 * polls the media until `succeeded`, then creates the Pin with `video_id`. The Pin is created last, in one
 * call, so every failure before it is safe to retry.
 */
export const MEDIA_POLL_INTERVAL_MS = 5_000;
export const MEDIA_POLLS = 40;

const accessToken = (account: AdapterAccount): string => requireToken(account, "access", "Pinterest");

async function uploadVideo(ctx: AdapterContext, api: PinterestApi, req: PublishRequest): Promise<PinterestMediaSource> {
  if (req.media.length !== 1 || req.media[0]!.type !== "video") {
    throw new PlatformError("permanent", "A Pinterest video Pin needs exactly one video.");
  }
  const media = req.media[0]!;
  const upload = await api.registerVideo();
  const { body, size } = await ctx.openMedia(media);
  await api.uploadVideo(upload, {
    body,
    size,
    filename: media.originalFilename || media.path.split("/").pop() || "video.mp4",
    mimeType: media.mimeType || "video/mp4",
  });
  for (let poll = 0; poll < MEDIA_POLLS; poll++) {
    await ctx.sleep(MEDIA_POLL_INTERVAL_MS);
    const status = await api.mediaStatus(upload.media_id);
    if (status.status === "succeeded") return videoMediaSource(upload.media_id, req.meta);
    if (status.status === "failed") throw new PlatformError("permanent", "Pinterest could not process the video.");
  }
  // No Pin exists yet, so trying again later cannot post twice.
  throw new PlatformError("transient", "Pinterest is still processing the video.");
}

/**
 * No post twice: creating the Pin is one call whose answer is its only handle. "Sent at T" is saved before it;
 * a retry after that reads the board's newest Pins (one page of 5) for a Pin created since T with the same
 * title, description and link before creating one.
 */
async function publish(ctx: AdapterContext, req: PublishRequest): Promise<PublishResult> {
  const board = boardId(req); // fail before any upload when no board is known
  const api = new PinterestApi(ctx, accessToken(req.account));
  const find = async (since: number): Promise<PublishResult | null> => {
    const wanted = createPinBody(req, { source_type: "image_url", url: "" });
    const { items } = await api.boardPins(board, LOOKUP_PAGE_SIZE);
    const pin = items?.find(
      (p) =>
        Date.parse(`${p.created_at ?? ""}Z`) >= since &&
        sameText(p.description, wanted.description) &&
        sameText(p.title, wanted.title) &&
        (p.link ?? null) === (wanted.link ?? null),
    );
    return pin?.id ? { platformPostId: pin.id, platformUrl: pinUrl(pin.id) } : null;
  };
  return createOnce(ctx.now(), req, find, async () => {
    const source =
      req.contentType === "pinterest_video_pin"
        ? await uploadVideo(ctx, api, req)
        : imageMediaSource(req.contentType, req.media);
    const pin = await api.createPin(createPinBody(req, source));
    if (!pin.id) throw new PlatformError("permanent", "Pinterest created the Pin without an id.");
    return { platformPostId: pin.id, platformUrl: pinUrl(pin.id) };
  });
}

const LOOKUP_PAGE_SIZE = 5;

async function refresh(ctx: AdapterContext, account: AdapterAccount): Promise<RefreshedCredentials> {
  const refreshToken = requireToken(account, "refresh", "Pinterest");
  return refreshedFromTokenResponse(await refreshPinterestToken(ctx, refreshToken), account.credentials, ctx.now());
}

async function metrics(ctx: AdapterContext, req: MetricsRequest): Promise<Metric[]> {
  const api = new PinterestApi(ctx, accessToken(req.account));
  const body = await api.pinAnalytics(req.platformPostId, {
    ...analyticsWindow(ctx.now()),
    metric_types: metricTypes(req.contentType).join(","),
    app_types: "ALL",
    split_field: "NO_SPLIT",
  });
  return metricsFromAnalytics(body);
}

export const pinterestAdapter: PlatformAdapter = { platform: "pinterest", publish, refresh, metrics };

registerAdapter(pinterestAdapter);
