import { retryAfterSeconds } from "../http";
import { type AdapterMedia, type Metric, PlatformError, type PlatformErrorKind, type PublishRequest } from "../types";
import type {
  PinterestCreatePin,
  PinterestErrorBody,
  PinterestMediaSource,
  PinterestMetricName,
  PinterestPinAnalytics,
} from "./types";

/** Pure request/response mapping for Pinterest (platforms.md §10). */

export const BOARD_REQUIRED_MESSAGE = "Pinterest board_id is required.";
/** Cover frame of a video Pin when no `meta.cover_image_url` is given (seconds; frame 0 is often black). */
export const DEFAULT_COVER_KEY_FRAME_SECONDS = 1;

/** Row `meta.board_id`, else the account's `meta.default_board_id` (decisions §7). */
export function boardId(req: Pick<PublishRequest, "meta" | "account">): string {
  const id = req.meta.board_id ?? req.account.meta.default_board_id;
  if ((typeof id === "string" && id.trim() !== "") || typeof id === "number") return String(id).trim();
  throw new PlatformError("permanent", BOARD_REQUIRED_MESSAGE);
}

function optionalString(meta: Record<string, unknown>, key: string): string | undefined {
  const v = meta[key];
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** The media source for a content type, checking the media it needs (pin: 1 image, video pin: 1 video, carousel 2–5 images). */
export function imageMediaSource(contentType: string, media: AdapterMedia[]): PinterestMediaSource {
  if (media.some((m) => m.type !== "image"))
    throw new PlatformError("permanent", "Pinterest image Pins take images only.");
  if (contentType === "pinterest_carousel") {
    if (media.length < 2 || media.length > 5)
      throw new PlatformError("permanent", "A Pinterest carousel needs 2 to 5 images.");
    return { source_type: "multiple_image_urls", items: media.map((m) => ({ url: m.url })), index: 0 };
  }
  if (media.length !== 1) throw new PlatformError("permanent", "A Pinterest Pin needs exactly one image.");
  return { source_type: "image_url", url: media[0]!.url };
}

export function videoMediaSource(mediaId: string, meta: Record<string, unknown>): PinterestMediaSource {
  const cover = optionalString(meta, "cover_image_url");
  if (cover) return { source_type: "video_id", media_id: mediaId, cover_image_url: cover };
  const frame = meta.cover_image_key_frame_time;
  return {
    source_type: "video_id",
    media_id: mediaId,
    cover_image_key_frame_time: typeof frame === "number" && frame >= 0 ? frame : DEFAULT_COVER_KEY_FRAME_SECONDS,
  };
}

/** `POST /v5/pins` body: description = the post content; title, link, alt_text, board_section_id from row meta. */
export function createPinBody(
  req: Pick<PublishRequest, "content" | "meta" | "account"> & { media?: PublishRequest["media"] },
  mediaSource: PinterestMediaSource,
): PinterestCreatePin {
  const body: PinterestCreatePin = { board_id: boardId(req), description: req.content, media_source: mediaSource };
  for (const key of ["board_section_id", "title", "link", "alt_text"] as const) {
    const v = optionalString(req.meta, key);
    if (v !== undefined) body[key] = v;
  }
  // Issue 29: without `meta.alt_text`, the first image's alt text (`alt_text`, at most 500 characters).
  const alt = req.media?.find((m) => m.type === "image")?.alt;
  if (body.alt_text === undefined && alt) body.alt_text = alt;
  return body;
}

export function pinUrl(pinId: string): string {
  return `https://www.pinterest.com/pin/${pinId}/`;
}

function sentence(s: string): string {
  return /[.!?]$/.test(s) ? s : `${s}.`;
}

/** The sandbox host apps in Trial access must create Pins on (developers.pinterest.com/docs/developer-tools/sandbox/). */
export const PINTEREST_SANDBOX_URL = "https://api-sandbox.pinterest.com";

/**
 * Pinterest's answer to `POST /v5/pins` from an app in Trial access on the production host: 403 `{"code": 29,
 * "message": "Apps with Trial access may not create Pins in production https://api.pinterest.com - use API Sandbox
 * https://api-sandbox.pinterest.com instead."}` (developers.pinterest.com/docs/key-concepts/access-tiers/). It
 * answers every Pin the same way, so it is permanent and says what to do.
 */
export const TRIAL_ACCESS_MESSAGE = `Pinterest refused the Pin: this Pinterest app has Trial access, and Trial apps may not create Pins on the production API (code 29). Either set PINTEREST_API_URL to the API Sandbox (${PINTEREST_SANDBOX_URL}) and connect the account with a Sandbox token — Sandbox Pins are visible only to their creator — or get Standard access for the app (docs/configuration.md, "Pinterest Trial access").`;

const isTrialAccess = (body: PinterestErrorBody | null) =>
  body?.code === 29 && /trial access|api-sandbox/i.test(body.message ?? "");

/** Turns a Pinterest error (`{code, message}`) into a PlatformError. */
export function pinterestError(
  status: number,
  body: PinterestErrorBody | null,
  headers: Headers,
  nowMs: number,
): PlatformError {
  const platformMessage = (body?.message ?? "").trim();
  let kind: PlatformErrorKind;
  let message: string;
  let needsReconnect = false;
  if (isTrialAccess(body)) {
    kind = "permanent";
    message = TRIAL_ACCESS_MESSAGE;
  } else if (status === 429) {
    kind = "transient";
    message = "Pinterest rate limit reached.";
  } else if (status === 401 && body?.code === 3) {
    // A token without the scope the call needs: 401 `{"code": 3, "message": "Your token does not have sufficient
    // permissions to perform this operation. Please ensure your token is authorized with the correct set of
    // scopes."}` (Pinterest's answer, github.com/pinterest/api-quickstart/issues/97; scopes:
    // developers.pinterest.com/docs/getting-started/set-up-authentication-and-authorization/). Refreshing keeps the
    // scopes, so the account needs a reconnect (docs/account-health.md), in Pinterest's words.
    kind = "permanent";
    needsReconnect = true;
    message = `Pinterest: ${sentence(platformMessage || "the token lacks a permission this call needs")}`;
  } else if (status === 401) {
    kind = "auth";
    message = "The Pinterest access token is invalid or expired.";
  } else if (status >= 500) {
    kind = "transient";
    message = platformMessage ? `Pinterest: ${sentence(platformMessage)}` : `Pinterest answered HTTP ${status}.`;
  } else {
    kind = "permanent";
    message = platformMessage ? `Pinterest: ${sentence(platformMessage)}` : `Pinterest answered HTTP ${status}.`;
  }
  return new PlatformError(kind, message, {
    status,
    retryAfterSeconds: kind === "transient" ? retryAfterSeconds(headers, nowMs) : undefined,
    needsReconnect,
  });
}

/** S3 presigned-POST failures come back as XML `<Error><Code>…</Code><Message>…</Message></Error>`. */
export function uploadError(status: number, xml: string): PlatformError {
  const code = /<Code>([^<]*)<\/Code>/.exec(xml)?.[1] ?? "";
  const text = /<Message>([^<]*)<\/Message>/.exec(xml)?.[1] ?? "";
  // 403 is usually an expired upload policy: registering the media again fixes it.
  const kind: PlatformErrorKind = status >= 500 || status === 429 || status === 403 ? "transient" : "permanent";
  const reason = text || code || `HTTP ${status}`;
  return new PlatformError(kind, `Pinterest's media storage refused the video upload: ${sentence(reason)}`, { status });
}

const BOUNDARY_PREFIX = "----pinterest-upload-";

export interface MultipartPlan {
  contentType: string;
  head: Uint8Array;
  tail: Uint8Array;
  /** Total body length: head + file + tail. */
  length: number;
}

/**
 * The multipart/form-data framing of an S3 presigned POST: every `upload_parameters` entry as a field, in
 * order, then `file` (S3 ignores fields after the file). The file bytes are streamed between head and tail.
 */
export function multipartPlan(
  fields: Record<string, string>,
  file: { filename: string; mimeType: string; size: number },
  boundarySeed: string,
): MultipartPlan {
  const boundary = BOUNDARY_PREFIX + boundarySeed.replace(/[^A-Za-z0-9]/g, "");
  const quote = (s: string) => s.replace(/["\r\n\\]/g, "_");
  let head = "";
  for (const [name, value] of Object.entries(fields)) {
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"\r\n\r\n${value}\r\n`;
  }
  head += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quote(file.filename)}"\r\nContent-Type: ${file.mimeType}\r\n\r\n`;
  const enc = new TextEncoder();
  const headBytes = enc.encode(head);
  const tailBytes = enc.encode(`\r\n--${boundary}--\r\n`);
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    head: headBytes,
    tail: tailBytes,
    length: headBytes.byteLength + file.size + tailBytes.byteLength,
  };
}

/** The analytics window: Pinterest serves the last 90 days; 89 keeps clear of UTC date edges. */
export function analyticsWindow(nowMs: number): { start_date: string; end_date: string } {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { start_date: day(nowMs - 89 * 86_400_000), end_date: day(nowMs) };
}

export function metricTypes(contentType: string): PinterestMetricName[] {
  const base: PinterestMetricName[] = ["IMPRESSION", "SAVE", "PIN_CLICK", "OUTBOUND_CLICK"];
  // Video metrics only exist for video Pins.
  return contentType === "pinterest_video_pin" ? [...base, "VIDEO_MRC_VIEW"] : base;
}

/**
 * decisions §11: Impressions, Saves, Pin clicks, Outbound clicks, Video views — the window's `summary_metrics`,
 * else the sum of the daily rows. A metric Pinterest leaves out reads as 0.
 */
export function metricsFromAnalytics(body: PinterestPinAnalytics | null): Metric[] {
  const all = body?.all;
  // The requested window's totals are `summary_metrics`; `lifetime_metrics` is not the Pin's lifetime total (it
  // comes back 0 for these metrics), so it is never read. Without a summary, the daily rows are summed.
  let totals = all?.summary_metrics;
  if (!totals) {
    totals = {};
    for (const day of all?.daily_metrics ?? []) {
      for (const [k, v] of Object.entries(day.metrics ?? {}))
        totals[k] = (totals[k] ?? 0) + (typeof v === "number" ? v : 0);
    }
  }
  const n = (k: PinterestMetricName) => {
    const v = totals?.[k];
    return typeof v === "number" && Number.isFinite(v) ? v : 0;
  };
  return [
    { label: "Impressions", value: n("IMPRESSION") },
    { label: "Saves", value: n("SAVE") },
    { label: "Pin clicks", value: n("PIN_CLICK") },
    { label: "Outbound clicks", value: n("OUTBOUND_CLICK") },
    { label: "Video views", value: n("VIDEO_MRC_VIEW") },
  ];
}
