import { platformFetch, readJson, retryAfterSeconds } from "../http";
import { type AdapterContext, PlatformError } from "../types";
import { parseStatusBody, tiktokError } from "./transform";
import type {
  TikTokCreatorInfo,
  TikTokEnvelope,
  TikTokInitData,
  TikTokPhotoInitRequest,
  TikTokStatusData,
  TikTokTokenResponse,
  TikTokVideoInitRequest,
} from "./types";

/** HTTP client for TikTok's Content Posting API. Paths keep TikTok's trailing slashes. */
const LABEL = "TikTok";
export const TIKTOK_PATHS = {
  creatorInfo: "/v2/post/publish/creator_info/query/",
  videoInit: "/v2/post/publish/video/init/",
  contentInit: "/v2/post/publish/content/init/",
  status: "/v2/post/publish/status/fetch/",
  token: "/v2/oauth/token/",
} as const;

export class TikTokApi {
  constructor(
    private readonly ctx: AdapterContext,
    private readonly accessToken: string,
  ) {}

  private url(path: string): string {
    return this.ctx.config.TIKTOK_API_URL + path;
  }

  private jsonHeaders(): Record<string, string> {
    return { authorization: `Bearer ${this.accessToken}`, "content-type": "application/json; charset=UTF-8" };
  }

  private async post<T>(path: string, body: unknown): Promise<T> {
    const res = await platformFetch(this.ctx.fetch, LABEL, this.url(path), {
      method: "POST",
      headers: this.jsonHeaders(),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await readJson<TikTokEnvelope<T>>(res);
    const code = json?.error?.code;
    if (!res.ok || (code !== undefined && code !== "ok"))
      throw tiktokError(res.status, json, res.headers, this.ctx.now());
    if (!json?.data) throw new PlatformError("transient", "TikTok answered without data.", { status: res.status });
    return json.data;
  }

  creatorInfo(): Promise<TikTokCreatorInfo> {
    return this.post<TikTokCreatorInfo>(TIKTOK_PATHS.creatorInfo, undefined);
  }

  initVideo(body: TikTokVideoInitRequest): Promise<TikTokInitData> {
    return this.post<TikTokInitData>(TIKTOK_PATHS.videoInit, body);
  }

  initPhoto(body: TikTokPhotoInitRequest): Promise<TikTokInitData> {
    return this.post<TikTokInitData>(TIKTOK_PATHS.contentInit, body);
  }

  /** Read with parseStatusBody so the int64 post id is not rounded. */
  async fetchStatus(publishId: string): Promise<TikTokStatusData> {
    const res = await platformFetch(this.ctx.fetch, LABEL, this.url(TIKTOK_PATHS.status), {
      method: "POST",
      headers: this.jsonHeaders(),
      body: JSON.stringify({ publish_id: publishId }),
    });
    const json = parseStatusBody(await res.text().catch(() => ""));
    const code = json?.error?.code;
    if (!res.ok || (code !== undefined && code !== "ok"))
      throw tiktokError(res.status, json, res.headers, this.ctx.now());
    if (!json?.data) throw new PlatformError("transient", "TikTok answered without data.", { status: res.status });
    return json.data;
  }

  /** `PUT <upload_url>` one chunk: 206 for intermediate chunks, 201 after the last. The URL is used as returned. */
  async uploadChunk(
    uploadUrl: string,
    bytes: Uint8Array,
    range: { first: number; last: number },
    total: number,
    mimeType: string,
  ): Promise<void> {
    const res = await platformFetch(
      this.ctx.fetch,
      LABEL,
      uploadUrl,
      {
        method: "PUT",
        headers: {
          "content-type": mimeType,
          "content-length": String(bytes.byteLength),
          "content-range": `bytes ${range.first}-${range.last}/${total}`,
        },
        body: bytes,
      },
      120_000,
    );
    if (res.status === 201 || res.status === 206 || res.status === 200) {
      await res.body?.cancel();
      return;
    }
    throw tiktokError(res.status, await readJson<TikTokEnvelope<unknown>>(res), res.headers, this.ctx.now());
  }
}

/** `POST /v2/oauth/token/` (form-encoded, no bearer). */
export async function refreshTikTokToken(ctx: AdapterContext, refreshToken: string): Promise<TikTokTokenResponse> {
  const { TIKTOK_CLIENT_KEY: key, TIKTOK_CLIENT_SECRET: secret } = ctx.config;
  if (!key || !secret) throw new PlatformError("auth", "TikTok client credentials are not configured.");
  const res = await platformFetch(ctx.fetch, LABEL, ctx.config.TIKTOK_API_URL + TIKTOK_PATHS.token, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "cache-control": "no-cache" },
    body: new URLSearchParams({
      client_key: key,
      client_secret: secret,
      grant_type: "refresh_token",
      refresh_token: refreshToken,
    }).toString(),
  });
  const body = await readJson<TikTokTokenResponse>(res);
  if (res.status === 429 || res.status >= 500) {
    throw new PlatformError("transient", `TikTok could not refresh the token (HTTP ${res.status}).`, {
      status: res.status,
      retryAfterSeconds: retryAfterSeconds(res.headers, ctx.now()),
    });
  }
  if (!res.ok || !body?.access_token || typeof body.error === "string") {
    const reason =
      (typeof body?.error === "string" ? body.error_description || body.error : body?.error?.message) ||
      `HTTP ${res.status}`;
    throw new PlatformError("auth", `TikTok refused to refresh the token: ${reason}`, { status: res.status });
  }
  return body;
}
