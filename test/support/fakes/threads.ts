import { fakeOrigin } from "../fake-fetch";
import { LongLivedTokens } from "./long-lived-tokens";
import {
  expiredTokenResponse,
  graphErrorResponse,
  graphInsights,
  graphJson,
  type Override,
  type PublishedItem,
  params,
  type RecordedCall,
  recordRequest,
  takeOverride,
  tokenOf,
} from "./meta";
import {
  PULL_LIMITS,
  pulledImageRefusal,
  pulledVideoRefusal,
  VIDEO_PULL_LIMITS,
  type VideoRefusal,
} from "./pulled-media";

/**
 * A fake Threads Graph host (platforms.md §7) on `https://threads.fake`: containers (`POST /v1.0/{user}/threads`)
 * IN_PROGRESS → FINISHED | ERROR with `status` + `error_message`, `threads_publish` refusing unfinished containers,
 * the 500-character text limit (emoji counted as their UTF-8 bytes) and the 5-link rule, the 250 posts / 1,000 replies
 * per 24 hours quota (`threads_publishing_limit`), permalinks, insights and `th_refresh_token`. Errors use the
 * Graph envelope (expired token = 400 / 190). Every request is recorded in `calls`.
 */

interface ThreadsContainer {
  id: string;
  owner: string;
  params: Record<string, string>;
  pendingPolls: number;
  outcome: "FINISHED" | "ERROR";
  errorMessage?: string;
  status: "IN_PROGRESS" | "FINISHED" | "ERROR" | "PUBLISHED";
}

/** Container `error_message` for a video Threads refuses (Threads API troubleshooting: the list of values). */
const THREADS_VIDEO_ERROR: Record<VideoRefusal, string> = {
  format: "FAILED_PROCESSING_VIDEO",
  size: "FAILED_DOWNLOADING_VIDEO",
  duration: "INVALID_DURATION",
  aspect: "INVALID_ASPEC_RATIO", // sic: Meta's spelling
  dimensions: "FAILED_PROCESSING_VIDEO",
};

/** Threads' publishing quotas per profile per moving 24 hours (Threads API overview, "Posts"; replies: "Rate limits"). */
const THREADS_POST_QUOTA = 250;
const THREADS_REPLY_QUOTA = 1000;

const METRICS = ["views", "likes", "replies", "reposts", "quotes", "shares"];

/** Threads' own count: characters, each emoji as its UTF-8 bytes (independent of the code under test). */
function threadsTextLength(text: string): number {
  let n = 0;
  for (const segment of new Intl.Segmenter("en", { granularity: "grapheme" }).segment(text)) {
    const g = segment.segment;
    n += /\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(g)
      ? new TextEncoder().encode(g).byteLength
      : [...g].length;
  }
  return n;
}

export class ThreadsFake {
  readonly calls: RecordedCall[] = [];
  readonly published: PublishedItem[] = [];
  readonly validTokens = new Set<string>(["access-token"]);
  readonly expiredTokens = new Set<string>();
  /** Polls answered IN_PROGRESS before image/video containers finish (text containers finish at once). */
  mediaPolls = 1;
  /** When set, the next media containers end in ERROR with this `error_message` (e.g. FAILED_DOWNLOADING_VIDEO). */
  processingError: string | undefined;
  username = "tester";
  /**
   * Posts and replies the profile published in the last 24 hours outside this fake (a test's starting usage);
   * `threads_publishing_limit` adds those the fake published itself, and `threads_publish` refuses past the quota.
   */
  priorPosts = 0;
  priorReplies = 0;
  private readonly containers = new Map<string, ThreadsContainer>();
  private readonly media = new Map<
    string,
    { shortcode: string; owner: string; text: string; at: number; repliedTo: string | null; root: string }
  >();
  private readonly insights = new Map<string, Record<string, number>>();
  private readonly overrides: Override[] = [];
  private seq = 0;
  /** Threads' 60-day tokens and their refresh rules. */
  readonly longLived = new LongLivedTokens("th-refreshed", this.validTokens);
  readonly uninstall: () => void;

  constructor(readonly origin = "https://threads.fake") {
    this.uninstall = fakeOrigin(origin, (req) => this.handle(req));
  }

  failNext(match: { method?: string; path: RegExp | string }, respond: () => Response, times = 1): void {
    this.overrides.push({ ...match, respond, remaining: times });
  }

  setInsights(id: string, values: Record<string, number>): void {
    this.insights.set(id, values);
  }

  summary(): string[] {
    return this.calls.map((c) => `${c.method} ${c.path}`);
  }

  private id(): string {
    return String(18_050_000_000_000_000n + BigInt(++this.seq));
  }

  private async handle(request: Request): Promise<Response> {
    const call = await recordRequest(request);
    this.calls.push(call);
    const override = takeOverride(this.overrides, call);
    if (override) return override;
    const p = params(call);
    if (call.path === "/refresh_access_token") return this.refresh(p);

    const token = tokenOf(request, p);
    if (!token)
      return graphErrorResponse(400, { message: "An access token is required to request this resource.", code: 104 });
    if (this.expiredTokens.has(token) || this.longLived.isExpired(token)) return expiredTokenResponse();
    if (!this.validTokens.has(token)) {
      return graphErrorResponse(400, { message: "Invalid OAuth access token - Cannot parse access token", code: 190 });
    }

    const m = call.path.match(/^\/v1\.0\/([^/]+)(?:\/([^/]+))?$/);
    if (!m) return graphErrorResponse(400, { message: "Unknown path components", code: 2500 });
    const [, id, edge] = m as unknown as [string, string, string | undefined];
    if (call.method === "GET" && edge === "threads") return this.listThreads(id, p);
    if (call.method === "GET" && edge === "replies") return this.listReplies(id, p);
    if (call.method === "GET" && edge === "threads_publishing_limit") return this.publishingLimit(p);
    if (call.method === "GET") return edge === "insights" ? this.readInsights(id, p) : this.read(id, p);
    if (call.method === "POST" && edge === "threads") return this.create(id, p);
    if (call.method === "POST" && edge === "threads_publish") return this.publish(id, p);
    return notFound(id);
  }

  /** Published posts in order with the post each answers and its thread's root (tests assert reply chains). */
  replyChain(): { id: string; text: string; repliedTo: string | null; root: string }[] {
    return [...this.media.entries()].map(([id, m]) => ({ id, text: m.text, repliedTo: m.repliedTo, root: m.root }));
  }

  private async create(owner: string, p: Record<string, unknown>): Promise<Response> {
    const type = String(p.media_type ?? "");
    // A reply names a published post; one that does not exist (or was deleted) fails at container creation.
    if (p.reply_to_id !== undefined && !this.media.has(String(p.reply_to_id))) {
      return graphErrorResponse(400, {
        message: "Invalid parameter",
        type: "THApiException",
        code: 100,
        error_subcode: 4279024,
        error_user_title: "Reply target not found",
        error_user_msg: "The post you are replying to does not exist or was deleted.",
      });
    }
    const text = p.text === undefined ? "" : String(p.text);
    // "Text posts are limited to 500 characters. Emojis are counted as the number of UTF-8 bytes."
    if (threadsTextLength(text) > 500) {
      return graphErrorResponse(400, {
        message: "Param text must be at most 500 characters long.",
        type: "THApiException",
        code: 100,
        error_user_title: "Text too long",
        error_user_msg: "The text must be at most 500 characters.",
      });
    }
    // Since 2025-12-22 more than 5 unique links fail at container creation.
    if (new Set(text.match(/https?:\/\/\S+/g) ?? []).size > 5) {
      return graphErrorResponse(400, {
        message: "THREADS_API__LINK_LIMIT_EXCEEDED",
        type: "THApiException",
        code: 100,
        error_user_title: "Too many links",
        error_user_msg: "Posts can contain at most 5 links.",
      });
    }
    let pendingPolls = 0;
    let videoRefused: VideoRefusal | null = null;
    if (type === "TEXT") {
      if (!text)
        return graphErrorResponse(400, {
          message: "Param text is required for TEXT posts.",
          type: "THApiException",
          code: 100,
        });
    } else if (type === "IMAGE" || type === "VIDEO") {
      const url = type === "IMAGE" ? p.image_url : p.video_url;
      if (typeof url !== "string" || !url.startsWith("https://")) {
        return graphErrorResponse(400, {
          message: `Param ${type === "IMAGE" ? "image_url" : "video_url"} must be a valid URL.`,
          type: "THApiException",
          code: 100,
        });
      }
      if (type === "IMAGE") {
        // Threads downloads the image and checks it (issue 16).
        const refused = await pulledImageRefusal(url, PULL_LIMITS.threads);
        if (refused)
          return graphErrorResponse(400, {
            message:
              refused === "size"
                ? "The image exceeds the 8 MB size limit."
                : refused === "aspect"
                  ? "The image's aspect ratio is not supported (at most 10:1)."
                  : "The image format is not supported (JPEG or PNG).",
            type: "THApiException",
            code: 100,
          });
      }
      pendingPolls = this.mediaPolls;
      // Threads downloads the video and checks it; a refusal shows as the container's ERROR `error_message`.
      if (type === "VIDEO") videoRefused = await pulledVideoRefusal(url, VIDEO_PULL_LIMITS.threads);
    } else if (type === "CAROUSEL") {
      const children = String(p.children ?? "")
        .split(",")
        .filter(Boolean);
      if (children.length < 2 || children.length > 20) {
        return graphErrorResponse(400, {
          message: "A carousel must have between 2 and 20 children.",
          type: "THApiException",
          code: 100,
        });
      }
      for (const c of children) {
        const child = this.containers.get(c);
        if (child?.params.is_carousel_item !== "true" || child.status !== "FINISHED") {
          return graphErrorResponse(400, { message: "Param children is invalid.", type: "THApiException", code: 100 });
        }
      }
    } else {
      return graphErrorResponse(400, {
        message: "Param media_type must be one of TEXT, IMAGE, VIDEO, CAROUSEL.",
        type: "THApiException",
        code: 100,
      });
    }
    const id = this.id();
    const failing =
      (videoRefused && THREADS_VIDEO_ERROR[videoRefused]) ??
      (type === "IMAGE" || type === "VIDEO" ? this.processingError : undefined);
    this.containers.set(id, {
      id,
      owner,
      params: Object.fromEntries(Object.entries(p).map(([k, v]) => [k, String(v)])),
      pendingPolls,
      outcome: failing ? "ERROR" : "FINISHED",
      errorMessage: failing,
      status: pendingPolls === 0 && !failing ? "FINISHED" : "IN_PROGRESS",
    });
    return graphJson({ id });
  }

  /** Posts (`reply: false`) or replies published in the moving 24-hour window, the prior ones included. */
  private used(reply: boolean): number {
    const since = Date.now() - 86_400_000;
    const own = [...this.media.values()].filter((m) => m.at > since && Boolean(m.repliedTo) === reply).length;
    return own + (reply ? this.priorReplies : this.priorPosts);
  }

  /**
   * `GET /{user}/threads_publishing_limit?fields=…` (Threads API overview "Posts" and "Retrieve and Manage Replies"
   * → "Rate limits", developers.facebook.com/documentation/threads): `{data: [{quota_usage, config: {quota_total:
   * 250, quota_duration: 86400}, reply_quota_usage, reply_config: {quota_total: 1000, …}}]}`, only the fields asked.
   */
  private publishingLimit(p: Record<string, unknown>): Response {
    const fields = String(p.fields ?? "").split(",");
    const all: Record<string, unknown> = {
      quota_usage: this.used(false),
      config: { quota_total: THREADS_POST_QUOTA, quota_duration: 86_400 },
      reply_quota_usage: this.used(true),
      reply_config: { quota_total: THREADS_REPLY_QUOTA, quota_duration: 86_400 },
    };
    return graphJson({ data: [Object.fromEntries(Object.entries(all).filter(([k]) => fields.includes(k)))] });
  }

  private publish(owner: string, p: Record<string, unknown>): Response {
    const c = this.containers.get(String(p.creation_id ?? ""));
    // "This limit is enforced on the POST /{threads-user-id}/threads_publish endpoint" (overview, "Posts"). The
    // error's shape is not documented; modelled on Graph's rate-limit error (code 4).
    if (c?.status === "FINISHED") {
      const reply = c.params.reply_to_id !== undefined;
      if (this.used(reply) >= (reply ? THREADS_REPLY_QUOTA : THREADS_POST_QUOTA)) {
        return graphErrorResponse(400, {
          message: "(#4) Application request limit reached",
          type: "THApiException",
          code: 4,
          error_user_title: "Publishing limit reached",
          error_user_msg: `The profile reached its limit of ${reply ? "1,000 replies" : "250 posts"} in 24 hours.`,
        });
      }
    }
    if (c?.status !== "FINISHED") {
      return graphErrorResponse(400, {
        message: "The requested resource does not exist",
        type: "THApiException",
        code: 24,
        error_subcode: 4279009,
        error_user_title: "Media Not Found",
        error_user_msg: "The media is not ready or cannot be found.",
      });
    }
    c.status = "PUBLISHED";
    const id = this.id();
    const repliedTo = c.params.reply_to_id ?? null;
    const root = repliedTo ? (this.media.get(repliedTo)?.root ?? repliedTo) : id;
    this.media.set(id, {
      shortcode: `DA${id.slice(-6)}q`,
      owner,
      text: c.params.text ?? "",
      at: Date.now(),
      repliedTo,
      root,
    });
    this.published.push({ origin: this.origin, kind: "thread", id, owner, params: c.params });
    return graphJson({ id });
  }

  private read(id: string, p: Record<string, unknown>): Response {
    const fields = String(p.fields ?? "").split(",");
    const c = this.containers.get(id);
    if (c) {
      if (c.status === "IN_PROGRESS") {
        if (c.pendingPolls > 0) c.pendingPolls--;
        else c.status = c.outcome;
      }
      return graphJson(
        c.status === "ERROR" ? { status: "ERROR", error_message: c.errorMessage, id } : { status: c.status, id },
      );
    }
    const media = this.media.get(id);
    if (media) {
      const out: Record<string, string> = { id };
      if (fields.includes("permalink"))
        out.permalink = `https://www.threads.com/@${this.username}/post/${media.shortcode}`;
      if (fields.includes("shortcode")) out.shortcode = media.shortcode;
      return graphJson(out);
    }
    return notFound(id);
  }

  /**
   * `GET /{user-id}/replies`: the user's own replies newest first, each with `replied_to` and `root_post`; `since`
   * and `limit` as for threads. (`GET /{media-id}/replies` would list the replies under a post; not modelled.)
   */
  private listReplies(owner: string, p: Record<string, unknown>): Response {
    const since = p.since === undefined ? 0 : Number(p.since) * 1000;
    const limit = Math.min(100, Number(p.limit ?? 25));
    const data = [...this.media.entries()]
      .filter(([, m]) => m.repliedTo && (owner === "me" || m.owner === owner) && m.at >= since)
      .reverse()
      .slice(0, limit)
      .map(([id, m]) => ({
        id,
        text: m.text,
        timestamp: new Date(m.at).toISOString().replace(/\.\d{3}Z$/, "+0000"),
        is_reply: true,
        replied_to: { id: m.repliedTo },
        root_post: { id: m.root },
      }));
    return graphJson({ data, paging: { cursors: { before: "b", after: "a" } } });
  }

  /**
   * `GET /{user-id}/threads`: the user's threads (not their replies) newest first; `since` (unix seconds) and
   * `limit` (≤ 100).
   */
  private listThreads(owner: string, p: Record<string, unknown>): Response {
    const since = p.since === undefined ? 0 : Number(p.since) * 1000;
    const limit = Math.min(100, Number(p.limit ?? 25));
    const data = [...this.media.entries()]
      .filter(([, m]) => !m.repliedTo && (owner === "me" || m.owner === owner) && m.at >= since)
      .reverse()
      .slice(0, limit)
      .map(([id, m]) => ({
        id,
        text: m.text,
        timestamp: new Date(m.at).toISOString().replace(/\.\d{3}Z$/, "+0000"),
        permalink: `https://www.threads.com/@${this.username}/post/${m.shortcode}`,
        shortcode: m.shortcode,
      }));
    return graphJson({ data, paging: { cursors: { before: "b", after: "a" } } });
  }

  private readInsights(id: string, p: Record<string, unknown>): Response {
    const values = this.insights.get(id);
    if (!values) return notFound(id);
    const names = String(p.metric ?? "")
      .split(",")
      .filter(Boolean);
    const bad = names.find((n) => !METRICS.includes(n));
    if (bad) {
      return graphErrorResponse(400, {
        message: `Param metric must be one of ${METRICS.join(", ")}`,
        type: "THApiException",
        code: 100,
      });
    }
    return graphInsights(id, names, values);
  }

  private refresh(p: Record<string, unknown>): Response {
    if (p.grant_type !== "th_refresh_token") {
      return graphErrorResponse(400, { message: "Unsupported grant_type", type: "THApiException", code: 100 });
    }
    const token = typeof p.access_token === "string" ? p.access_token : "";
    if (!this.validTokens.has(token) || this.expiredTokens.has(token)) return expiredTokenResponse();
    return this.longLived.refresh(token);
  }
}

function notFound(id: string): Response {
  return graphErrorResponse(400, {
    message: `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    type: "GraphMethodException",
    code: 100,
    error_subcode: 33,
  });
}

export function fakeThreads(): ThreadsFake {
  return new ThreadsFake();
}
