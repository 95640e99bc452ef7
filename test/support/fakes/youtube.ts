import { concatBytes } from "../../../src/media/byte-source";
import { fakeOrigin } from "../fake-fetch";
import { formFields, json, pathOf, pickHeaders, type RecordedCall, Script } from "./fake-kit";
import { TokenClock } from "./token-clock";

/**
 * A fake of the YouTube Data API v3 (https://youtube.fake) and Google OAuth (https://google-oauth.fake), built
 * from platforms.md §9:
 * - resumable upload: `POST /upload/youtube/v3/videos?uploadType=resumable` checks bearer, X-Upload-* headers
 *   and the metadata (invalidTitle, invalidDescription), answers 200 with an empty body and the session URI in
 *   `Location` (same origin); `PUT <session>` takes sequential chunks (multiples of 256 KiB except the last),
 *   answers 308 Resume Incomplete with `Range: bytes=0-N` and finally 200 with the `youtube#video` resource;
 *   `Content-Range: bytes *\/total` probes; unknown session → 404;
 * - `GET /youtube/v3/videos?part=status,processingDetails|statistics&id=` walks a processing script
 *   (uploaded/processing → processed/succeeded, or failed/rejected with a reason) and returns string counts;
 * - Google JSON errors `{error:{code,message,errors:[{message,domain,reason}],status}}`: 401 authError,
 *   403 quotaExceeded (no rate-limit headers, as documented) via `googleErrorResponse`;
 * - `POST /token` refresh → `{access_token, expires_in:3599, scope, token_type}` (no refresh token re-sent) or
 *   400 `invalid_grant` (a refresh token revoked, or lapsed: take it out of `refreshTokens`). Access tokens live
 *   one hour (Google "Using OAuth 2.0 to Access Google APIs"); an expired one gets the same 401 as an invalid one.
 */
export const GOOGLE_ACCESS_TOKEN_SECONDS = 3599;

export const YOUTUBE_ORIGIN = "https://youtube.fake";
export const GOOGLE_OAUTH_ORIGIN = "https://google-oauth.fake";
const ALIGN = 256 * 1024;

interface Session {
  id: string;
  total: number;
  mimeType: string;
  metadata: any;
  received: Uint8Array[];
  receivedBytes: number;
  video?: Record<string, unknown>;
}

export interface ProcessingState {
  uploadStatus: string;
  processingStatus: string;
  failureReason?: string;
  rejectionReason?: string;
}

export interface YouTubeFakeOptions {
  accessTokens?: string[];
  refreshTokens?: string[];
  /** States returned by successive status reads of each new video (the last repeats). */
  processing?: ProcessingState[];
  statistics?: Record<string, string>;
  /** The account has no channel → 401 youtubeSignupRequired. */
  noChannel?: boolean;
  /**
   * Whether the access tokens carry `youtube.force-ssl` (comments). Without it `commentThreads.insert` answers
   * 403 insufficientPermissions, as Google does for a token missing the scope.
   */
  forceSslScope?: boolean;
  /**
   * Whether the access tokens carry `youtube.upload`. Without it `videos.insert` answers 403 insufficientPermissions
   * ("Request had insufficient authentication scopes.", developers.google.com/youtube/v3/docs/errors).
   */
  uploadScope?: boolean;
  /**
   * The Google Cloud project has not passed YouTube's API audit: "All videos uploaded via the videos.insert endpoint
   * from unverified API projects created after 28 July 2020 will be restricted to private viewing mode"
   * (developers.google.com/youtube/v3/docs/videos/insert, note at the top). Every video's `status.privacyStatus`
   * reads `private`, whatever the upload asked.
   */
  unauditedProject?: boolean;
}

/** The channel the fake's tokens belong to. */
export const YOUTUBE_CHANNEL = "UCfakeChannel000000000000";

export interface StoredYouTubeComment {
  id: string;
  videoId: string;
  channelId: string;
  authorChannelId: string;
  text: string;
  publishedAt: string;
}

const REASON_DOMAIN: Record<string, string> = {
  quotaExceeded: "youtube.quota",
  rateLimitExceeded: "youtube.quota",
  userRateLimitExceeded: "usageLimits",
  uploadLimitExceeded: "youtube.video",
  youtubeSignupRequired: "youtube.header",
  authError: "global",
  invalidTitle: "youtube.video",
  invalidDescription: "youtube.video",
  backendError: "global",
  forbidden: "youtube.video",
  insufficientPermissions: "global",
  commentsDisabled: "youtube.commentThread",
  videoNotFound: "youtube.commentThread",
  channelNotFound: "youtube.commentThread",
  commentTextTooLong: "youtube.commentThread",
  commentTextRequired: "youtube.commentThread",
};
const STATUS_TEXT: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

export function googleErrorBody(status: number, reason: string, message: string): unknown {
  return {
    error: {
      code: status,
      message,
      errors: [{ message, domain: REASON_DOMAIN[reason] ?? "global", reason }],
      status: STATUS_TEXT[status] ?? "UNKNOWN",
    },
  };
}

export function googleErrorResponse(status: number, reason: string, message: string): Response {
  return json(googleErrorBody(status, reason, message), status);
}

export const QUOTA_EXCEEDED_MESSAGE =
  'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.';

export function fakeYouTube(options: YouTubeFakeOptions = {}) {
  const opts = {
    accessTokens: ["access-token"],
    refreshTokens: ["refresh-token"],
    processing: [
      { uploadStatus: "uploaded", processingStatus: "processing" },
      { uploadStatus: "processed", processingStatus: "succeeded" },
    ] as ProcessingState[],
    statistics: { viewCount: "15230", likeCount: "842", favoriteCount: "0", commentCount: "37" },
    noChannel: false,
    forceSslScope: true,
    uploadScope: true,
    unauditedProject: false,
    ...options,
  };
  const comments: StoredYouTubeComment[] = [];
  /** Videos whose owner turned comments off (403 commentsDisabled). */
  const commentsDisabled = new Set<string>();
  const calls: RecordedCall[] = [];
  const script = new Script();
  const sessions = new Map<string, Session>();
  const videos = new Map<string, { session: Session; processing: ProcessingState[] }>();
  const accessTokens = new Set(opts.accessTokens);
  const refreshTokens = new Set(opts.refreshTokens);
  const clock = new TokenClock();
  let seq = 0;

  function authorized(request: Request): boolean {
    const auth = request.headers.get("authorization") ?? "";
    return auth.startsWith("Bearer ") && accessTokens.has(auth.slice(7)) && !clock.expired(auth.slice(7));
  }

  const unauthorized = () =>
    googleErrorResponse(
      401,
      "authError",
      "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
    );

  function videoResource(id: string, state: ProcessingState, parts: string[]): Record<string, unknown> {
    const entry = videos.get(id)!;
    const out: Record<string, unknown> = { kind: "youtube#video", etag: `etag-${id}`, id };
    if (parts.includes("snippet")) {
      out.snippet = {
        publishedAt: "2026-11-23T12:00:00Z",
        channelId: YOUTUBE_CHANNEL,
        title: entry.session.metadata.snippet.title,
        description: entry.session.metadata.snippet.description ?? "",
        categoryId: entry.session.metadata.snippet.categoryId,
      };
    }
    if (parts.includes("status")) {
      const status: Record<string, unknown> = {
        uploadStatus: state.uploadStatus,
        privacyStatus: opts.unauditedProject ? "private" : entry.session.metadata.status.privacyStatus,
        license: "youtube",
        embeddable: true,
        publicStatsViewable: true,
        selfDeclaredMadeForKids: entry.session.metadata.status.selfDeclaredMadeForKids,
      };
      if (state.failureReason) status.failureReason = state.failureReason;
      if (state.rejectionReason) status.rejectionReason = state.rejectionReason;
      out.status = status;
    }
    if (parts.includes("processingDetails")) out.processingDetails = { processingStatus: state.processingStatus };
    if (parts.includes("statistics")) out.statistics = opts.statistics;
    return out;
  }

  async function handleToken(request: Request): Promise<Response> {
    const form = formFields(await request.formData());
    calls.push({ method: request.method, path: pathOf(request), headers: pickHeaders(request), form });
    const scripted = script.take(request);
    if (scripted) return scripted(request);
    if (new URL(request.url).pathname !== "/token") return json({ error: "not_found" }, 404);
    if (form.client_id !== "g-client" || form.client_secret !== "g-secret") {
      return json({ error: "invalid_client", error_description: "The OAuth client was not found." }, 401);
    }
    if (form.grant_type !== "refresh_token" || !refreshTokens.has(form.refresh_token ?? "")) {
      return json({ error: "invalid_grant", error_description: "Token has been expired or revoked." }, 400);
    }
    seq++;
    const access = `ya29.fake-${seq}`;
    accessTokens.add(access);
    clock.issue(access, GOOGLE_ACCESS_TOKEN_SECONDS * 1000);
    return json({
      access_token: access,
      expires_in: GOOGLE_ACCESS_TOKEN_SECONDS,
      scope: "https://www.googleapis.com/auth/youtube.upload https://www.googleapis.com/auth/youtube.readonly",
      token_type: "Bearer",
    });
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const call: RecordedCall = { method: request.method, path: pathOf(request), headers: pickHeaders(request) };
    calls.push(call);
    let bodyBytes = new Uint8Array(0);
    if ((request.headers.get("content-type") ?? "").includes("application/json")) {
      call.json = JSON.parse(await request.text());
    } else if (request.method === "PUT") {
      bodyBytes = new Uint8Array(await request.arrayBuffer());
      call.bytes = bodyBytes.byteLength;
    }
    const scripted = script.take(request);
    if (scripted) return scripted(request);

    if (request.method === "POST" && url.pathname === "/upload/youtube/v3/videos") {
      if (!authorized(request)) return unauthorized();
      if (!opts.uploadScope) {
        return googleErrorResponse(403, "insufficientPermissions", "Request had insufficient authentication scopes.");
      }
      if (opts.noChannel) {
        return googleErrorResponse(401, "youtubeSignupRequired", "Unauthorized");
      }
      if (url.searchParams.get("uploadType") !== "resumable" || url.searchParams.get("part") !== "snippet,status") {
        return googleErrorResponse(400, "invalidParameter", "uploadType must be resumable and part snippet,status.");
      }
      const total = Number(request.headers.get("x-upload-content-length"));
      const mimeType = request.headers.get("x-upload-content-type") ?? "";
      if (!Number.isInteger(total) || total <= 0 || !/^(video\/|application\/octet-stream)/.test(mimeType)) {
        return googleErrorResponse(
          400,
          "invalidValue",
          "X-Upload-Content-Length and a video X-Upload-Content-Type are required.",
        );
      }
      const meta = call.json as any;
      const title = meta?.snippet?.title;
      if (typeof title !== "string" || title.trim() === "" || [...title].length > 100 || /[<>]/.test(title)) {
        return googleErrorResponse(400, "invalidTitle", "The request metadata specifies an invalid video title.");
      }
      const description = meta?.snippet?.description ?? "";
      if (new TextEncoder().encode(description).byteLength > 5000 || /[<>]/.test(description)) {
        return googleErrorResponse(
          400,
          "invalidDescription",
          "The request metadata specifies an invalid video description.",
        );
      }
      seq++;
      const id = `upl${seq}`;
      sessions.set(id, { id, total, mimeType, metadata: meta, received: [], receivedBytes: 0 });
      return new Response(null, {
        status: 200,
        headers: {
          location: `${YOUTUBE_ORIGIN}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status&upload_id=${id}`,
          "x-guploader-uploadid": id,
        },
      });
    }

    if (request.method === "PUT" && url.pathname === "/upload/youtube/v3/videos") {
      const session = sessions.get(url.searchParams.get("upload_id") ?? "");
      if (!session) return new Response("Not Found", { status: 404 });
      const range = request.headers.get("content-range") ?? "";
      const stored = () =>
        new Response(null, {
          status: 308,
          headers: session.receivedBytes > 0 ? { range: `bytes=0-${session.receivedBytes - 1}` } : {},
        });
      if (range === `bytes */${session.total}`) return session.video ? json(session.video, 200) : stored();
      const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(range);
      if (!m) return googleErrorResponse(400, "badContent", "Invalid Content-Range header.");
      const [first, last, total] = [Number(m[1]), Number(m[2]), Number(m[3])];
      const isLast = last === session.total - 1;
      if (
        total !== session.total ||
        first !== session.receivedBytes ||
        last - first + 1 !== bodyBytes.byteLength ||
        (!isLast && bodyBytes.byteLength % ALIGN !== 0)
      ) {
        return googleErrorResponse(400, "badContent", "The chunk does not continue the upload at a 256 KiB boundary.");
      }
      session.received.push(bodyBytes);
      session.receivedBytes += bodyBytes.byteLength;
      if (!isLast) return stored();
      const videoId = `Sh0rt${String(seq).padStart(6, "0")}`;
      seq++;
      videos.set(videoId, { session, processing: [...opts.processing] });
      session.video = videoResource(videoId, { uploadStatus: "uploaded", processingStatus: "processing" }, [
        "snippet",
        "status",
      ]);
      return json(session.video, 200);
    }

    if (request.method === "GET" && url.pathname === "/youtube/v3/videos") {
      if (!authorized(request)) return unauthorized();
      const parts = (url.searchParams.get("part") ?? "").split(",");
      const items = (url.searchParams.get("id") ?? "")
        .split(",")
        .filter((id) => videos.has(id))
        .map((id) => {
          const entry = videos.get(id)!;
          const state =
            parts.includes("status") && entry.processing.length > 1 ? entry.processing.shift()! : entry.processing[0]!;
          return videoResource(id, state, parts);
        });
      return json({
        kind: "youtube#videoListResponse",
        etag: "list-etag",
        items,
        pageInfo: { totalResults: items.length, resultsPerPage: items.length },
      });
    }

    if (url.pathname === "/youtube/v3/commentThreads") {
      if (!authorized(request)) return unauthorized();
      return request.method === "POST" ? insertComment(url, call.json) : listComments(url);
    }

    return googleErrorResponse(404, "notFound", `No such endpoint ${request.method} ${url.pathname}.`);
  }

  function threadResource(c: StoredYouTubeComment) {
    return {
      kind: "youtube#commentThread",
      etag: `etag-${c.id}`,
      id: c.id,
      snippet: {
        channelId: c.channelId,
        videoId: c.videoId,
        topLevelComment: {
          kind: "youtube#comment",
          etag: `etag-c-${c.id}`,
          id: c.id,
          snippet: {
            channelId: c.channelId,
            videoId: c.videoId,
            textDisplay: c.text,
            textOriginal: c.text,
            authorDisplayName: "@fakechannel",
            authorChannelId: { value: c.authorChannelId },
            canRate: true,
            viewerRating: "none",
            likeCount: 0,
            publishedAt: c.publishedAt,
            updatedAt: c.publishedAt,
          },
        },
        canReply: true,
        totalReplyCount: 0,
        isPublic: true,
      },
    };
  }

  /** `commentThreads.insert?part=snippet`: scope, video, comments on, channelId/videoId/textOriginal required. */
  function insertComment(url: URL, body: any): Response {
    if (!opts.forceSslScope) {
      return googleErrorResponse(403, "insufficientPermissions", "Request had insufficient authentication scopes.");
    }
    if (url.searchParams.get("part") !== "snippet") {
      return googleErrorResponse(400, "invalidParameter", "part must be snippet.");
    }
    const videoId = body?.snippet?.videoId;
    const text = body?.snippet?.topLevelComment?.snippet?.textOriginal;
    if (!videos.has(videoId)) {
      return googleErrorResponse(
        404,
        "videoNotFound",
        "The video identified by the videoId parameter could not be found.",
      );
    }
    if (body?.snippet?.channelId !== YOUTUBE_CHANNEL) {
      return googleErrorResponse(404, "channelNotFound", "The channel could not be found.");
    }
    if (commentsDisabled.has(videoId)) {
      return googleErrorResponse(
        403,
        "commentsDisabled",
        "The video identified by the videoId parameter has disabled comments.",
      );
    }
    if (typeof text !== "string" || !text.trim()) {
      return googleErrorResponse(400, "commentTextRequired", "The comment must contain text.");
    }
    if ([...text].length > 10_000) {
      return googleErrorResponse(400, "commentTextTooLong", "The comment resource is too long.");
    }
    seq++;
    const c: StoredYouTubeComment = {
      id: `Ugx${String(seq).padStart(6, "0")}fakeComment`,
      videoId,
      channelId: YOUTUBE_CHANNEL,
      authorChannelId: YOUTUBE_CHANNEL,
      text,
      publishedAt: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
    };
    comments.push(c);
    return json(threadResource(c), 200);
  }

  /** `commentThreads.list?part=snippet&videoId=…`: newest first (`order=time`), `maxResults` 1–100. */
  function listComments(url: URL): Response {
    const videoId = url.searchParams.get("videoId") ?? "";
    if (!videos.has(videoId)) {
      return googleErrorResponse(
        404,
        "videoNotFound",
        "The video identified by the videoId parameter could not be found.",
      );
    }
    const max = Number(url.searchParams.get("maxResults") ?? 20);
    const items = comments
      .filter((c) => c.videoId === videoId)
      .reverse()
      .slice(0, max)
      .map(threadResource);
    return json({
      kind: "youtube#commentThreadListResponse",
      etag: "threads-etag",
      pageInfo: { totalResults: items.length, resultsPerPage: max },
      items,
    });
  }

  const stopApi = fakeOrigin(YOUTUBE_ORIGIN, handle);
  const stopOauth = fakeOrigin(GOOGLE_OAUTH_ORIGIN, handleToken);
  return {
    calls,
    script,
    sessions,
    /** Token lifetimes (a test gives the seed tokens one with `clock.issue`). */
    clock,
    refreshTokens,
    /** Top-level comments made through `commentThreads.insert`, in order. */
    comments,
    commentsDisabled,
    /** Registers an already-published video (for metrics tests). */
    addVideo(id: string): void {
      const session: Session = {
        id: `seed-${id}`,
        total: 0,
        mimeType: "video/mp4",
        metadata: {
          snippet: { title: "Seeded", categoryId: "22" },
          status: { privacyStatus: "public", selfDeclaredMadeForKids: false },
        },
        received: [],
        receivedBytes: 0,
      };
      videos.set(id, { session, processing: [{ uploadStatus: "processed", processingStatus: "succeeded" }] });
    },
    uploaded(sessionId: string): Uint8Array {
      return concatBytes(sessions.get(sessionId)?.received ?? []);
    },
    stop() {
      stopApi();
      stopOauth();
    },
  };
}

export type YouTubeFake = ReturnType<typeof fakeYouTube>;
