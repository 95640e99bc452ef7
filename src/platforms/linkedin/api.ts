import { platformFetch, readJson, retryAfterSeconds } from "../http";
import { type AdapterContext, PlatformError } from "../types";
import { duplicateOf, errorMessage, secondsUntilUtcMidnight, shareStatisticsQuery, videoState } from "./transform";
import type {
  LiComment,
  LiCommentList,
  LiErrorBody,
  LiImageUploadInit,
  LiShareStatistics,
  LiTokenResponse,
  LiVideo,
  LiVideoUploadInit,
} from "./types";

/**
 * LinkedIn's versioned REST API. The version headers live here only: every `/rest/…` call carries
 * `LinkedIn-Version` (the `LINKEDIN_API_VERSION` var) and `X-Restli-Protocol-Version`.
 */
export const RESTLI_PROTOCOL_VERSION = "2.0.0";
export const LINKEDIN_LABEL = "LinkedIn";
export const VIDEO_POLL = { intervalMs: 5_000, maxAttempts: 72 };

/** What the operator reads when LinkedIn no longer serves the configured `LinkedIn-Version` (HTTP 426). */
export const linkedInVersionSunsetMessage = (version: string) =>
  `LinkedIn API version ${version} is no longer served; set LINKEDIN_API_VERSION to a current version (docs/configuration.md "Moving the LinkedIn version").`;

/**
 * 401 → auth; 429 → transient until Retry-After or the daily reset (00:00 UTC); 5xx → transient; 426 (the version
 * in `LinkedIn-Version` is sunset: "Version Header is Deprecated"; LinkedIn supports each monthly version "for a
 * minimum of one year before sunset", learn.microsoft.com/linkedin/marketing/versioning) → permanent, saying which
 * version and which setting; else permanent.
 */
export function linkedInError(
  res: Response,
  body: LiErrorBody | null,
  nowMs: number,
  token?: string,
  version?: string,
): PlatformError {
  let message = errorMessage(body, res.status);
  if (token && token.length >= 8) message = message.split(token).join("[redacted]");
  if (res.status === 426) {
    return new PlatformError("permanent", `${linkedInVersionSunsetMessage(version ?? "in use")} LinkedIn: ${message}`, {
      status: 426,
    });
  }
  if (res.status === 401) return new PlatformError("auth", message, { status: 401 });
  if (res.status === 429) {
    const wait = retryAfterSeconds(res.headers, nowMs) ?? secondsUntilUtcMidnight(nowMs);
    return new PlatformError("transient", message, { status: 429, retryAfterSeconds: wait });
  }
  if (res.status >= 500) return new PlatformError("transient", message, { status: res.status });
  // 403 ACCESS_DENIED ("Not enough permissions to access: …"): a scope the member revoked, or an admin role on
  // the Page taken away (LinkedIn "Error Handling", learn.microsoft.com/linkedin/shared/api-guide/concepts/error-handling).
  const needsReconnect = res.status === 403 && body?.code === "ACCESS_DENIED";
  return new PlatformError("permanent", message, { status: res.status, needsReconnect });
}

export class LinkedInApi {
  constructor(
    private readonly ctx: AdapterContext,
    private readonly token: string,
  ) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      authorization: `Bearer ${this.token}`,
      "linkedin-version": this.ctx.config.LINKEDIN_API_VERSION,
      "x-restli-protocol-version": RESTLI_PROTOCOL_VERSION,
      ...extra,
    };
  }

  /** The error for a refused answer, with this token redacted and the configured version named (426). */
  private async failure(res: Response, body?: LiErrorBody | null): Promise<PlatformError> {
    const read = body === undefined ? await readJson<LiErrorBody>(res) : body;
    return linkedInError(res, read, this.ctx.now(), this.token, this.ctx.config.LINKEDIN_API_VERSION);
  }

  private async call(method: string, pathAndQuery: string, body?: unknown): Promise<Response> {
    const res = await platformFetch(
      this.ctx.fetch,
      LINKEDIN_LABEL,
      `${this.ctx.config.LINKEDIN_API_URL}${pathAndQuery}`,
      {
        method,
        headers: this.headers(body === undefined ? {} : { "content-type": "application/json" }),
        body: body === undefined ? undefined : JSON.stringify(body),
      },
    );
    if (!res.ok) throw await this.failure(res);
    return res;
  }

  private async json<T>(method: string, pathAndQuery: string, body?: unknown): Promise<T> {
    const res = await this.call(method, pathAndQuery, body);
    const data = await readJson<T>(res);
    if (data === null)
      throw new PlatformError("transient", "LinkedIn returned an empty answer.", { status: res.status });
    return data;
  }

  async initializeImageUpload(owner: string): Promise<LiImageUploadInit["value"]> {
    const res = await this.json<LiImageUploadInit>("POST", "/rest/images?action=initializeUpload", {
      initializeUploadRequest: { owner },
    });
    return res.value;
  }

  /** Whole image in one PUT to the returned upload URL (Bearer accepted there). */
  async uploadImage(uploadUrl: string, bytes: Uint8Array, mimeType: string): Promise<void> {
    const res = await platformFetch(this.ctx.fetch, LINKEDIN_LABEL, uploadUrl, {
      method: "PUT",
      headers: { authorization: `Bearer ${this.token}`, "content-type": mimeType },
      body: bytes,
    });
    if (!res.ok) throw await this.failure(res);
    await res.body?.cancel();
  }

  async initializeVideoUpload(owner: string, fileSizeBytes: number): Promise<LiVideoUploadInit["value"]> {
    const res = await this.json<LiVideoUploadInit>("POST", "/rest/videos?action=initializeUpload", {
      initializeUploadRequest: { owner, fileSizeBytes, uploadCaptions: false, uploadThumbnail: false },
    });
    return res.value;
  }

  /** One part PUT; LinkedIn names the part by the `ETag` response header. */
  async uploadPart(uploadUrl: string, bytes: Uint8Array): Promise<string> {
    const res = await platformFetch(this.ctx.fetch, LINKEDIN_LABEL, uploadUrl, {
      method: "PUT",
      headers: { authorization: `Bearer ${this.token}`, "content-type": "application/octet-stream" },
      body: bytes,
    });
    if (!res.ok) throw await this.failure(res);
    await res.body?.cancel();
    const etag = res.headers.get("etag");
    if (!etag) throw new PlatformError("transient", "LinkedIn did not confirm a video part (no ETag).");
    return etag;
  }

  async finalizeVideoUpload(video: string, uploadToken: string, uploadedPartIds: string[]): Promise<void> {
    const res = await this.call("POST", "/rest/videos?action=finalizeUpload", {
      finalizeUploadRequest: { video, uploadToken, uploadedPartIds },
    });
    await res.body?.cancel();
  }

  video(urn: string): Promise<LiVideo> {
    return this.json<LiVideo>("GET", `/rest/videos/${encodeURIComponent(urn)}`);
  }

  /** Polls until AVAILABLE; PROCESSING_FAILED → permanent; still processing after the bound → transient. */
  async waitForVideo(urn: string): Promise<void> {
    for (let attempt = 0; attempt < VIDEO_POLL.maxAttempts; attempt++) {
      if (attempt > 0) await this.ctx.sleep(VIDEO_POLL.intervalMs);
      const state = videoState(await this.video(urn));
      if (state === "ready") return;
      if (typeof state === "object") throw new PlatformError("permanent", state.failed);
    }
    throw new PlatformError("transient", "LinkedIn is still processing the video.");
  }

  /**
   * `POST /rest/posts` → 201, empty body, the post URN in `x-restli-id`. LinkedIn refuses a post identical to a
   * recent one of the same author with 422 DUPLICATE_POST naming that post: returned as `duplicate`.
   */
  async createPost(body: Record<string, unknown>): Promise<{ urn: string; duplicate: boolean }> {
    const res = await platformFetch(this.ctx.fetch, LINKEDIN_LABEL, `${this.ctx.config.LINKEDIN_API_URL}/rest/posts`, {
      method: "POST",
      headers: this.headers({ "content-type": "application/json" }),
      body: JSON.stringify(body),
    });
    if (!res.ok) {
      const err = await readJson<LiErrorBody>(res);
      const existing = res.status === 422 ? duplicateOf(err) : null;
      if (existing) return { urn: existing, duplicate: true };
      throw await this.failure(res, err);
    }
    await res.body?.cancel();
    const urn = res.headers.get("x-restli-id") ?? res.headers.get("x-linkedin-id");
    if (!urn) throw new PlatformError("permanent", "LinkedIn accepted the post but returned no post id.");
    return { urn, duplicate: false };
  }

  /**
   * `POST /rest/socialActions/{post urn}/comments` `{actor, object, message: {text}}` → 201 with the comment; its
   * URN is `$URN` (else built from `x-restli-id`). Members need `w_member_social`, Pages `w_organization_social`.
   */
  async createComment(postUrn: string, actor: string, text: string): Promise<string> {
    const res = await this.call("POST", `/rest/socialActions/${encodeURIComponent(postUrn)}/comments`, {
      actor,
      object: postUrn,
      message: { text },
    });
    const body = await readJson<LiComment>(res);
    const id = body?.id ?? res.headers.get("x-restli-id");
    const urn = body?.$URN ?? (id ? `urn:li:comment:(${postUrn},${id})` : null);
    if (!urn) throw new PlatformError("permanent", "LinkedIn accepted the comment but returned no comment id.");
    return urn;
  }

  /**
   * The post's comments (`GET /rest/socialActions/{post urn}/comments`), or null when LinkedIn will not let this
   * app read them (403: reading members' comments needs the restricted `r_member_social`).
   */
  async comments(postUrn: string): Promise<LiCommentList | null> {
    const res = await platformFetch(
      this.ctx.fetch,
      LINKEDIN_LABEL,
      `${this.ctx.config.LINKEDIN_API_URL}/rest/socialActions/${encodeURIComponent(postUrn)}/comments?count=50`,
      { method: "GET", headers: this.headers() },
    );
    if (res.status === 403) {
      await res.body?.cancel();
      return null;
    }
    if (!res.ok) throw await this.failure(res);
    return (await readJson<LiCommentList>(res)) ?? {};
  }

  shareStatistics(orgUrn: string, postUrn: string): Promise<LiShareStatistics> {
    return this.json<LiShareStatistics>(
      "GET",
      `/rest/organizationalEntityShareStatistics?${shareStatisticsQuery(orgUrn, postUrn)}`,
    );
  }
}

/** `refresh_token` grant at LINKEDIN_OAUTH_URL; a refusal (invalid_grant, invalid_client) is kind "auth". */
export async function refreshLinkedInToken(
  ctx: AdapterContext,
  refreshToken: string,
): Promise<LiTokenResponse & { access_token: string }> {
  const clientId = ctx.config.LINKEDIN_CLIENT_ID;
  const clientSecret = ctx.config.LINKEDIN_CLIENT_SECRET;
  if (!clientId || !clientSecret) {
    throw new PlatformError("auth", "LinkedIn token refresh is not configured (LINKEDIN_CLIENT_ID/SECRET).");
  }
  const res = await platformFetch(ctx.fetch, LINKEDIN_LABEL, `${ctx.config.LINKEDIN_OAUTH_URL}/oauth/v2/accessToken`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: clientId,
      client_secret: clientSecret,
    }).toString(),
  });
  const body = await readJson<LiTokenResponse>(res);
  if (res.ok && body?.access_token) return body as LiTokenResponse & { access_token: string };
  if (res.status === 429 || res.status >= 500) {
    throw linkedInError(res, { message: body?.error_description ?? body?.message }, ctx.now());
  }
  const reason = body?.error_description || body?.message || `LinkedIn refused the token refresh (HTTP ${res.status}).`;
  throw new PlatformError("auth", reason, { status: res.status });
}
