import { log } from "../../lib/logger";
import { createOnce, sameText, savedState, saveState } from "../checkpoint";
import { ChunkReader } from "../chunk-reader";
import { refreshedFromTokenResponse, requireToken } from "../oauth";
import { registerAdapter } from "../registry";
import {
  type AdapterAccount,
  type AdapterContext,
  type CommentRequest,
  type Metric,
  type MetricsRequest,
  type PlatformAdapter,
  PlatformError,
  type PublishRequest,
  type PublishResult,
  type RefreshedCredentials,
} from "../types";
import { refreshGoogleToken, YouTubeApi, YouTubeComments } from "./api";
import {
  commentUrl,
  insertMetadata,
  lockedPrivateMessage,
  metricsFromStatistics,
  planChunks,
  processingOutcome,
  shortUrl,
  YOUTUBE_CHUNK_BYTES,
} from "./transform";
import type { YouTubeVideo } from "./types";

/**
 * YouTube Shorts through the Data API's resumable upload: open a session (URI in `Location`), PUT the video
 * from R2 in 8 MiB chunks (308 Resume Incomplete … 200/201), then watch processing for a short while so a
 * rejected or failed video fails the row. A chunk that fails with a transient error is retried in place after
 * asking the session what it holds (`Content-Range: bytes *\/total`), so a network blip does not cost a new
 * `videos.insert` (100 a day). No post twice: the session URI is saved before the first byte goes up, and a retry
 * of the row asks that session first — complete (the final answer was lost) → that video; partial → continue;
 * expired → a new session (an unfinished session never becomes a video). Once the video exists the adapter never
 * throws a retryable error, and processing longer than the poll window is not a failure (the video is live).
 */
export const CHUNK_RETRIES = 3;
export const PROCESSING_POLL_INTERVAL_MS = 5_000;
export const PROCESSING_POLLS = 12;

const accessToken = (account: AdapterAccount): string => requireToken(account, "access", "YouTube");

export function createYouTubeAdapter(options: { chunkBytes?: number } = {}): PlatformAdapter {
  const chunkBytes = options.chunkBytes ?? YOUTUBE_CHUNK_BYTES;

  async function upload(ctx: AdapterContext, api: YouTubeApi, req: PublishRequest): Promise<YouTubeVideo> {
    const media = req.media[0]!;
    const metadata = insertMetadata(req);
    const { body, size } = await ctx.openMedia(media);
    const reader = new ChunkReader(body);
    try {
      // A retry asks the saved session what it holds: the whole file (the video exists: its answer was lost),
      // part of it (continue from there), or nothing any more (expired: a new session).
      let session: string | undefined;
      let from = 0;
      const saved = savedState<{ upload_session: string; total: number }>(req);
      if (saved?.upload_session && saved.total === size) {
        const answer = await probeSaved(api, saved.upload_session, size);
        if (answer?.done) return answer.video;
        if (answer) {
          session = saved.upload_session;
          from = answer.nextOffset;
        }
      }
      if (!session) {
        session = await api.startUpload(
          metadata,
          size,
          media.mimeType || "video/mp4",
          req.meta.notify_subscribers !== false,
        );
        // Saved before any byte goes up: the last chunk is what makes the video.
        await saveState(req, { upload_session: session, total: size });
      }
      for (const range of planChunks(size, chunkBytes)) {
        const bytes = await reader.read(range.last - range.first + 1);
        if (range.last < from) continue;
        const start = Math.max(from, range.first);
        const video = await sendChunk(ctx, api, session, bytes.subarray(start - range.first), start, size);
        if (video) return video;
      }
      throw new PlatformError("transient", "YouTube did not confirm the end of the upload.");
    } finally {
      await reader.cancel();
    }
  }

  async function probeSaved(api: YouTubeApi, session: string, size: number) {
    try {
      return await api.probe(session, size);
    } catch (err) {
      if (err instanceof PlatformError && (err.status === 404 || err.status === 410)) return null;
      throw err;
    }
  }

  /** Sends one chunk until the session holds all of it; returns the video when the server says it is complete. */
  async function sendChunk(
    ctx: AdapterContext,
    api: YouTubeApi,
    session: string,
    bytes: Uint8Array,
    first: number,
    total: number,
  ): Promise<YouTubeVideo | null> {
    const end = first + bytes.byteLength;
    let offset = first;
    let failures = 0;
    while (offset < end) {
      let answer: Awaited<ReturnType<YouTubeApi["putChunk"]>>;
      try {
        answer = await api.putChunk(session, bytes.subarray(offset - first), offset, total);
      } catch (err) {
        if (
          !(err instanceof PlatformError) ||
          err.kind !== "transient" ||
          err.status === 404 ||
          failures >= CHUNK_RETRIES
        ) {
          throw err;
        }
        failures++;
        await ctx.sleep(1000 * 2 ** failures);
        answer = await api.probe(session, total);
      }
      if (answer.done) return answer.video;
      if (answer.nextOffset < first || answer.nextOffset > end) {
        throw new PlatformError("transient", "The YouTube upload session lost data; the upload will start over.");
      }
      if (answer.nextOffset === offset) {
        // Nothing new was stored: count it as a failure so a stuck session cannot loop forever.
        if (++failures > CHUNK_RETRIES)
          throw new PlatformError("transient", "YouTube did not accept the upload chunk.");
      }
      offset = answer.nextOffset;
    }
    return null;
  }

  /**
   * Watches processing for a short while; returns the newest resource read with `videos.list` (null when none was
   * read: the upload's own answer was final, or a read failed).
   */
  async function watchProcessing(
    ctx: AdapterContext,
    api: YouTubeApi,
    video: YouTubeVideo,
  ): Promise<{ read: YouTubeVideo | null }> {
    let current: YouTubeVideo | null = video;
    let read: YouTubeVideo | null = null;
    for (let poll = 0; poll <= PROCESSING_POLLS; poll++) {
      if (current) {
        const outcome = processingOutcome(current);
        if (outcome.state === "failed") throw new PlatformError("permanent", outcome.message);
        if (outcome.state === "done") return { read };
      }
      if (poll === PROCESSING_POLLS) break;
      await ctx.sleep(PROCESSING_POLL_INTERVAL_MS);
      try {
        current = await api.getVideo(video.id, "status,processingDetails");
        if (current) read = current;
      } catch (err) {
        // The video exists: a failed status read must not make the engine upload it again.
        log("warn", "youtube.status_read_failed", {
          videoId: video.id,
          message: err instanceof Error ? err.message : "",
        });
        return { read: null };
      }
    }
    log("info", "youtube.still_processing", { videoId: video.id });
    return { read };
  }

  /**
   * The privacy YouTube applied (`videos.list?part=status`, read back after the upload: the processing polls' last
   * read, else one read now). An unaudited project's upload locked private when more was asked fails the row with
   * the reason — the video exists, privately, so this is permanent, never a retry that would upload it again.
   * A read that fails leaves the row published (the video exists; nothing says it was locked).
   */
  async function checkPrivacy(api: YouTubeApi, videoId: string, asked: string, read: YouTubeVideo | null) {
    let applied = read?.status?.privacyStatus;
    if (applied === undefined) {
      try {
        applied = (await api.getVideo(videoId, "status"))?.status?.privacyStatus;
      } catch (err) {
        log("warn", "youtube.privacy_read_failed", { videoId, message: err instanceof Error ? err.message : "" });
        return;
      }
    }
    const locked = lockedPrivateMessage(asked, applied, videoId);
    if (locked) throw new PlatformError("permanent", locked);
  }

  async function publish(ctx: AdapterContext, req: PublishRequest): Promise<PublishResult> {
    if (req.media.length !== 1 || req.media[0]!.type !== "video") {
      throw new PlatformError("permanent", "A YouTube Short needs exactly one video.");
    }
    const api = new YouTubeApi(ctx, accessToken(req.account));
    const asked = insertMetadata(req).status.privacyStatus;
    const video = await upload(ctx, api, req);
    const { read } = await watchProcessing(ctx, api, video);
    await checkPrivacy(api, video.id, asked, read);
    return { platformPostId: video.id, platformUrl: shortUrl(video.id) };
  }

  async function refresh(ctx: AdapterContext, account: AdapterAccount): Promise<RefreshedCredentials> {
    const refreshToken = requireToken(account, "refresh", "YouTube");
    return refreshedFromTokenResponse(await refreshGoogleToken(ctx, refreshToken), account.credentials, ctx.now());
  }

  async function metrics(ctx: AdapterContext, req: MetricsRequest): Promise<Metric[]> {
    const api = new YouTubeApi(ctx, accessToken(req.account));
    const video = await api.getVideo(req.platformPostId, "statistics");
    if (!video) throw new PlatformError("permanent", "The YouTube video no longer exists.");
    return metricsFromStatistics(video.statistics);
  }

  /**
   * A first comment under the Short, as the channel (`commentThreads.insert`). Needs the `youtube.force-ssl`
   * scope, asked for at connect but not required: without it YouTube answers 403 insufficientPermissions and the
   * comment (never the row) fails permanently, saying to reconnect. No post twice: "sent at T" before the call; a
   * retry reads the video's newest comment threads for one by the channel since T with the same text.
   */
  async function comment(ctx: AdapterContext, req: CommentRequest): Promise<PublishResult> {
    const channelId = req.account.platformUserId ?? (req.account.meta.channel_id as string | undefined);
    if (!channelId) throw new PlatformError("permanent", "The YouTube account has no channel id.");
    const api = new YouTubeComments(ctx, accessToken(req.account));
    const videoId = req.on.platformPostId;
    const result = (id: string): PublishResult => ({ platformPostId: id, platformUrl: commentUrl(videoId, id) });
    return createOnce(
      ctx.now(),
      req,
      async (since) => {
        const list = await api.recent(videoId);
        const hit = list.items?.find((t) => {
          const c = t.snippet?.topLevelComment?.snippet;
          return (
            c?.authorChannelId?.value === channelId &&
            sameText(c.textOriginal ?? c.textDisplay, req.content) &&
            Date.parse(c.publishedAt ?? "") >= since
          );
        });
        return hit ? result(hit.snippet?.topLevelComment?.id ?? hit.id) : null;
      },
      async () => {
        const thread = await api.insert(channelId, videoId, req.content);
        return result(thread.snippet?.topLevelComment?.id ?? thread.id);
      },
    );
  }

  return { platform: "youtube", publish, comment, refresh, metrics };
}

export const youtubeAdapter = createYouTubeAdapter();

registerAdapter(youtubeAdapter);
