import { fakeOrigin } from "../fake-fetch";
import {
  APP_USAGE_OK,
  expiredTokenResponse,
  type GraphErrorFields,
  graphErrorResponse,
  graphJson,
} from "./graph-responses";
import { LongLivedTokens } from "./long-lived-tokens";
import {
  PULL_LIMITS,
  type PullRefusal,
  pulledImageRefusal,
  pulledVideoRefusal,
  VIDEO_PULL_LIMITS,
  type VideoRefusal,
} from "./pulled-media";
import { TokenClock } from "./token-clock";

export { APP_USAGE_OK, expiredTokenResponse, type GraphErrorFields, graphErrorResponse, graphJson };

/**
 * A fake Meta Graph host (platforms.md "Meta common", §4, §5–6), answering like the real one:
 * - the `{"error":{message,type,code,error_subcode,error_user_title,error_user_msg,fbtrace_id}}` envelope, with
 *   expired tokens as HTTP 400 code 190 and throttles as 400/403 (never 429) plus usage headers;
 * - `X-App-Usage` on every answer, `X-Business-Use-Case-Usage` with `estimated_time_to_regain_access` on BUC throttles;
 * - Instagram containers IN_PROGRESS → FINISHED | ERROR (`status_code` + `status` "Error: … 2207026"), publish of an
 *   unfinished container refused with 9007/2207027;
 * - Facebook Page feed/photos/videos, reels (start → rupload with `file_url` → finish → status), stories;
 * - insights with the v22+ metric names only (deprecated `plays`/`impressions` are refused).
 * Media URLs are accepted blindly (Meta would pull them) as long as they are https.
 * One class serves `https://facebook.fake` (Pages + Instagram via Facebook Login) and `https://instagram.fake`
 * (Instagram Login); every request is recorded in `calls`.
 */

export interface RecordedCall {
  method: string;
  origin: string;
  path: string;
  query: Record<string, string>;
  /** Parsed form/JSON body, `{bytes: n}` for binary bodies, null when empty. */
  body: Record<string, unknown> | null;
  headers: Record<string, string>;
}

const RECORDED_HEADERS = [
  "authorization",
  "content-type",
  "file_url",
  "offset",
  "file_size",
  "linkedin-version",
  "x-restli-protocol-version",
];

export async function recordRequest(request: Request): Promise<RecordedCall> {
  const url = new URL(request.url);
  const headers: Record<string, string> = {};
  for (const name of RECORDED_HEADERS) {
    const v = request.headers.get(name);
    if (v !== null) headers[name] = v;
  }
  let body: Record<string, unknown> | null = null;
  if (request.method !== "GET" && request.method !== "HEAD") {
    const type = request.headers.get("content-type") ?? "";
    const buf = new Uint8Array(await request.arrayBuffer());
    if (buf.byteLength > 0) {
      const text = new TextDecoder().decode(buf);
      if (type.includes("application/json")) body = JSON.parse(text);
      else if (type.includes("application/x-www-form-urlencoded")) body = Object.fromEntries(new URLSearchParams(text));
      else body = { bytes: buf.byteLength };
    }
  }
  return {
    method: request.method,
    origin: url.origin,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    body,
    headers,
  };
}

/** The Graph insights envelope (Facebook, Instagram and Threads answer alike): one lifetime value per metric. */
export function graphInsights(id: string, names: string[], values: Record<string, unknown>): Response {
  return graphJson({
    data: names.map((name) => ({
      name,
      period: "lifetime",
      values: [{ value: values[name] ?? 0 }],
      title: name,
      description: `Lifetime ${name}`,
      id: `${id}/insights/${name}/lifetime`,
    })),
  });
}

/**
 * A permission taken back (the user removed the app's `pages_manage_posts`, or the Page role it came from), as Graph
 * answers a publish then: HTTP 403, OAuthException code 200 "(#200) … permission" — Graph API "Handling Errors"
 * (developers.facebook.com/docs/graph-api/guides/error-handling: 10 and 200–299 "Permission is either not granted
 * or has been removed").
 */
export function metaPermissionError(): Response {
  return graphErrorResponse(403, {
    message:
      "(#200) If posting to a page, requires both pages_read_engagement and pages_manage_posts as an admin with sufficient administrative permission",
    code: 200,
  });
}

const THROTTLE_MESSAGES: Record<number, string> = {
  4: "Application request limit reached",
  17: "User request limit reached",
  32: "Page request limit reached",
  613: "Calls to this api have exceeded the rate limit.",
};

/**
 * A throttle: app-level (code 4, `X-App-Usage` at 100 %) or business-use-case (80001 pages / 80002 Instagram,
 * `X-Business-Use-Case-Usage` with `estimated_time_to_regain_access` in minutes). Meta sends no Retry-After.
 */
export function metaThrottle(
  opts: {
    code?: 4 | 17 | 32 | 613 | 80001 | 80002;
    status?: 400 | 403;
    regainMinutes?: number;
    businessId?: string;
  } = {},
): Response {
  const code = opts.code ?? 80002;
  const status = opts.status ?? (code === 4 ? 403 : 400);
  if (code >= 80001) {
    const type = code === 80002 ? "instagram" : "pages";
    const usage = {
      [opts.businessId ?? "1234567890"]: [
        {
          type,
          call_count: 100,
          total_cputime: 27,
          total_time: 31,
          estimated_time_to_regain_access: opts.regainMinutes ?? 0,
        },
      ],
    };
    return graphErrorResponse(
      status,
      {
        message: `(#${code}) There have been too many calls to this ${type === "instagram" ? "Instagram account" : "Page"}. Wait a bit and try again. For more info, please refer to https://developers.facebook.com/docs/graph-api/overview/rate-limiting.`,
        code,
        is_transient: true,
      },
      { "x-business-use-case-usage": JSON.stringify(usage) },
    );
  }
  return graphErrorResponse(
    status,
    { message: `(#${code}) ${THROTTLE_MESSAGES[code]}`, code, is_transient: true },
    { "x-app-usage": JSON.stringify({ call_count: 100, total_cputime: 35, total_time: 40 }) },
  );
}

/** A Graph 5xx as Meta serves it (code 2, transient). */
export function metaServerError(status = 500): Response {
  return graphErrorResponse(status, {
    message: "An unexpected error has occurred. Please retry your request later.",
    code: 2,
    is_transient: true,
  });
}

/** Token from `Authorization: Bearer|OAuth …` or the `access_token` parameter (both accepted by Meta). */
export function tokenOf(request: Request, params: Record<string, unknown>): string | undefined {
  const auth = request.headers.get("authorization");
  const m = auth?.match(/^(?:Bearer|OAuth)\s+(.+)$/i);
  if (m) return m[1];
  return typeof params.access_token === "string" ? params.access_token : undefined;
}

export interface Override {
  method?: string;
  path: RegExp | string;
  respond: () => Response;
  remaining: number;
}

export function takeOverride(overrides: Override[], call: RecordedCall): Response | undefined {
  const o = overrides.find(
    (x) =>
      x.remaining > 0 &&
      (!x.method || x.method === call.method) &&
      (typeof x.path === "string" ? call.path === x.path : x.path.test(call.path)),
  );
  if (!o) return undefined;
  o.remaining--;
  return o.respond();
}

export function params(call: RecordedCall): Record<string, unknown> {
  return { ...call.query, ...(call.body ?? {}) };
}

const str = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : String(v));
/** Instagram's answers for an image it downloaded and refuses (reference: Instagram Graph API error codes). */
function instagramImageRefused(why: PullRefusal): Response {
  if (why === "size")
    return graphErrorResponse(400, {
      message: "The image size is too large.",
      code: 36000,
      error_subcode: 2207004,
      error_user_title: "Image size too large",
      error_user_msg: "The image is too large to download. It should be less than 8 MiB.",
    });
  if (why === "aspect")
    return graphErrorResponse(400, {
      message: "The aspect ratio is not supported.",
      code: 36003,
      error_subcode: 2207009,
      error_user_title: "Aspect ratio not supported",
      error_user_msg:
        "The submitted image with aspect ratio cannot be published. Please submit an image with a valid aspect ratio.",
    });
  return graphErrorResponse(400, {
    message: "(#9004) Only photo or video can be accepted as media type.",
    code: 9004,
    error_subcode: 2207005,
    error_user_title: "Unsupported format",
    error_user_msg: "The image format is not supported. Only JPEG images are supported.",
  });
}

/**
 * Facebook's answers for a Page video (`file_url`) it downloads and refuses (Video API error codes; 352 is Graph's
 * "format we don't support"). Meta documents no dedicated code for duration, so that is the generic upload error.
 */
function facebookVideoRefused(why: VideoRefusal): Response {
  if (why === "size")
    return graphErrorResponse(400, {
      message: "(#6000) The video you tried to upload is too large. Please try again with a smaller file.",
      code: 6000,
      error_subcode: 1363023,
    });
  if (why === "format")
    return graphErrorResponse(400, {
      message: "(#352) Sorry, the video file you selected is in a format that we don't support.",
      code: 352,
    });
  return graphErrorResponse(400, {
    message: "(#6000) There was a problem uploading your video file. Please try again with another file.",
    code: 6000,
    error_user_msg: why === "duration" ? "The video is longer than 240 minutes." : "The video could not be processed.",
  });
}

/** Processing-phase messages for a reel or video story outside the Reels Publishing API's specifications. */
const REEL_PROCESSING_ERROR: Record<VideoRefusal, string> = {
  format: "The video format is not supported.",
  size: "The video file is too large.",
  duration: "The video must be between 3 and 90 seconds long (60 seconds for a story).",
  aspect: "The video must have a 9:16 aspect ratio.",
  dimensions: "The video must be at least 540 x 960 pixels.",
};

const isHttps = (v: unknown): boolean => typeof v === "string" && v.startsWith("https://");

interface Container {
  kind: "container";
  id: string;
  owner: string;
  params: Record<string, unknown>;
  mediaType: "IMAGE" | "REELS" | "VIDEO" | "STORIES" | "CAROUSEL";
  pendingPolls: number;
  outcome: "FINISHED" | "ERROR";
  errorStatus?: string;
  status: "IN_PROGRESS" | "FINISHED" | "ERROR" | "PUBLISHED";
}

interface IgMedia {
  kind: "ig_media";
  id: string;
  containerId: string;
  shortcode: string;
  productType: "FEED" | "REELS" | "STORY";
  owner?: string;
  caption?: string;
  at?: number;
}

interface FbPhoto {
  kind: "photo";
  id: string;
  page: string;
  published: boolean;
  url: string;
}

interface FbVideo {
  kind: "video";
  id: string;
  page: string;
  flow: "reel" | "story" | "video";
  uploaded: boolean;
  finished: boolean;
  pendingPolls: number;
  /** Why processing the fetched file failed (a video the network refuses). */
  processingError?: string;
}

export interface PublishedItem {
  origin: string;
  kind: string;
  id: string;
  owner: string;
  params: Record<string, unknown>;
}

const IG_METRICS: Record<IgMedia["productType"], string[]> = {
  FEED: ["reach", "likes", "comments", "shares", "saved", "total_interactions", "views", "follows", "profile_visits"],
  REELS: [
    "reach",
    "likes",
    "comments",
    "shares",
    "saved",
    "total_interactions",
    "views",
    "ig_reels_avg_watch_time",
    "ig_reels_video_view_total_time",
  ],
  STORY: ["reach", "views", "replies", "navigation", "shares", "total_interactions", "follows", "profile_visits"],
};
/**
 * Page-post metrics Graph still serves (Pages API "Page Insights" reference; `post_impressions` and
 * `post_impressions_unique` are retired for every version and now answer an invalid-metric error).
 */
/** Video and reel metrics Graph stopped answering (the "impressions" family, replaced by views / media views). */
const RETIRED_VIDEO_METRICS = [
  "total_video_impressions",
  "total_video_impressions_unique",
  "total_video_impressions_organic",
  "total_video_impressions_paid",
  "total_video_impressions_viral",
  "post_impressions_unique",
];
const FB_METRICS = [
  "post_media_view",
  "post_total_media_view_unique",
  "post_clicks",
  "post_clicks_by_type",
  "post_reactions_by_type_total",
  "post_video_views",
  "post_video_avg_time_watched",
];

/** When each published item went live (kept aside so tests can compare the items whole). */
const liveAt = new WeakMap<PublishedItem, number>();

class StampedList extends Array<PublishedItem> {
  override push(...items: PublishedItem[]): number {
    for (const i of items) liveAt.set(i, Date.now());
    return super.push(...items);
  }
}

/** A comment made through the API (issue 20 first comments): under which object, by whom, when. */
export interface StoredComment {
  id: string;
  /** The post / media it is under. */
  on: string;
  message: string;
  /** The commenting Page or IG user. */
  fromId: string;
  username: string;
  at: number;
}

export class MetaGraphFake {
  readonly calls: RecordedCall[] = [];
  /** Comments made on this host, in order. */
  readonly comments: StoredComment[] = [];
  /** The IG username comments are made as (Instagram answers it in `username` / `from.username`). */
  igUsername = "tester";
  /** What went live on the network (feed posts, photos, videos, reels, stories, IG media). */
  readonly published: PublishedItem[] = new StampedList();
  readonly validTokens = new Set<string>(["access-token"]);
  readonly expiredTokens = new Set<string>();
  /** Polls answered IN_PROGRESS before a video container (or reel) finishes; images finish at once. */
  videoPolls = 2;
  /** The id `GET /me` answers. */
  meId = "1234567890";
  /** When set, the next containers end in ERROR with this `status` text. */
  processingError: string | undefined;
  /** When set, reels end with `video_status: "error"` and this processing-phase message. */
  reelError: string | undefined;
  private readonly objects = new Map<string, Container | IgMedia | FbPhoto | FbVideo>();
  private readonly insights = new Map<string, Record<string, number | Record<string, number>>>();
  private readonly overrides: Override[] = [];
  private lastFeedMessage = new Map<string, string>();
  private seq = 0;
  /** Instagram Login's 60-day tokens and their refresh rules. */
  readonly longLived = new LongLivedTokens("ig-refreshed", this.validTokens);
  /**
   * Facebook Login tokens ("Access Token Guide", "Long-Lived Access Tokens"): a long-lived *user* token lives about
   * 60 days — a test times one with `clock.issue` — while a *Page* token obtained with a long-lived user token has
   * no expiry and is never timed. Either kind, once expired, is answered HTTP 400 code 190.
   */
  readonly clock = new TokenClock();
  readonly uninstall: () => void;

  constructor(readonly origin: string) {
    this.uninstall = fakeOrigin(origin, (req) => this.handle(req));
  }

  /** The next `times` calls matching answer with `respond()` (throttles, 5xx, auth errors). */
  failNext(match: { method?: string; path: RegExp | string }, respond: () => Response, times = 1): void {
    this.overrides.push({ ...match, respond, remaining: times });
  }

  /** A published Facebook video or reel with these lifetime `video_insights`. */
  setVideoInsights(id: string, values: Record<string, number | Record<string, number>>, flow: "video" | "reel") {
    this.insights.set(id, values);
    this.objects.set(id, { kind: "video", id, page: "", flow, uploaded: true, finished: true, pendingPolls: 0 });
  }

  setInsights(
    id: string,
    values: Record<string, number | Record<string, number>>,
    productType?: IgMedia["productType"],
  ) {
    this.insights.set(id, values);
    if (productType && !this.objects.has(id)) {
      this.objects.set(id, { kind: "ig_media", id, containerId: "", shortcode: `SC${id}`, productType });
    }
  }

  /** Every call as `METHOD /path`. */
  summary(): string[] {
    return this.calls.map((c) => `${c.method} ${c.path}`);
  }

  private id(base: number): string {
    return String(base * 1_000_000 + ++this.seq);
  }

  private async handle(request: Request): Promise<Response> {
    const call = await recordRequest(request);
    this.calls.push(call);
    const override = takeOverride(this.overrides, call);
    if (override) return override;
    const p = params(call);

    if (call.path === "/refresh_access_token") return this.refresh(p);

    const token = tokenOf(request, p);
    if (!token) {
      return graphErrorResponse(400, { message: "An access token is required to request this resource.", code: 104 });
    }
    if (this.expiredTokens.has(token) || this.longLived.isExpired(token) || this.clock.expired(token)) {
      return expiredTokenResponse();
    }
    if (!this.validTokens.has(token)) {
      return graphErrorResponse(400, { message: "Invalid OAuth access token - Cannot parse access token", code: 190 });
    }

    const rupload = call.path.match(/^\/video-upload\/v\d+\.\d+\/(\w+)$/);
    if (rupload) return this.rupload(request, rupload[1]!);

    const m = call.path.match(/^\/v\d+\.\d+\/([^/]+)(?:\/([^/]+))?$/);
    if (!m) return graphErrorResponse(400, { message: "Unknown path components", code: 2500 });
    const [, id, edge] = m as unknown as [string, string, string | undefined];

    if (call.method === "GET") {
      if (edge === "insights") return this.readInsights(id, p);
      if (edge === "video_insights") return this.readVideoInsights(id);
      if (edge === "media") return this.listIgMedia(id, p);
      if (edge === "published_posts" || edge === "videos") return this.listPage(id, edge, p);
      if (edge === "comments") return this.listComments(id, p);
      return this.readObject(id, p);
    }
    if (call.method !== "POST") return graphErrorResponse(400, { message: "Unsupported method", code: 100 });
    switch (edge) {
      case "media":
        return this.createContainer(id, p);
      case "media_publish":
        return this.publishContainer(id, p);
      case "feed":
        return this.feed(id, p);
      case "photos":
        return this.photo(id, p);
      case "videos":
        return this.video(id, p);
      case "video_reels":
        return this.uploadFlow(id, p, "reel");
      case "video_stories":
        return this.uploadFlow(id, p, "story");
      case "photo_stories":
        return this.photoStory(id, p);
      case "comments":
        return this.comment(id, p);
      default:
        return unsupported(id);
    }
  }

  // --- Instagram ---------------------------------------------------------------------------------------------

  private async createContainer(owner: string, p: Record<string, unknown>): Promise<Response> {
    const caption = str(p.caption) ?? "";
    if ([...caption].length > 2200) {
      return graphErrorResponse(400, {
        message: "(#100) The caption is too long.",
        code: 100,
        error_subcode: 2207010,
        error_user_title: "Caption too long",
        error_user_msg: "The caption exceeds the 2,200 character limit.",
      });
    }
    const type = str(p.media_type) ?? "IMAGE";
    const mediaType = (
      ["REELS", "VIDEO", "STORIES", "CAROUSEL"].includes(type) ? type : "IMAGE"
    ) as Container["mediaType"];
    let isVideo = false;
    let videoError: string | undefined;
    if (mediaType === "CAROUSEL") {
      const children = (str(p.children) ?? "").split(",").filter(Boolean);
      if (children.length < 2 || children.length > 10) {
        return graphErrorResponse(400, {
          message: "(#100) The carousel must have between 2 and 10 children.",
          code: 100,
          error_subcode: 2207028,
          error_user_msg: "Carousels need between 2 and 10 items.",
        });
      }
      for (const c of children) {
        const child = this.objects.get(c);
        if (child?.kind !== "container" || child.params.is_carousel_item !== "true" || child.status !== "FINISHED") {
          return graphErrorResponse(400, { message: "(#100) The parameter children is invalid.", code: 100 });
        }
      }
    } else if (p.video_url !== undefined) {
      if (!isHttps(p.video_url)) return mediaFetchFailed(p.video_url);
      isVideo = true;
      if (mediaType === "IMAGE") {
        return graphErrorResponse(400, {
          message: "(#100) The parameter media_type is required for videos.",
          code: 100,
        });
      }
      // Instagram downloads the video while the container is IN_PROGRESS; one it refuses ends the container in
      // ERROR with subcode 2207026 ("unsupported video format": Instagram's answer for a video outside its specs).
      const refused = await pulledVideoRefusal(
        p.video_url,
        mediaType === "STORIES" ? VIDEO_PULL_LIMITS.instagramStory : VIDEO_PULL_LIMITS.instagramReel,
      );
      if (refused) videoError = "Error: Media upload has failed with error code 2207026";
    } else {
      if (!isHttps(p.image_url)) return mediaFetchFailed(p.image_url);
      if (!/\.jpe?g(\?|$)/i.test(String(p.image_url))) {
        return graphErrorResponse(400, {
          message: "(#9004) Only photo or video can be accepted as media type.",
          code: 9004,
          error_subcode: 2207005,
          error_user_title: "Unsupported format",
          error_user_msg: "The image format is not supported. Only JPEG images are supported.",
        });
      }
      // Instagram downloads the image and checks it (issue 16): the fitted variant must be what it gets.
      const refused = await pulledImageRefusal(
        p.image_url,
        mediaType === "STORIES" ? PULL_LIMITS.instagramStory : PULL_LIMITS.instagram,
      );
      if (refused) return instagramImageRefused(refused);
    }
    const id = this.id(17_895);
    const failing = videoError ?? this.processingError;
    this.objects.set(id, {
      kind: "container",
      id,
      owner,
      params: Object.fromEntries(Object.entries(p).map(([k, v]) => [k, String(v)])),
      mediaType,
      pendingPolls: isVideo ? this.videoPolls : 0,
      outcome: failing && mediaType !== "CAROUSEL" ? "ERROR" : "FINISHED",
      errorStatus: failing,
      status: "IN_PROGRESS",
    });
    return graphJson({ id });
  }

  private containerView(c: Container): Record<string, unknown> {
    if (c.status === "IN_PROGRESS") {
      if (c.pendingPolls > 0) c.pendingPolls--;
      else c.status = c.outcome;
    }
    return c.status === "ERROR"
      ? { status_code: "ERROR", status: c.errorStatus, id: c.id }
      : {
          status_code: c.status,
          status:
            c.status === "IN_PROGRESS"
              ? "In Progress"
              : "Finished: Media has been uploaded and it is ready to be published.",
          id: c.id,
        };
  }

  private publishContainer(owner: string, p: Record<string, unknown>): Response {
    const c = this.objects.get(str(p.creation_id) ?? "");
    if (c?.kind !== "container") {
      return graphErrorResponse(400, { message: "(#100) The parameter creation_id is required.", code: 100 });
    }
    if (c.status === "PUBLISHED") {
      return graphErrorResponse(400, {
        message: "(#100) The media has already been published.",
        code: 100,
        error_subcode: 2207006,
      });
    }
    if (c.status !== "FINISHED") {
      return graphErrorResponse(400, {
        message: "(#9007) The media is not ready for publishing, please wait for a moment",
        code: 9007,
        error_subcode: 2207027,
        error_user_title: "Media ID is not available",
        error_user_msg: "The media is not ready for publishing, please wait for a moment.",
      });
    }
    c.status = "PUBLISHED";
    const id = this.id(17_920);
    const productType = c.mediaType === "STORIES" ? "STORY" : c.mediaType === "REELS" ? "REELS" : "FEED";
    this.objects.set(id, {
      kind: "ig_media",
      id,
      containerId: c.id,
      shortcode: `C${id.slice(-8)}xYz`,
      productType,
      owner,
      caption: str(c.params.caption) ?? "",
      at: Date.now(),
    });
    this.published.push({ origin: this.origin, kind: "ig_media", id, owner, params: c.params });
    return graphJson({ id });
  }

  // --- Facebook Page -----------------------------------------------------------------------------------------

  private feed(page: string, p: Record<string, unknown>): Response {
    const message = str(p.message) ?? "";
    if ([...message].length > 63_206) {
      return graphErrorResponse(400, {
        message: "(#100) Param message must be at most 63206 characters long.",
        code: 100,
      });
    }
    let attached: unknown = p.attached_media;
    if (typeof attached === "string") attached = JSON.parse(attached);
    const photoIds = Array.isArray(attached)
      ? attached.map((a) => String((a as { media_fbid?: unknown }).media_fbid))
      : [];
    for (const pid of photoIds) {
      const photo = this.objects.get(pid);
      if (photo?.kind !== "photo" || photo.published) {
        return graphErrorResponse(400, {
          message: `(#100) Param attached_media[0] must be an unpublished photo id.`,
          code: 100,
        });
      }
    }
    if (!message && photoIds.length === 0 && !p.link) {
      return graphErrorResponse(400, { message: "(#100) Missing message or attachment.", code: 100 });
    }
    if (message && photoIds.length === 0 && this.lastFeedMessage.get(page) === message) {
      return graphErrorResponse(400, {
        message: "Duplicate status message",
        code: 506,
        error_subcode: 1455006,
        error_user_title: "Duplicate Status Update",
        error_user_msg:
          "This status update is identical to the last one you posted. Try posting something different, or delete your previous update.",
      });
    }
    this.lastFeedMessage.set(page, message);
    const postId = `${page}_${this.id(122)}`;
    for (const pid of photoIds) (this.objects.get(pid) as FbPhoto).published = true;
    this.published.push({ origin: this.origin, kind: "feed", id: postId, owner: page, params: p });
    const fields = str(p.fields)?.split(",") ?? [];
    const out: Record<string, string> = { id: postId };
    if (fields.includes("permalink_url")) {
      out.permalink_url = `https://www.facebook.com/permalink.php?story_fbid=${postId.split("_")[1]}&id=${page}`;
    }
    return graphJson(out);
  }

  private async photo(page: string, p: Record<string, unknown>): Promise<Response> {
    if (!isHttps(p.url)) return graphErrorResponse(400, { message: "(#324) Requires upload file", code: 324 });
    const refused = await pulledImageRefusal(p.url, PULL_LIMITS.facebook);
    if (refused === "size")
      return graphErrorResponse(400, { message: "(#100) Image size exceeds the 4MB limit.", code: 100 });
    if (refused) return graphErrorResponse(400, { message: "(#324) Missing or invalid image file", code: 324 });
    const published = !(p.published === false || p.published === "false");
    const id = this.id(122_100);
    this.objects.set(id, { kind: "photo", id, page, published, url: String(p.url) });
    if (!published) return graphJson({ id });
    const postId = `${page}_${this.id(122)}`;
    this.published.push({ origin: this.origin, kind: "photo", id: postId, owner: page, params: p });
    return graphJson({ id, post_id: postId });
  }

  private async video(page: string, p: Record<string, unknown>): Promise<Response> {
    if (!isHttps(p.file_url)) return graphErrorResponse(400, { message: "(#100) Invalid file_url", code: 100 });
    const refused = await pulledVideoRefusal(p.file_url, VIDEO_PULL_LIMITS.facebookVideo);
    if (refused) return facebookVideoRefused(refused);
    const id = this.id(122_200);
    this.objects.set(id, { kind: "video", id, page, flow: "video", uploaded: true, finished: true, pendingPolls: 0 });
    this.published.push({ origin: this.origin, kind: "video", id, owner: page, params: p });
    return graphJson({ id });
  }

  private uploadFlow(page: string, p: Record<string, unknown>, flow: "reel" | "story"): Response {
    const phase = str(p.upload_phase);
    if (phase === "start") {
      const id = this.id(122_300);
      this.objects.set(id, {
        kind: "video",
        id,
        page,
        flow,
        uploaded: false,
        finished: false,
        pendingPolls: this.videoPolls,
      });
      return graphJson({ video_id: id, upload_url: `${this.origin}/video-upload/v26.0/${id}` });
    }
    if (phase === "finish") {
      const v = this.objects.get(str(p.video_id) ?? "");
      if (v?.kind !== "video" || v.flow !== flow) {
        return graphErrorResponse(400, { message: "(#100) Invalid video_id", code: 100 });
      }
      if (!v.uploaded) {
        return graphErrorResponse(400, {
          message: "(#6000) There was a problem uploading your video file. Please try again.",
          code: 6000,
          error_subcode: 1363130,
          error_user_title: "Video Upload Is Missing",
          error_user_msg: "The video was not uploaded.",
        });
      }
      if (flow === "reel" && str(p.video_state) !== "PUBLISHED" && str(p.video_state) !== "DRAFT") {
        return graphErrorResponse(400, { message: "(#100) Invalid video_state", code: 100 });
      }
      if (flow === "story" && v.processingError) {
        return graphErrorResponse(400, {
          message: "(#6000) There was a problem uploading your video file. Please try again with another file.",
          code: 6000,
          error_user_title: "Video Upload Failed",
          error_user_msg: v.processingError,
        });
      }
      v.finished = true;
      if (flow === "story") {
        const postId = this.id(122_400);
        this.published.push({ origin: this.origin, kind: "video_story", id: postId, owner: page, params: p });
        return graphJson({ success: true, post_id: postId });
      }
      // Finish is accepted; a reel whose processing failed never goes live (its status says why).
      if (!v.processingError)
        this.published.push({ origin: this.origin, kind: "reel", id: v.id, owner: page, params: p });
      return graphJson({ success: true });
    }
    return graphErrorResponse(400, { message: "(#100) upload_phase must be one of start, finish", code: 100 });
  }

  private async rupload(request: Request, videoId: string): Promise<Response> {
    const v = this.objects.get(videoId);
    const auth = request.headers.get("authorization") ?? "";
    if (!auth.startsWith("OAuth ")) {
      return graphJson(
        { debug_info: { retriable: false, type: "AuthError", message: "Invalid OAuth access token." } },
        401,
      );
    }
    if (v?.kind !== "video") {
      return graphJson({ debug_info: { retriable: false, type: "NotFoundError", message: "Video not found." } }, 400);
    }
    const fileUrl = request.headers.get("file_url");
    if (!fileUrl && !request.headers.get("file_size")) {
      return graphJson(
        { debug_info: { retriable: false, type: "ProcessingFailedError", message: "Missing file_url or file_size." } },
        400,
      );
    }
    if (fileUrl && !fileUrl.startsWith("https://")) {
      return graphJson(
        {
          debug_info: {
            retriable: false,
            type: "ProcessingFailedError",
            message: "Failed to fetch the file from the url.",
          },
        },
        400,
      );
    }
    // Meta fetches the file behind `file_url` now and checks it while processing: a reel's status then shows the
    // processing-phase error, a story's finish step is refused.
    if (fileUrl && v.flow !== "video") {
      const refused = await pulledVideoRefusal(
        fileUrl,
        v.flow === "reel" ? VIDEO_PULL_LIMITS.facebookReel : VIDEO_PULL_LIMITS.facebookStory,
      );
      if (refused) v.processingError = REEL_PROCESSING_ERROR[refused];
    }
    v.uploaded = true;
    return graphJson({ success: true });
  }

  private photoStory(page: string, p: Record<string, unknown>): Response {
    const photo = this.objects.get(str(p.photo_id) ?? "");
    if (photo?.kind !== "photo" || photo.published) {
      return graphErrorResponse(400, { message: "(#100) Invalid photo_id", code: 100 });
    }
    photo.published = true;
    const postId = this.id(122_500);
    this.published.push({ origin: this.origin, kind: "photo_story", id: postId, owner: page, params: p });
    return graphJson({ success: true, post_id: postId });
  }

  // --- comments (issue 20) ----------------------------------------------------------------------------------

  /** What a comment can go under: a live Page post / photo / video / reel, or published IG media (not a story). */
  private commentTarget(id: string): { owner: string; kind: string } | null {
    const o = this.objects.get(id);
    if (o?.kind === "ig_media") return { owner: o.owner ?? this.meId, kind: o.productType };
    const item = this.published.find((i) => i.id === id);
    return item ? { owner: item.owner, kind: item.kind } : null;
  }

  /**
   * `POST /{object-id}/comments` with `message`: a Page comments as itself (`{post-id}_{n}` ids), an IG user as
   * itself. An unknown object is Graph's "does not exist" error; IG stories take no comments; an empty message
   * is refused.
   */
  private comment(id: string, p: Record<string, unknown>): Response {
    const target = this.commentTarget(id);
    if (!target) return unsupported(id);
    if (target.kind === "STORY" || target.kind === "story") {
      return graphErrorResponse(400, { message: "(#100) Comments are not supported on this media.", code: 100 });
    }
    const message = str(p.message) ?? "";
    if (!message.trim()) {
      return graphErrorResponse(400, { message: "(#100) The parameter message is required.", code: 100 });
    }
    const isIg = this.objects.get(id)?.kind === "ig_media";
    const commentId = isIg ? this.id(17_858) : `${id.split("_").pop()}_${this.id(900)}`;
    this.comments.push({
      id: commentId,
      on: id,
      message,
      fromId: target.owner,
      username: isIg ? this.igUsername : "",
      at: Date.now(),
    });
    return graphJson({ id: commentId });
  }

  /**
   * `GET /{object-id}/comments`: Facebook honours `order` (chronological by default), `since` and `limit`;
   * Instagram answers its comments with `text`, `username`, `from`, `timestamp`, newest first.
   */
  private listComments(id: string, p: Record<string, unknown>): Response {
    if (!this.commentTarget(id)) return unsupported(id);
    const isIg = this.objects.get(id)?.kind === "ig_media";
    const since = p.since === undefined ? 0 : Number(p.since) * 1000;
    const limit = Math.min(100, Number(p.limit ?? 25));
    const time = (at: number) => new Date(at).toISOString().replace(/\.\d{3}Z$/, "+0000");
    let list = this.comments.filter((c) => c.on === id && c.at >= since);
    if (isIg || p.order === "reverse_chronological") list = list.reverse();
    const data = list.slice(0, limit).map((c) =>
      isIg
        ? {
            id: c.id,
            text: c.message,
            timestamp: time(c.at),
            username: c.username,
            from: { id: c.fromId, username: c.username },
          }
        : { id: c.id, message: c.message, created_time: time(c.at), from: { id: c.fromId, name: "Test Page" } },
    );
    return graphJson({ data, paging: { cursors: { before: "b", after: "a" } } });
  }

  // --- reads -------------------------------------------------------------------------------------------------

  private readObject(id: string, p: Record<string, unknown>): Response {
    // `me` is the token's own node (a Page for a Page token, the IG user for Instagram Login).
    if (id === "me") return graphJson({ id: this.meId });
    const o = this.objects.get(id);
    const fields = str(p.fields)?.split(",") ?? [];
    if (o?.kind === "container") return graphJson(this.containerView(o));
    if (o?.kind === "ig_media") {
      const path = o.productType === "REELS" ? "reel" : "p";
      const out: Record<string, string> = { id };
      if (fields.includes("permalink")) out.permalink = `https://www.instagram.com/${path}/${o.shortcode}/`;
      if (fields.includes("shortcode")) out.shortcode = o.shortcode;
      return graphJson(out);
    }
    if (o?.kind === "video" && fields.includes("status")) {
      let videoStatus = "upload_complete";
      let processing: Record<string, unknown> = { status: "not_started" };
      let publishing: Record<string, unknown> = { status: "not_started" };
      if (o.finished) {
        const failed = o.processingError ?? this.reelError;
        if (failed) {
          videoStatus = "error";
          processing = { status: "error", error: { message: failed } };
        } else if (o.pendingPolls > 0) {
          o.pendingPolls--;
          videoStatus = "processing";
          processing = { status: "in_progress" };
        } else {
          videoStatus = "ready";
          processing = { status: "complete" };
          publishing = { status: "complete", publish_status: "published" };
        }
      }
      return graphJson({
        status: {
          video_status: videoStatus,
          uploading_phase: { status: o.uploaded ? "complete" : "not_started" },
          processing_phase: processing,
          publishing_phase: publishing,
        },
        id,
      });
    }
    return unsupported(id);
  }

  /** `GET /{ig-user-id}/media`: newest first, `since` (unix seconds), `limit`. */
  private listIgMedia(owner: string, p: Record<string, unknown>): Response {
    const since = p.since === undefined ? 0 : Number(p.since) * 1000;
    const limit = Math.min(100, Number(p.limit ?? 25));
    const data = [...this.objects.values()]
      .filter((o): o is IgMedia => o.kind === "ig_media" && (owner === "me" || o.owner === owner))
      .filter((o) => (o.at ?? 0) >= since)
      .reverse()
      .slice(0, limit)
      .map((o) => ({
        id: o.id,
        caption: o.caption,
        timestamp: new Date(o.at ?? 0).toISOString().replace(/\.\d{3}Z$/, "+0000"),
        permalink: `https://www.instagram.com/${o.productType === "REELS" ? "reel" : "p"}/${o.shortcode}/`,
        shortcode: o.shortcode,
      }));
    return graphJson({ data, paging: { cursors: { before: "b", after: "a" } } });
  }

  /**
   * `GET /{page-id}/published_posts` (feed posts and photo posts, `message`) and `GET /{page-id}/videos`
   * (`description`): newest first, `since` (unix seconds), `limit`.
   */
  private listPage(page: string, edge: "published_posts" | "videos", p: Record<string, unknown>): Response {
    const since = p.since === undefined ? 0 : Number(p.since) * 1000;
    const limit = Math.min(100, Number(p.limit ?? 25));
    const kinds = edge === "videos" ? ["video"] : ["feed", "photo"];
    const data = this.published
      .filter((i) => i.owner === page && kinds.includes(i.kind) && (liveAt.get(i) ?? 0) >= since)
      .reverse()
      .slice(0, limit)
      .map((i) => {
        const created = new Date(liveAt.get(i) ?? 0).toISOString().replace(/\.\d{3}Z$/, "+0000");
        return edge === "videos"
          ? { id: i.id, description: str(i.params.description) ?? "", created_time: created }
          : {
              id: i.id,
              message: str(i.params.message) ?? str(i.params.caption) ?? "",
              created_time: created,
              permalink_url: `https://www.facebook.com/permalink.php?story_fbid=${i.id.split("_")[1]}&id=${page}`,
            };
      });
    return graphJson({ data, paging: { cursors: { before: "b", after: "a" } } });
  }

  private readInsights(id: string, p: Record<string, unknown>): Response {
    const o = this.objects.get(id);
    if (o?.kind === "video") {
      // Videos and reels are Video nodes: their numbers live on /video_insights.
      return graphErrorResponse(400, {
        message: "(#100) Tried accessing nonexisting field (insights) on node type (Video)",
        code: 100,
      });
    }
    const values = this.insights.get(id);
    if (!values) return unsupported(id);
    const names = (str(p.metric) ?? "").split(",").filter(Boolean);
    if (o?.kind !== "ig_media") {
      // Page posts: a retired or unknown metric fails the whole request (what every Facebook metrics call did
      // while the adapter still asked for post_impressions).
      if (names.some((name) => !FB_METRICS.includes(name))) {
        return graphErrorResponse(400, { message: "(#100) The value must be a valid insights metric", code: 100 });
      }
      return graphInsights(id, names, values);
    }
    const allowed = IG_METRICS[o.productType];
    for (const [i, name] of names.entries()) {
      if (!allowed.includes(name)) {
        return graphErrorResponse(400, {
          message: `(#100) metric[${i}] must be one of the following values: ${allowed.join(", ")}`,
          code: 100,
        });
      }
    }
    return graphInsights(id, names, values);
  }

  /**
   * `/{video-id}/video_insights` without `metric`: every lifetime metric the video has — but never a retired
   * "impressions" name (Pages API "Deprecated Facebook Page Insights Metrics": `post_impressions_unique` →
   * `post_total_media_view_unique`; the Video API "Insights" guide lists `total_video_views*`, no impressions),
   * which Graph no longer answers even when a test seeds one.
   */
  private readVideoInsights(id: string): Response {
    const o = this.objects.get(id);
    const values = this.insights.get(id);
    if (o?.kind !== "video" || !values) return unsupported(id);
    return graphInsights(
      id,
      Object.keys(values).filter((name) => !RETIRED_VIDEO_METRICS.includes(name)),
      values,
    );
  }

  private refresh(p: Record<string, unknown>): Response {
    const token = str(p.access_token);
    if (str(p.grant_type) !== "ig_refresh_token") {
      return graphErrorResponse(400, { message: "Unsupported grant_type", code: 100 });
    }
    if (!token || this.expiredTokens.has(token) || !this.validTokens.has(token)) {
      return expiredTokenResponse();
    }
    return this.longLived.refresh(token);
  }
}

function unsupported(id: string): Response {
  return graphErrorResponse(400, {
    message: `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
    type: "GraphMethodException",
    code: 100,
    error_subcode: 33,
  });
}

function mediaFetchFailed(url: unknown): Response {
  return graphErrorResponse(400, {
    message: "(#9004) Only photo or video can be accepted as media type.",
    code: 9004,
    error_subcode: 2207052,
    error_user_title: "Media download has failed.",
    error_user_msg: `The media could not be fetched from this uri: ${String(url)}`,
  });
}

export function fakeFacebookGraph(): MetaGraphFake {
  return new MetaGraphFake("https://facebook.fake");
}

export function fakeInstagramGraph(): MetaGraphFake {
  return new MetaGraphFake("https://instagram.fake");
}
