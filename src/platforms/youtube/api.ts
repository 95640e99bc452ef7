import { platformFetch, readJson, retryAfterSeconds } from "../http";
import { type AdapterContext, PlatformError } from "../types";
import { nextOffsetFromRange, youtubeError } from "./transform";
import type {
  GoogleErrorBody,
  GoogleTokenResponse,
  YouTubeCommentThread,
  YouTubeCommentThreadList,
  YouTubeInsertMetadata,
  YouTubeVideo,
  YouTubeVideoList,
} from "./types";

/** HTTP client for the YouTube Data API v3 and its resumable upload protocol. */
const LABEL = "YouTube";
export const YOUTUBE_PATHS = {
  upload: "/upload/youtube/v3/videos",
  videos: "/youtube/v3/videos",
  commentThreads: "/youtube/v3/commentThreads",
  token: "/token",
} as const;

export type ChunkAnswer = { done: true; video: YouTubeVideo } | { done: false; nextOffset: number };

export class YouTubeApi {
  constructor(
    private readonly ctx: AdapterContext,
    private readonly accessToken: string,
  ) {}

  private async fail(res: Response): Promise<never> {
    throw youtubeError(res.status, await readJson<GoogleErrorBody>(res), res.headers, this.ctx.now());
  }

  /** Step 1: `POST /upload/youtube/v3/videos?uploadType=resumable` → 200, session URI in `Location`. */
  async startUpload(
    metadata: YouTubeInsertMetadata,
    size: number,
    mimeType: string,
    notifySubscribers: boolean,
  ): Promise<string> {
    const query = `uploadType=resumable&part=snippet,status&notifySubscribers=${notifySubscribers}`;
    const res = await platformFetch(
      this.ctx.fetch,
      LABEL,
      `${this.ctx.config.YOUTUBE_API_URL}${YOUTUBE_PATHS.upload}?${query}`,
      {
        method: "POST",
        headers: {
          authorization: `Bearer ${this.accessToken}`,
          "content-type": "application/json; charset=UTF-8",
          "x-upload-content-type": mimeType,
          "x-upload-content-length": String(size),
        },
        body: JSON.stringify(metadata),
      },
    );
    if (!res.ok) return this.fail(res);
    await res.body?.cancel();
    const location = res.headers.get("location");
    if (!location)
      throw new PlatformError("transient", "YouTube did not return an upload session.", { status: res.status });
    return location;
  }

  /**
   * Step 2: `PUT <session URI>` one chunk with `Content-Range: bytes first-last/total` → 308 Resume Incomplete
   * (`Range: bytes=0-N`) or 200/201 with the video. The session URI is used as returned.
   */
  async putChunk(sessionUrl: string, bytes: Uint8Array, first: number, total: number): Promise<ChunkAnswer> {
    const res = await platformFetch(
      this.ctx.fetch,
      LABEL,
      sessionUrl,
      {
        method: "PUT",
        redirect: "manual",
        headers: {
          "content-length": String(bytes.byteLength),
          "content-range": `bytes ${first}-${first + bytes.byteLength - 1}/${total}`,
        },
        body: bytes,
      },
      120_000,
    );
    return this.chunkAnswer(res);
  }

  /** Step 3 after a failed chunk: `PUT` empty with `Content-Range: bytes *\/total` asks what the server holds. */
  async probe(sessionUrl: string, total: number): Promise<ChunkAnswer> {
    const res = await platformFetch(this.ctx.fetch, LABEL, sessionUrl, {
      method: "PUT",
      redirect: "manual",
      headers: { "content-length": "0", "content-range": `bytes */${total}` },
    });
    return this.chunkAnswer(res);
  }

  private async chunkAnswer(res: Response): Promise<ChunkAnswer> {
    if (res.status === 308) {
      await res.body?.cancel();
      return { done: false, nextOffset: nextOffsetFromRange(res.headers.get("range")) };
    }
    if (res.status === 200 || res.status === 201) {
      const video = await readJson<YouTubeVideo>(res);
      if (!video?.id)
        throw new PlatformError("transient", "YouTube finished the upload without a video id.", { status: res.status });
      return { done: true, video };
    }
    if (res.status === 404 || res.status === 410) {
      await res.body?.cancel();
      throw new PlatformError("transient", "The YouTube upload session expired.", { status: res.status });
    }
    return this.fail(res);
  }

  /** `GET /youtube/v3/videos?part=…&id=…` → the video, or null when YouTube no longer lists it. */
  async getVideo(id: string, part: string): Promise<YouTubeVideo | null> {
    const query = `part=${part}&id=${encodeURIComponent(id)}`;
    const res = await platformFetch(
      this.ctx.fetch,
      LABEL,
      `${this.ctx.config.YOUTUBE_API_URL}${YOUTUBE_PATHS.videos}?${query}`,
      { headers: { authorization: `Bearer ${this.accessToken}` } },
    );
    if (!res.ok) return this.fail(res);
    const list = await readJson<YouTubeVideoList>(res);
    return list?.items?.find((v) => v.id === id) ?? null;
  }
}

/**
 * `commentThreads.insert` (a new top-level comment; 50 quota units) and `commentThreads.list` (1 unit). Inserting
 * needs the `youtube.force-ssl` scope: a token without it answers 403 insufficientPermissions.
 */
export class YouTubeComments {
  constructor(
    private readonly ctx: AdapterContext,
    private readonly accessToken: string,
  ) {}

  private async send<T>(url: string, init: RequestInit): Promise<T> {
    const res = await platformFetch(this.ctx.fetch, LABEL, url, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${this.accessToken}` },
    });
    if (!res.ok)
      throw youtubeError(res.status, await readJson<GoogleErrorBody>(res), res.headers, this.ctx.now(), "comment");
    const body = await readJson<T>(res);
    if (body === null)
      throw new PlatformError("transient", "YouTube returned an empty answer.", { status: res.status });
    return body;
  }

  insert(channelId: string, videoId: string, text: string): Promise<YouTubeCommentThread> {
    return this.send<YouTubeCommentThread>(
      `${this.ctx.config.YOUTUBE_API_URL}${YOUTUBE_PATHS.commentThreads}?part=snippet`,
      {
        method: "POST",
        headers: { "content-type": "application/json; charset=UTF-8" },
        body: JSON.stringify({ snippet: { channelId, videoId, topLevelComment: { snippet: { textOriginal: text } } } }),
      },
    );
  }

  /** The video's newest comment threads (one page of 20, newest first, plain text). */
  recent(videoId: string): Promise<YouTubeCommentThreadList> {
    const query = `part=snippet&videoId=${encodeURIComponent(videoId)}&order=time&maxResults=20&textFormat=plainText`;
    return this.send<YouTubeCommentThreadList>(
      `${this.ctx.config.YOUTUBE_API_URL}${YOUTUBE_PATHS.commentThreads}?${query}`,
      { method: "GET" },
    );
  }
}

/** `POST {GOOGLE_OAUTH_URL}/token` grant_type=refresh_token. */
export async function refreshGoogleToken(ctx: AdapterContext, refreshToken: string): Promise<GoogleTokenResponse> {
  const { GOOGLE_CLIENT_ID: id, GOOGLE_CLIENT_SECRET: secret } = ctx.config;
  if (!id || !secret) throw new PlatformError("auth", "Google client credentials are not configured.");
  const res = await platformFetch(ctx.fetch, "Google", ctx.config.GOOGLE_OAUTH_URL + YOUTUBE_PATHS.token, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: id,
      client_secret: secret,
    }).toString(),
  });
  const body = await readJson<GoogleTokenResponse>(res);
  if (res.status === 429 || res.status >= 500) {
    throw new PlatformError("transient", `Google could not refresh the token (HTTP ${res.status}).`, {
      status: res.status,
      retryAfterSeconds: retryAfterSeconds(res.headers, ctx.now()),
    });
  }
  if (!res.ok || !body?.access_token) {
    const reason = body?.error_description || body?.error || `HTTP ${res.status}`;
    throw new PlatformError("auth", `Google refused to refresh the token: ${reason}`, { status: res.status });
  }
  return body;
}
