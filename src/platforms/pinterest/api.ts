import { platformFetch, readJson, retryAfterSeconds } from "../http";
import { type AdapterContext, PlatformError } from "../types";
import { multipartPlan, pinterestError, uploadError } from "./transform";
import type {
  PinterestCreatePin,
  PinterestErrorBody,
  PinterestMediaStatus,
  PinterestMediaUpload,
  PinterestPin,
  PinterestPinAnalytics,
  PinterestTokenResponse,
} from "./types";

/** HTTP client for Pinterest API v5. */
const LABEL = "Pinterest";
export const PINTEREST_PATHS = {
  pins: "/v5/pins",
  media: "/v5/media",
  token: "/v5/oauth/token",
} as const;

export class PinterestApi {
  constructor(
    private readonly ctx: AdapterContext,
    private readonly accessToken: string,
  ) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.accessToken}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await platformFetch(this.ctx.fetch, LABEL, this.ctx.config.PINTEREST_API_URL + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await readJson<T & PinterestErrorBody>(res);
    if (!res.ok) throw pinterestError(res.status, json, res.headers, this.ctx.now());
    if (json === null)
      throw new PlatformError("transient", "Pinterest answered with an empty body.", { status: res.status });
    return json;
  }

  createPin(body: PinterestCreatePin): Promise<PinterestPin> {
    return this.call<PinterestPin>("POST", PINTEREST_PATHS.pins, body);
  }

  /** The board's newest Pins, one small page. */
  boardPins(boardId: string, pageSize: number): Promise<{ items?: PinterestPin[] }> {
    return this.call<{ items?: PinterestPin[] }>(
      "GET",
      `/v5/boards/${encodeURIComponent(boardId)}/pins?page_size=${pageSize}`,
    );
  }

  registerVideo(): Promise<PinterestMediaUpload> {
    return this.call<PinterestMediaUpload>("POST", PINTEREST_PATHS.media, { media_type: "video" });
  }

  mediaStatus(mediaId: string): Promise<PinterestMediaStatus> {
    return this.call<PinterestMediaStatus>("GET", `${PINTEREST_PATHS.media}/${encodeURIComponent(mediaId)}`);
  }

  pinAnalytics(pinId: string, query: Record<string, string>): Promise<PinterestPinAnalytics> {
    const qs = Object.entries(query)
      .map(([k, v]) => `${k}=${encodeURIComponent(v).replaceAll("%2C", ",")}`)
      .join("&");
    return this.call<PinterestPinAnalytics>(
      "GET",
      `${PINTEREST_PATHS.pins}/${encodeURIComponent(pinId)}/analytics?${qs}`,
    );
  }

  /**
   * Step 2 of a video Pin: the S3 presigned POST to the returned `upload_url` (used as returned, no bearer),
   * multipart/form-data with every `upload_parameters` field and then `file`, streamed from R2 with a fixed length.
   */
  async uploadVideo(
    upload: PinterestMediaUpload,
    file: { body: ReadableStream<Uint8Array>; size: number; filename: string; mimeType: string },
  ): Promise<void> {
    const plan = multipartPlan(upload.upload_parameters, file, upload.media_id);
    const { readable, writable } = new FixedLengthStream(plan.length);
    const writer = writable.getWriter();
    const reader = file.body.getReader();
    let finished = false;
    // The body is written while fetch reads it (an identity stream holds nothing): never the whole video at once.
    const pump = (async () => {
      try {
        await writer.write(plan.head);
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          await writer.write(value);
        }
        await writer.write(plan.tail);
        await writer.close();
      } catch {
        await reader.cancel().catch(() => {});
      } finally {
        finished = true;
      }
    })();
    const stopPump = async () => {
      // An early answer (or a failed fetch) leaves writes pending: abort them so the pump ends.
      if (!finished) await writer.abort(new Error("upload ended")).catch(() => {});
      await pump;
    };
    let res: Response;
    try {
      res = await platformFetch(
        this.ctx.fetch,
        LABEL,
        upload.upload_url,
        {
          method: "POST",
          headers: { "content-type": plan.contentType, "content-length": String(plan.length) },
          body: readable,
        },
        300_000,
      );
    } catch (err) {
      await stopPump();
      throw err;
    }
    if (res.ok) {
      // Storage answered after reading the whole body, so the pump is done or closing.
      await pump;
      await res.body?.cancel();
      return;
    }
    await stopPump();
    throw uploadError(res.status, await res.text().catch(() => ""));
  }
}

/**
 * `POST /v5/oauth/token` with HTTP Basic client credentials and `continuous_refresh=true` (required of apps created
 * before 2025-09-25, the default after: developers.pinterest.com/docs/getting-started/scopes/). The answer brings a
 * new refresh token with its own `refresh_token_expires_in` (60 days, rolling); the caller stores what it says.
 */
export async function refreshPinterestToken(
  ctx: AdapterContext,
  refreshToken: string,
): Promise<PinterestTokenResponse> {
  const { PINTEREST_CLIENT_ID: id, PINTEREST_CLIENT_SECRET: secret } = ctx.config;
  if (!id || !secret) throw new PlatformError("auth", "Pinterest client credentials are not configured.");
  const res = await platformFetch(ctx.fetch, LABEL, ctx.config.PINTEREST_API_URL + PINTEREST_PATHS.token, {
    method: "POST",
    headers: {
      authorization: `Basic ${btoa(`${id}:${secret}`)}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      continuous_refresh: "true",
    }).toString(),
  });
  const body = await readJson<PinterestTokenResponse>(res);
  if (res.status === 429 || res.status >= 500) {
    throw new PlatformError("transient", `Pinterest could not refresh the token (HTTP ${res.status}).`, {
      status: res.status,
      retryAfterSeconds: retryAfterSeconds(res.headers, ctx.now()),
    });
  }
  if (!res.ok || !body?.access_token) {
    const reason = body?.message || body?.error_description || body?.error || `HTTP ${res.status}`;
    throw new PlatformError("auth", `Pinterest refused to refresh the token: ${reason}`, { status: res.status });
  }
  return body;
}
