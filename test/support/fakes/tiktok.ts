import { concatBytes } from "../../../src/media/byte-source";
import { fakeOrigin } from "../fake-fetch";
import { formFields, json, pathOf, pickHeaders, type RecordedCall, Script } from "./fake-kit";
import {
  PULL_LIMITS,
  pulledImageRefusal,
  pulledVideoRefusal,
  VIDEO_PULL_LIMITS,
  type VideoRefusal,
} from "./pulled-media";
import { DAY_MS, HOUR_MS, TokenClock } from "./token-clock";

/**
 * A fake of TikTok's Content Posting API v2 (platforms.md §8) on https://tiktok.fake:
 * - every JSON answer is the `{data, error:{code,message,log_id}}` envelope; `code:"ok"` on success;
 * - bearer check → 401 `access_token_invalid`; init endpoints limited to 6 requests/min per token → 429
 *   `rate_limit_exceeded` (no reset header, as documented); unaudited mode → 403
 *   `unaudited_client_can_only_post_to_private_accounts` for anything but SELF_ONLY;
 * - FILE_UPLOAD checks TikTok's chunk rules (5–64 MB chunks, floor count, last chunk ≤ 128 MB, sequential
 *   `Content-Range`), answers 206 per intermediate chunk and 201 after the last, on an upload URL of this origin;
 * - `status/fetch` walks a status script (PROCESSING_* → PUBLISH_COMPLETE | FAILED + fail_reason) and sends
 *   `publicaly_available_post_id` (TikTok's spelling) as raw int64 numbers;
 * - `/v2/oauth/token/` refreshes or answers `invalid_grant`. Token lifetimes as TikTok's "Manage OAuth Access
 *   Tokens" (updated November 2026) gives them: access tokens 2 hours, refresh tokens 180 days; refresh tokens
 *   rotate — the one sent stops working once the new one is issued. An expired access token is answered like an
 *   invalid one (401 `access_token_invalid`); an expired or spent refresh token gets `invalid_grant`.
 */
export const TIKTOK_ACCESS_TOKEN_MS = 2 * HOUR_MS;
export const TIKTOK_REFRESH_TOKEN_MS = 180 * DAY_MS;

export const TIKTOK_ORIGIN = "https://tiktok.fake";
const MB = 1024 * 1024;
const SELF_PATHS = {
  creatorInfo: "/v2/post/publish/creator_info/query/",
  videoInit: "/v2/post/publish/video/init/",
  contentInit: "/v2/post/publish/content/init/",
  status: "/v2/post/publish/status/fetch/",
  token: "/v2/oauth/token/",
  upload: "/upload/video/",
};

interface Publish {
  publishId: string;
  kind: "video" | "photo";
  source: "FILE_UPLOAD" | "PULL_FROM_URL";
  videoSize?: number;
  chunkSize?: number;
  chunkCount?: number;
  received: Uint8Array[];
  receivedBytes: number;
  statuses: string[];
  failReason?: string;
  postId: string;
  body: any;
}

export interface TikTokFakeOptions {
  /** Tokens accepted as bearer. */
  accessTokens?: string[];
  refreshTokens?: string[];
  privacyLevelOptions?: string[];
  creatorUsername?: string;
  commentDisabled?: boolean;
  /** Unaudited app: only SELF_ONLY posts are accepted. */
  unaudited?: boolean;
  /** Statuses each new publish goes through on successive status fetches (the last one repeats). */
  statuses?: string[];
  failReason?: string;
  /** Post id filled in on PUBLISH_COMPLETE (empty array when null, as for private posts). */
  postId?: string | null;
  initLimitPerMinute?: number;
  /**
   * The creator took back (or never granted) `video.publish`: every Content Posting call answers 401
   * `scope_not_authorized`, "The user did not authorize the scope required for completing this request."
   * (developers.tiktok.com/doc/tiktok-api-v2-error-handling).
   */
  withoutPublishScope?: boolean;
}

export const TIKTOK_SCOPE_NOT_AUTHORIZED =
  "The user did not authorize the scope required for completing this request. Please ask the user to authorize and then retry.";

/**
 * `fail_reason` for a pulled video TikTok refuses (Get Post Status reference). TikTok names no reason for size or
 * ratio; it has no ratio rule, and a file past 4 GB fails its format check.
 */
const TIKTOK_VIDEO_FAIL_REASON: Record<VideoRefusal, string> = {
  format: "file_format_check_failed",
  size: "file_format_check_failed",
  duration: "duration_check_failed",
  dimensions: "picture_size_check_failed",
  aspect: "picture_size_check_failed",
};

export function tiktokEnvelope(code: string, message: string, data: unknown = {}): unknown {
  return { data, error: { code, message, log_id: "202401010000000000FAKE" } };
}

export function tiktokErrorResponse(status: number, code: string, message: string): Response {
  return json(tiktokEnvelope(code, message), status);
}

export function fakeTikTok(options: TikTokFakeOptions = {}) {
  const opts = {
    accessTokens: ["access-token"],
    refreshTokens: ["refresh-token"],
    privacyLevelOptions: ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "SELF_ONLY"],
    creatorUsername: "tester_tt",
    commentDisabled: false,
    unaudited: false,
    statuses: ["PROCESSING_UPLOAD", "PUBLISH_COMPLETE"],
    postId: "7351234567890123456" as string | null,
    initLimitPerMinute: 6,
    ...options,
  };
  const calls: RecordedCall[] = [];
  const script = new Script();
  const publishes = new Map<string, Publish>();
  const uploads = new Map<string, Publish>();
  /** Init calls of the last minute, per access token (TikTok's limit is per user token). */
  const initTimes = new Map<string, number[]>();
  const accessTokens = new Set(opts.accessTokens);
  const refreshTokens = new Set(opts.refreshTokens);
  const clock = new TokenClock();
  let seq = 0;
  let publishCount = 0;

  const ok = (data: unknown) => json(tiktokEnvelope("ok", "", data));

  function authorized(request: Request): boolean {
    const auth = request.headers.get("authorization") ?? "";
    return auth.startsWith("Bearer ") && accessTokens.has(auth.slice(7)) && !clock.expired(auth.slice(7));
  }

  function validateFileUpload(src: any): string | null {
    const { video_size: size, chunk_size: chunk, total_chunk_count: count } = src ?? {};
    if (![size, chunk, count].every((n) => Number.isInteger(n) && n > 0))
      return "video_size, chunk_size and total_chunk_count are required.";
    if (size < 5 * MB) {
      if (chunk !== size || count !== 1) return "Videos under 5 MB must be uploaded as one chunk.";
      return null;
    }
    if (chunk < 5 * MB || chunk > 64 * MB) {
      if (!(count === 1 && chunk === size && size <= 64 * MB)) return "chunk_size must be between 5 MB and 64 MB.";
    }
    if (count !== Math.floor(size / chunk)) return "total_chunk_count must be floor(video_size / chunk_size).";
    if (count > 1000) return "total_chunk_count must be at most 1000.";
    if (size - (count - 1) * chunk > 128 * MB) return "The final chunk must be at most 128 MB.";
    return null;
  }

  function newPublish(kind: "video" | "photo", source: Publish["source"], body: any): Publish {
    seq++;
    publishCount++;
    const prefix = kind === "photo" ? "p_pub_url" : source === "FILE_UPLOAD" ? "v_pub_file" : "v_pub_url";
    const p: Publish = {
      publishId: `${prefix}~v2-1.${7000000000000000000n + BigInt(seq)}`,
      kind,
      source,
      received: [],
      receivedBytes: 0,
      statuses: [...opts.statuses],
      failReason: opts.failReason,
      // The first publish gets `postId` exactly, later ones count up from it.
      postId: opts.postId === null ? "" : String(BigInt(opts.postId) + BigInt(publishCount - 1)),
      body,
    };
    publishes.set(p.publishId, p);
    return p;
  }

  function checkInit(request: Request, body: any): Response | null {
    const now = Date.now();
    const token = request.headers.get("authorization") ?? "";
    const times = initTimes.get(token) ?? [];
    initTimes.set(token, times);
    while (times.length > 0 && times[0]! < now - 60_000) times.shift();
    if (times.length >= opts.initLimitPerMinute) {
      return tiktokErrorResponse(429, "rate_limit_exceeded", "Api rate limit exceeded, please retry later.");
    }
    times.push(now);
    const privacy = body?.post_info?.privacy_level;
    if (!opts.privacyLevelOptions.includes(privacy)) {
      return tiktokErrorResponse(
        400,
        "privacy_level_option_mismatch",
        "privacy_level is not one of the options returned by creator_info.",
      );
    }
    if (opts.unaudited && privacy !== "SELF_ONLY") {
      return tiktokErrorResponse(
        403,
        "unaudited_client_can_only_post_to_private_accounts",
        "Please review our integration guidelines at https://developers.tiktok.com/doc/content-sharing-guidelines/",
      );
    }
    return null;
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const call: RecordedCall = { method: request.method, path: pathOf(request), headers: pickHeaders(request) };
    calls.push(call);
    let bodyBytes: Uint8Array | null = null;
    const type = request.headers.get("content-type") ?? "";
    if (type.includes("application/json")) {
      const text = await request.text();
      call.json = text ? JSON.parse(text) : undefined;
    } else if (type.includes("application/x-www-form-urlencoded")) {
      call.form = formFields(await request.formData());
    } else if (request.method === "PUT") {
      bodyBytes = new Uint8Array(await request.arrayBuffer());
      call.bytes = bodyBytes.byteLength;
    }

    const scripted = script.take(request);
    if (scripted) return scripted(request);

    if (opts.withoutPublishScope && url.pathname.startsWith("/v2/post/publish/")) {
      return tiktokErrorResponse(401, "scope_not_authorized", TIKTOK_SCOPE_NOT_AUTHORIZED);
    }

    if (request.method === "POST" && url.pathname === SELF_PATHS.token) {
      const form = call.form ?? {};
      if (form.client_key !== "tt-key" || form.client_secret !== "tt-secret") {
        return json(
          { error: "invalid_client", error_description: "Client key or secret is incorrect.", log_id: "LOG" },
          400,
        );
      }
      const sent = form.refresh_token ?? "";
      if (form.grant_type !== "refresh_token" || !refreshTokens.has(sent) || clock.expired(sent)) {
        return json(
          { error: "invalid_grant", error_description: "Refresh token is invalid or expired.", log_id: "LOG" },
          400,
        );
      }
      seq++;
      const access = `tt-access-${seq}`;
      const refresh = `tt-refresh-${seq}`;
      refreshTokens.delete(sent);
      accessTokens.add(access);
      refreshTokens.add(refresh);
      clock.issue(access, TIKTOK_ACCESS_TOKEN_MS);
      clock.issue(refresh, TIKTOK_REFRESH_TOKEN_MS);
      return json({
        access_token: access,
        expires_in: TIKTOK_ACCESS_TOKEN_MS / 1000,
        open_id: "open-id-1",
        refresh_token: refresh,
        refresh_expires_in: TIKTOK_REFRESH_TOKEN_MS / 1000,
        scope: "user.info.basic,video.publish,video.upload",
        token_type: "Bearer",
      });
    }

    if (request.method === "PUT" && url.pathname === SELF_PATHS.upload) {
      const p = uploads.get(url.searchParams.get("upload_id") ?? "");
      if (!p || url.searchParams.get("upload_token") !== `tok-${p.publishId}`) {
        return tiktokErrorResponse(404, "invalid_params", "Upload session not found.");
      }
      const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(request.headers.get("content-range") ?? "");
      if (!m || !/^video\/(mp4|quicktime|webm)$/.test(type)) {
        return tiktokErrorResponse(400, "invalid_params", "Content-Range and Content-Type video/* are required.");
      }
      const [first, last, total] = [Number(m[1]), Number(m[2]), Number(m[3])];
      const index = p.received.length;
      const expectedFirst = index * p.chunkSize!;
      const isLast = index === p.chunkCount! - 1;
      const expectedLast = isLast ? p.videoSize! - 1 : expectedFirst + p.chunkSize! - 1;
      if (
        total !== p.videoSize ||
        first !== expectedFirst ||
        last !== expectedLast ||
        bodyBytes!.byteLength !== last - first + 1 ||
        Number(request.headers.get("content-length") ?? bodyBytes!.byteLength) !== bodyBytes!.byteLength
      ) {
        return tiktokErrorResponse(400, "invalid_params", "The chunk does not match the upload plan.");
      }
      p.received.push(bodyBytes!);
      p.receivedBytes += bodyBytes!.byteLength;
      return new Response(null, { status: isLast ? 201 : 206 });
    }

    if (!authorized(request)) {
      return tiktokErrorResponse(
        401,
        "access_token_invalid",
        "The access token is invalid or not found in the request.",
      );
    }

    if (request.method === "POST" && url.pathname === SELF_PATHS.creatorInfo) {
      return ok({
        creator_avatar_url: "https://p16.tiktokcdn.fake/avatar.jpeg",
        creator_username: opts.creatorUsername,
        creator_nickname: "Tester",
        privacy_level_options: opts.privacyLevelOptions,
        comment_disabled: opts.commentDisabled,
        duet_disabled: false,
        stitch_disabled: false,
        max_video_post_duration_sec: 600,
      });
    }

    if (request.method === "POST" && url.pathname === SELF_PATHS.videoInit) {
      const body = call.json as any;
      const refused = checkInit(request, body);
      if (refused) return refused;
      if (typeof body?.post_info?.title === "string" && body.post_info.title.length > 2200) {
        return tiktokErrorResponse(400, "invalid_params", "The title is longer than 2200 characters.");
      }
      const src = body?.source_info;
      if (src?.source === "PULL_FROM_URL") {
        if (typeof src.video_url !== "string" || !src.video_url.startsWith("https://media.test/")) {
          return tiktokErrorResponse(403, "url_ownership_unverified", "Please verify the ownership of the URL prefix.");
        }
        const p = newPublish("video", "PULL_FROM_URL", body);
        // TikTok downloads the video, checks it, and says why in status/fetch (FAILED + fail_reason).
        const refused = await pulledVideoRefusal(src.video_url, VIDEO_PULL_LIMITS.tiktok);
        if (refused) {
          p.statuses = ["PROCESSING_DOWNLOAD", "FAILED"];
          p.failReason = TIKTOK_VIDEO_FAIL_REASON[refused];
        }
        return ok({ publish_id: p.publishId });
      }
      if (src?.source !== "FILE_UPLOAD")
        return tiktokErrorResponse(400, "invalid_params", "source_info.source is invalid.");
      const invalid = validateFileUpload(src);
      if (invalid) return tiktokErrorResponse(400, "invalid_params", invalid);
      const p = newPublish("video", "FILE_UPLOAD", body);
      p.videoSize = src.video_size;
      p.chunkSize = src.chunk_size;
      p.chunkCount = src.total_chunk_count;
      const uploadId = `up${seq}`;
      uploads.set(uploadId, p);
      return ok({
        publish_id: p.publishId,
        upload_url: `${TIKTOK_ORIGIN}${SELF_PATHS.upload}?upload_id=${uploadId}&upload_token=tok-${encodeURIComponent(p.publishId)}`,
      });
    }

    if (request.method === "POST" && url.pathname === SELF_PATHS.contentInit) {
      const body = call.json as any;
      const refused = checkInit(request, body);
      if (refused) return refused;
      const images = body?.source_info?.photo_images;
      if (body?.media_type !== "PHOTO" || body?.source_info?.source !== "PULL_FROM_URL" || !Array.isArray(images)) {
        return tiktokErrorResponse(400, "invalid_params", "Photo posts need media_type PHOTO and PULL_FROM_URL.");
      }
      if (images.length < 1 || images.length > 35) return tiktokErrorResponse(400, "invalid_params", "1 to 35 photos.");
      if (images.some((u: unknown) => typeof u !== "string" || !u.startsWith("https://media.test/"))) {
        return tiktokErrorResponse(403, "url_ownership_unverified", "Please verify the ownership of the URL prefix.");
      }
      // TikTok downloads the photos and checks them (issue 16): JPEG or WebP, at most 1080p, 20 MB.
      for (const u of images)
        if (await pulledImageRefusal(u, PULL_LIMITS.tiktok))
          return tiktokErrorResponse(400, "invalid_params", "Photo must be JPEG or WebP, at most 1080p and 20 MB.");
      if ((body.post_info?.title ?? "").length > 90 || (body.post_info?.description ?? "").length > 4000) {
        return tiktokErrorResponse(400, "invalid_params", "Title or description too long.");
      }
      const p = newPublish("photo", "PULL_FROM_URL", body);
      return ok({ publish_id: p.publishId });
    }

    if (request.method === "POST" && url.pathname === SELF_PATHS.status) {
      const p = publishes.get((call.json as any)?.publish_id ?? "");
      if (!p) return tiktokErrorResponse(400, "invalid_params", "publish_id is invalid.");
      if (p.source === "FILE_UPLOAD" && p.receivedBytes < p.videoSize!) {
        return statusResponse({ status: "PROCESSING_UPLOAD", uploaded_bytes: p.receivedBytes }, null);
      }
      const status = p.statuses.length > 1 ? p.statuses.shift()! : p.statuses[0]!;
      const data: Record<string, unknown> = { status };
      if (p.source === "FILE_UPLOAD") data.uploaded_bytes = p.receivedBytes;
      if (status === "FAILED") data.fail_reason = p.failReason ?? "internal";
      return statusResponse(data, status === "PUBLISH_COMPLETE" ? p.postId : null);
    }

    return tiktokErrorResponse(404, "invalid_params", `No such endpoint ${request.method} ${url.pathname}.`);
  }

  /** Writes the int64 post id as a raw JSON number, as TikTok does. */
  function statusResponse(data: Record<string, unknown>, postId: string | null): Response {
    const text = JSON.stringify(tiktokEnvelope("ok", "", { ...data, publicaly_available_post_id: "__ID__" }));
    const ids = postId ? `[${postId}]` : "[]";
    return new Response(text.replace('"__ID__"', ids), {
      headers: { "content-type": "application/json; charset=UTF-8" },
    });
  }

  const stop = fakeOrigin(TIKTOK_ORIGIN, handle);
  return {
    calls,
    script,
    publishes,
    /** Token lifetimes (a test gives the seed tokens one with `clock.issue`). */
    clock,
    refreshTokens,
    /** The bytes received for a FILE_UPLOAD publish, concatenated. */
    uploaded(publishId: string): Uint8Array {
      return concatBytes(publishes.get(publishId)?.received ?? []);
    },
    stop,
  };
}

export type TikTokFake = ReturnType<typeof fakeTikTok>;
