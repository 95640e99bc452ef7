import { fakeOrigin } from "../fake-fetch";
import { PINTEREST_CONTINUOUS_REQUIRED } from "../oauth/fake-oauth";
import { formFields, json, pathOf, pickHeaders, type RecordedCall, Script } from "./fake-kit";
import { PULL_LIMITS, pulledImageRefusal } from "./pulled-media";
import { DAY_MS, TokenClock } from "./token-clock";

/**
 * A fake of Pinterest API v5 (platforms.md §10) on https://pinterest.fake:
 * - errors are `{code, message}` (401 `{code:2,"Authentication failed."}`, 404 board not found, 400 invalid
 *   parameters, 429 rate limited — no rate-limit headers, which the reference leaves unconfirmed);
 * - `POST /v5/pins` checks board, lengths (title 100, description 500, alt text 500, link 2 048) and media source
 *   (`image_url`, `multiple_image_urls` 2–5, `video_id` of a succeeded media) and answers 201 with the Pin;
 * - `POST /v5/media` registers a video and returns an S3-style `upload_url` on this origin plus
 *   `upload_parameters`; that URL takes the multipart form POST (fields + `file`) and answers 204, or S3 XML
 *   errors; `GET /v5/media/{id}` walks registered → processing → succeeded | failed;
 * - `GET /v5/pins/{id}/analytics` returns `{all:{daily_metrics, summary_metrics, lifetime_metrics}}` for the
 *   requested metric types within the 90-day window;
 * - `POST /v5/oauth/token` with Basic client auth refreshes or refuses. Access tokens live 30 days
 *   (`expires_in` 2592000). Refresh tokens are continuous ("rolling"): 60 days (`refresh_token_expires_in`
 *   5184000, plus `refresh_token_expires_at`), and every refresh answers a new one with a fresh 60 days.
 *   "Pinterest no longer supports the legacy refresh token (365-day expiration, hard limit)"; apps created before
 *   September 25, 2025 must send `continuous_refresh=true`, later ones get continuous refresh by default
 *   (developers.pinterest.com/docs/getting-started/scopes/ — the authentication page, "Pinterest no longer supports
 *   the legacy refresh token", checked 2026-12-07). The fake is an app created before that date unless told
 *   otherwise, and refuses a refresh without the parameter with a 400 `{code:1}` (the docs say "must" and quote no
 *   error: the wording of that 400 is the fake's). An expired access token gets the 401 of an invalid one, an
 *   expired refresh token the 400 of an unknown one.
 */

export { PINTEREST_CONTINUOUS_REQUIRED };

export const PINTEREST_ORIGIN = "https://pinterest.fake";
export const PINTEREST_UPLOAD_PATH = "/media-upload/";
const CLIENT_BASIC = `Basic ${btoa("pin-client:pin-secret")}`;

interface Media {
  id: string;
  parameters: Record<string, string>;
  uploaded: boolean;
  fileSize: number;
  fileType: string;
  fileName: string;
  fileBytes: Uint8Array;
  statuses: string[];
}

export interface PinterestFakeOptions {
  accessTokens?: string[];
  refreshTokens?: string[];
  boards?: string[];
  /** Statuses of a media after its upload, one per status read (the last repeats). */
  mediaStatuses?: string[];
  /** A Pin's totals over any requested window (split 2:1 across the first and last daily rows). */
  windowMetrics?: Record<string, number>;
  /**
   * The app was created on or after 2025-09-25: continuous refresh is its default, so a refresh without
   * `continuous_refresh=true` is not refused (developers.pinterest.com/docs/getting-started/scopes/).
   */
  createdAfterContinuousCutoff?: boolean;
  /**
   * The app's access tier on this (production) host. `trial`: every `POST /v5/pins` answers 403 code 29, as
   * api.pinterest.com does for apps in Trial access (developers.pinterest.com/docs/key-concepts/access-tiers/ — Trial
   * apps create Pins through the API Sandbox, developers.pinterest.com/docs/developer-tools/sandbox/).
   */
  access?: "trial" | "standard";
  /**
   * The token lacks `pins:write` (the member connected before it was asked, or took it back): `POST /v5/pins` and
   * `POST /v5/media` answer 401 code 3 (Pinterest's answer, github.com/pinterest/api-quickstart/issues/97).
   */
  withoutWriteScope?: boolean;
}

export const PINTEREST_SCOPE_MESSAGE =
  "Your token does not have sufficient permissions to perform this operation. Please ensure your token is authorized with the correct set of scopes.";

export function pinterestErrorResponse(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return json({ code, message }, status, headers);
}

export function s3ErrorResponse(status: number, code: string, message: string): Response {
  return new Response(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>FAKEREQ</RequestId><HostId>fakehost</HostId></Error>`,
    { status, headers: { "content-type": "application/xml" } },
  );
}

export const PINTEREST_ACCESS_TOKEN_MS = 30 * DAY_MS;
/** Continuous (rolling) refresh tokens: 60 days, renewed by every refresh. */
export const PINTEREST_REFRESH_TOKEN_MS = 60 * DAY_MS;

export function fakePinterest(options: PinterestFakeOptions = {}) {
  const opts = {
    accessTokens: ["access-token"],
    refreshTokens: ["refresh-token"],
    boards: ["549755885175"],
    mediaStatuses: ["processing", "succeeded"],
    windowMetrics: { IMPRESSION: 5120, SAVE: 87, PIN_CLICK: 230, OUTBOUND_CLICK: 41, VIDEO_MRC_VIEW: 960 },
    createdAfterContinuousCutoff: false,
    ...options,
  };
  const calls: RecordedCall[] = [];
  const script = new Script();
  const media = new Map<string, Media>();
  const pins = new Map<string, Record<string, unknown>>();
  const accessTokens = new Set(opts.accessTokens);
  const refreshTokens = new Set(opts.refreshTokens);
  const clock = new TokenClock();
  let seq = 0;

  const invalid = (message: string) => pinterestErrorResponse(400, 1, message);

  function authorized(request: Request): boolean {
    const auth = request.headers.get("authorization") ?? "";
    return auth.startsWith("Bearer ") && accessTokens.has(auth.slice(7)) && !clock.expired(auth.slice(7));
  }

  async function createPin(body: any): Promise<Response> {
    if (!body || typeof body.board_id !== "string") return invalid("Invalid parameters. board_id is required.");
    if (!opts.boards.includes(body.board_id)) return pinterestErrorResponse(404, 40, "Board not found.");
    const limits: [string, number][] = [
      ["title", 100],
      ["description", 500],
      ["alt_text", 500],
      ["link", 2048],
    ];
    for (const [field, max] of limits) {
      if (typeof body[field] === "string" && [...body[field]].length > max) {
        return invalid(`Invalid parameters. '${field}' must be at most ${max} characters.`);
      }
    }
    const src = body.media_source ?? {};
    let mediaType: string;
    const isMediaUrl = (u: unknown) => typeof u === "string" && u.startsWith("https://media.test/");
    // Pinterest downloads the images and checks them (issue 16): 20 MB, JPEG/PNG/WebP/GIF.
    const tooBig = async (urls: unknown[]) => {
      for (const u of urls) if (await pulledImageRefusal(u, PULL_LIMITS.pinterest)) return true;
      return false;
    };
    if (src.source_type === "image_url") {
      if (!isMediaUrl(src.url)) return invalid("Sorry, we could not fetch the image.");
      if (await tooBig([src.url])) return invalid("Sorry, this image is too large or not a supported type.");
      mediaType = "image";
    } else if (src.source_type === "multiple_image_urls") {
      if (!Array.isArray(src.items) || src.items.length < 2 || src.items.length > 5) {
        return invalid("Invalid parameters. Carousel Pins need 2 to 5 images.");
      }
      if (!src.items.every((i: any) => isMediaUrl(i?.url))) return invalid("Sorry, we could not fetch the image.");
      if (await tooBig(src.items.map((i: any) => i.url)))
        return invalid("Sorry, this image is too large or not a supported type.");
      mediaType = "multiple_images";
    } else if (src.source_type === "video_id") {
      const m = media.get(src.media_id);
      if (m?.statuses[0] !== "succeeded") return invalid("Invalid parameters. The media upload is not ready.");
      if (src.cover_image_url === undefined && src.cover_image_key_frame_time === undefined) {
        return invalid("Invalid parameters. A cover image is required for video Pins.");
      }
      mediaType = "video";
    } else {
      return invalid("Invalid parameters. Unsupported media_source.");
    }
    seq++;
    const id = String(1130253812253000000n + BigInt(seq));
    const pin = {
      id,
      // Pinterest's format: UTC without a zone designator.
      created_at: new Date().toISOString().slice(0, 19),
      link: body.link ?? null,
      title: body.title ?? null,
      description: body.description ?? null,
      dominant_color: "#6E7874",
      alt_text: body.alt_text ?? null,
      creative_type: mediaType === "video" ? "VIDEO" : mediaType === "multiple_images" ? "CAROUSEL" : "REGULAR",
      board_id: body.board_id,
      board_section_id: body.board_section_id ?? null,
      board_owner: { username: "tester" },
      is_owner: true,
      media: { media_type: mediaType },
      parent_pin_id: null,
      is_standard: true,
      has_been_promoted: false,
      note: null,
      pin_metrics: null,
    };
    pins.set(id, pin);
    return json(pin, 201);
  }

  function analytics(pinId: string, url: URL): Response {
    if (!pins.has(pinId)) return pinterestErrorResponse(404, 50, "Pin not found.");
    const start = url.searchParams.get("start_date") ?? "";
    const end = url.searchParams.get("end_date") ?? "";
    const types = (url.searchParams.get("metric_types") ?? "").split(",").filter(Boolean);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(start) || !/^\d{4}-\d{2}-\d{2}$/.test(end) || types.length === 0) {
      return invalid("Invalid parameters. start_date, end_date and metric_types are required.");
    }
    const days = (Date.parse(end) - Date.parse(start)) / 86_400_000;
    if (days < 0 || days > 90) return invalid("Invalid parameters. The date range must be within 90 days.");
    const totals = opts.windowMetrics as Record<string, number>;
    const pick = (share: (total: number) => number) => {
      const out: Record<string, number> = {};
      for (const t of types) if (t in totals) out[t] = share(totals[t]!);
      return out;
    };
    // The window's totals are summary_metrics (the sum of the daily rows). lifetime_metrics comes back with zeros
    // for these metrics, as integrators report of the real API: reading it first reported 0 for everything.
    const first = (n: number) => Math.round((n * 2) / 3);
    return json({
      all: {
        daily_metrics: [
          { date: start, data_status: "READY", metrics: pick(first) },
          { date: end, data_status: "PROCESSING", metrics: pick((n) => n - first(n)) },
        ],
        summary_metrics: pick((n) => n),
        lifetime_metrics: pick(() => 0),
      },
    });
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const call: RecordedCall = { method: request.method, path: pathOf(request), headers: pickHeaders(request) };
    calls.push(call);
    const type = request.headers.get("content-type") ?? "";
    let file: File | null = null;
    if (type.includes("application/json")) {
      call.json = JSON.parse(await request.text());
    } else if (type.includes("application/x-www-form-urlencoded") || type.includes("multipart/form-data")) {
      const form = await request.formData();
      call.form = formFields(form);
      const f = form.get("file");
      if (f && typeof f !== "string") {
        file = f;
        call.bytes = f.size;
      }
    }
    const scripted = script.take(request);
    if (scripted) return scripted(request);

    if (request.method === "POST" && url.pathname === "/v5/oauth/token") {
      if (request.headers.get("authorization") !== CLIENT_BASIC)
        return pinterestErrorResponse(401, 2, "Authentication failed.");
      const form = call.form ?? {};
      const sent = form.refresh_token ?? "";
      if (form.grant_type !== "refresh_token" || !refreshTokens.has(sent) || clock.expired(sent)) {
        return pinterestErrorResponse(400, 1, "Invalid refresh token.");
      }
      if (form.continuous_refresh !== "true" && !opts.createdAfterContinuousCutoff) {
        return pinterestErrorResponse(400, 1, PINTEREST_CONTINUOUS_REQUIRED);
      }
      seq++;
      const access = `pina_fake_${seq}`;
      accessTokens.add(access);
      clock.issue(access, PINTEREST_ACCESS_TOKEN_MS);
      // The answer of a continuous refresh (v5 OpenAPI, `OauthAccessTokenResponseEverlastingRefresh`): a new
      // refresh token with `refresh_token_expires_in` and `refresh_token_expires_at` (epoch seconds).
      const refresh = `pinr_fake_${seq}`;
      refreshTokens.add(refresh);
      clock.issue(refresh, PINTEREST_REFRESH_TOKEN_MS);
      const out: Record<string, unknown> = {
        access_token: access,
        token_type: "bearer",
        expires_in: PINTEREST_ACCESS_TOKEN_MS / 1000,
        scope: "boards:read boards:write pins:read pins:write user_accounts:read",
        refresh_token: refresh,
        refresh_token_expires_in: PINTEREST_REFRESH_TOKEN_MS / 1000,
        refresh_token_expires_at: Math.floor((Date.now() + PINTEREST_REFRESH_TOKEN_MS) / 1000),
        response_type: "refresh_token",
      };
      return json(out);
    }

    if (request.method === "POST" && url.pathname === PINTEREST_UPLOAD_PATH) {
      const fields = call.form ?? {};
      const m = media.get(fields["x-amz-meta-media-id"] ?? "");
      if (!m) return s3ErrorResponse(403, "AccessDenied", "Invalid according to Policy: Policy Condition failed");
      for (const [k, v] of Object.entries(m.parameters)) {
        if (fields[k] !== v) return s3ErrorResponse(403, "AccessDenied", `Invalid according to Policy: ${k}`);
      }
      if (!file || file.size === 0)
        return s3ErrorResponse(400, "InvalidArgument", "POST requires exactly one file upload per request.");
      m.uploaded = true;
      m.fileSize = file.size;
      m.fileType = file.type;
      m.fileName = file.name;
      m.fileBytes = new Uint8Array(await file.arrayBuffer());
      return new Response(null, { status: 204 });
    }

    if (!authorized(request)) return pinterestErrorResponse(401, 2, "Authentication failed.");

    if (
      request.method === "POST" &&
      (url.pathname === "/v5/pins" || url.pathname === "/v5/media") &&
      opts.withoutWriteScope
    ) {
      return pinterestErrorResponse(401, 3, PINTEREST_SCOPE_MESSAGE);
    }
    if (request.method === "POST" && url.pathname === "/v5/pins" && opts.access === "trial") {
      return pinterestErrorResponse(
        403,
        29,
        "Apps with Trial access may not create Pins in production https://api.pinterest.com - use API Sandbox https://api-sandbox.pinterest.com instead.",
      );
    }
    if (request.method === "POST" && url.pathname === "/v5/pins") return createPin(call.json);

    // GET /v5/boards/{board_id}/pins: newest first, page_size 1–250 (default 25), bookmark paging.
    const boardPins = /^\/v5\/boards\/([^/]+)\/pins$/.exec(url.pathname);
    if (request.method === "GET" && boardPins) {
      if (!opts.boards.includes(boardPins[1]!)) return pinterestErrorResponse(404, 40, "Board not found.");
      const size = Number(url.searchParams.get("page_size") ?? 25);
      if (!Number.isInteger(size) || size < 1 || size > 250) {
        return pinterestErrorResponse(400, 1, "page_size must be between 1 and 250.");
      }
      const items = [...pins.values()].filter((p) => p.board_id === boardPins[1]).reverse();
      return json({ items: items.slice(0, size), bookmark: items.length > size ? "bm1" : null });
    }

    if (request.method === "POST" && url.pathname === "/v5/media") {
      if ((call.json as any)?.media_type !== "video") return invalid("Invalid parameters. media_type must be video.");
      seq++;
      const id = String(5000000000000000000n + BigInt(seq));
      const parameters = {
        "x-amz-date": "20261123T120000Z",
        "x-amz-signature": `sig${seq}`,
        "x-amz-security-token": `tok${seq}`,
        "x-amz-algorithm": "AWS4-HMAC-SHA256",
        key: `uploads/${id}.mp4`,
        policy: `policy${seq}`,
        "x-amz-credential": "AKIAFAKE/20261123/us-east-1/s3/aws4_request",
        "Content-Type": "multipart/form-data",
        "x-amz-meta-media-id": id,
      };
      media.set(id, {
        id,
        parameters,
        uploaded: false,
        fileSize: 0,
        fileType: "",
        fileName: "",
        fileBytes: new Uint8Array(0),
        statuses: [...opts.mediaStatuses],
      });
      return json(
        {
          media_id: id,
          media_type: "video",
          upload_url: `${PINTEREST_ORIGIN}${PINTEREST_UPLOAD_PATH}`,
          upload_parameters: parameters,
        },
        201,
      );
    }

    const mediaMatch = /^\/v5\/media\/([^/]+)$/.exec(url.pathname);
    if (request.method === "GET" && mediaMatch) {
      const m = media.get(decodeURIComponent(mediaMatch[1]!));
      if (!m) return pinterestErrorResponse(404, 4, "Media not found.");
      const status = !m.uploaded ? "registered" : m.statuses.length > 1 ? m.statuses.shift()! : m.statuses[0]!;
      return json({ media_id: m.id, media_type: "video", status });
    }

    const analyticsMatch = /^\/v5\/pins\/([^/]+)\/analytics$/.exec(url.pathname);
    if (request.method === "GET" && analyticsMatch) return analytics(decodeURIComponent(analyticsMatch[1]!), url);

    return pinterestErrorResponse(404, 404, `No such endpoint ${request.method} ${url.pathname}.`);
  }

  const stop = fakeOrigin(PINTEREST_ORIGIN, handle);
  return {
    calls,
    script,
    media,
    pins,
    /** Token lifetimes (a test gives the seed tokens one with `clock.issue`). */
    clock,
    accessTokens,
    refreshTokens,
    /** Registers an existing Pin (for metrics tests). */
    addPin(id: string): void {
      pins.set(id, { id });
    },
    stop,
  };
}

export type PinterestFake = ReturnType<typeof fakePinterest>;
