import { fakeOrigin } from "../fake-fetch";
import { json, ScriptedFake } from "./scripted";
import { HOUR_MS, TokenClock } from "./token-clock";

/**
 * The X API v2 as the adapter meets it (platforms.md §3): problem-JSON errors, `x-rate-limit-*` headers on every
 * response with the reset in epoch seconds and no Retry-After on 429, simple image upload, chunked
 * initialize/append/finalize with `processing_info` states polled through `command=STATUS` (the legacy
 * multipart `command=INIT|APPEND|FINALIZE` form is accepted too), 403 for duplicate content, OAuth2 refresh with
 * rotating refresh tokens.
 */
export const X_ORIGIN = "https://x.fake";

interface StoredMedia {
  id: string;
  category: string;
  mediaType: string;
  totalBytes: number;
  received: number;
  /** The bytes received, in order (one simple upload, or each APPEND segment). */
  bytes: Uint8Array[];
  segments: number;
  finalized: boolean;
  pollsLeft: number;
  /** Issue 29: set by `POST /2/media/metadata`. */
  altText?: string;
}

interface StoredTweet {
  id: string;
  text: string;
  media_ids: string[];
  /** The post this one replies to (issue 20 threads and first comments), or null. */
  in_reply_to: string | null;
  /** The thread's first post (X's conversation_id). */
  conversation_id: string;
  created_at: string;
  public_metrics: Record<string, number>;
}

const problem = (status: number, title: string, detail: string, type = "about:blank") => ({
  title,
  detail,
  type,
  status,
});

/** X's answer to a read on an access tier without read access (Free): 403 "client-not-enrolled". */
export const CLIENT_NOT_ENROLLED = {
  client_id: "30000001",
  detail:
    "When authenticating requests to the Twitter API v2 endpoints, you must use keys and tokens from a Twitter developer App that is attached to a Project. You can create a project via the developer portal.",
  registration_url: "https://developer.twitter.com/en/docs/projects/overview",
  title: "Client Forbidden",
  required_enrollment: "Appropriate Level of API Access",
  reason: "client-not-enrolled",
  type: "https://api.twitter.com/2/problems/client-forbidden",
};

/**
 * X's answer to POST /2/tweets with a token granted while the app could only read (its permissions later set to
 * "Read and write"; the member must authorize again): 403 problem `oauth1-permissions`, as X sends it (quoted by
 * integrators; docs.x.com/x-api/fundamentals/response-codes-and-errors lists the problem-type format).
 */
export const OAUTH1_PERMISSIONS = {
  title: "Forbidden",
  status: 403,
  detail: "Your client app is not configured with the appropriate oauth1 app permissions for this endpoint.",
  type: "https://api.twitter.com/2/problems/oauth1-permissions",
};

export class FakeX extends ScriptedFake {
  readonly accessTokens = new Set(["x-access"]);
  readonly refreshTokens = new Set(["x-refresh"]);
  /**
   * Access tokens live 2 hours (docs.x.com OAuth 2.0 Authorization Code Flow with PKCE); an expired one is answered
   * 401 like an unknown one. Refresh tokens rotate: the one sent is spent (the set above).
   */
  readonly clock = new TokenClock();
  static readonly ACCESS_TOKEN_MS = 2 * HOUR_MS;
  readonly media = new Map<string, StoredMedia>();
  readonly tweets = new Map<string, StoredTweet>();
  userId = "1234567890";
  /** STATUS polls answering in_progress before succeeded/failed (video and GIF). */
  processingPolls = 1;
  processingFailure: string | null = null;
  /** False for access tiers that may post but not read (timeline and post lookup answer 403 client-not-enrolled). */
  readAccess = true;
  /** False: the token was granted while the app could only read — POST /2/tweets answers 403 oauth1-permissions. */
  writeAccess = true;
  timelineReads = 0;
  postsRead = 0;
  private nextId = 1800000000000000000n;

  install(): () => void {
    return fakeOrigin(X_ORIGIN, (req) => this.handle(req));
  }

  private rateHeaders(remaining = 99): Record<string, string> {
    return {
      "x-rate-limit-limit": "100",
      "x-rate-limit-remaining": String(remaining),
      "x-rate-limit-reset": String(Math.floor(Date.now() / 1000) + 900),
    };
  }

  private respond(status: number, body: unknown) {
    return json(status, body, this.rateHeaders());
  }

  /** 429 as X sends it: no Retry-After; `x-rate-limit-reset` is epoch seconds. */
  rateLimited(resetInSeconds: number) {
    return () =>
      json(429, problem(429, "Too Many Requests", "Too Many Requests"), {
        "x-rate-limit-limit": "100",
        "x-rate-limit-remaining": "0",
        "x-rate-limit-reset": String(Math.floor(Date.now() / 1000) + resetInSeconds),
      });
  }

  /**
   * A pay-per-use developer account with no credits left: every call answers 402 with X's problem type
   * `https://api.x.com/2/problems/credits-depleted` (docs.x.com/x-api/fundamentals/response-codes-and-errors; the body
   * exactly as X sends it, e.g. koala73/worldmonitor#7156).
   */
  creditsDepleted() {
    return () =>
      json(
        402,
        {
          detail: "credits depleted",
          status: 402,
          title: "Payment Required",
          type: "https://api.x.com/2/problems/credits-depleted",
        },
        this.rateHeaders(),
      );
  }

  /**
   * A spent usage cap: 429 `UsageCapExceeded` with `…/problems/usage-capped`, while the rate-limit headers still show
   * the 15-minute window nearly unused (docs.x.com/x-api/fundamentals/post-cap; body as reported in
   * xdevplatform/xdk#25). X's OpenAPI (`UsageCapExceededProblem`) gives `period` "Daily" | "Monthly" and `scope`
   * "Account" | "Product". `resetInSeconds` adds the 24-hour reset header of docs.x.com/x-api/fundamentals/rate-limits.
   */
  usageCapped(
    period: "Monthly" | "Daily" = "Monthly",
    scope: "Product" | "Account" = "Product",
    resetInSeconds?: number,
  ) {
    return () =>
      json(
        429,
        {
          account_id: "1500000000000000000",
          product_name: "standard-basic",
          title: "UsageCapExceeded",
          period,
          scope,
          detail: `Usage cap exceeded: ${period} ${scope.toLowerCase()} cap`,
          type: "https://api.twitter.com/2/problems/usage-capped",
        },
        {
          ...this.rateHeaders(),
          ...(resetInSeconds === undefined
            ? {}
            : { "x-app-limit-24hour-reset": String(Math.floor(Date.now() / 1000) + resetInSeconds) }),
        },
      );
  }

  /**
   * The user's 24-hour post limit spent (docs.x.com/x-api/fundamentals/rate-limits: `x-user-limit-24hour-limit`,
   * `-remaining`, `-reset` in epoch seconds) while the 15-minute window is not.
   */
  dailyLimitSpent(resetInSeconds: number) {
    return () =>
      json(429, problem(429, "Too Many Requests", "Too Many Requests"), {
        ...this.rateHeaders(),
        "x-user-limit-24hour-limit": "17",
        "x-user-limit-24hour-remaining": "0",
        "x-user-limit-24hour-reset": String(Math.floor(Date.now() / 1000) + resetInSeconds),
      });
  }

  unavailable(status = 503) {
    return () => json(status, problem(status, "Service Unavailable", "Service Unavailable"), this.rateHeaders());
  }

  private id(): string {
    this.nextId += 1n;
    return String(this.nextId);
  }

  async handle(req: Request): Promise<Response> {
    const { key, url } = this.log(req);
    const scripted = this.scriptedFor(key);
    if (scripted) return scripted(req);

    if (key === "POST /2/oauth2/token") return this.token(req);

    const token = req.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
    if (!this.accessTokens.has(token) || this.clock.expired(token)) {
      return this.respond(401, problem(401, "Unauthorized", "Unauthorized"));
    }

    if (key === "POST /2/media/upload") {
      const form = await req.formData();
      const command = form.get("command");
      if (command === "INIT") {
        return this.initMedia(
          String(form.get("media_type")),
          Number(form.get("total_bytes")),
          String(form.get("media_category")),
        );
      }
      if (command === "APPEND") return this.append(String(form.get("media_id")), form);
      if (command === "FINALIZE") return this.finalize(String(form.get("media_id")));
      const file = form.get("media");
      if (!(file instanceof File)) {
        return this.respond(400, {
          errors: [{ parameters: { media: [] }, message: "The `media` parameter is required." }],
          title: "Invalid Request",
          detail: "One or more parameters to your request was invalid.",
          type: "https://api.twitter.com/2/problems/invalid-request",
        });
      }
      // X refuses images over 5 MB (GIFs 15 MB) at upload, as the real API does (issue 16: fitted first).
      const tooBig = this.overLimit(String(form.get("media_type") ?? file.type), file.size);
      if (tooBig) return tooBig;
      const m = this.store(
        String(form.get("media_type") ?? file.type),
        file.size,
        String(form.get("media_category") ?? "tweet_image"),
      );
      m.received = file.size;
      m.bytes.push(new Uint8Array(await file.arrayBuffer()));
      m.finalized = true;
      m.pollsLeft = 0;
      return this.respond(200, {
        data: {
          id: m.id,
          media_key: `3_${m.id}`,
          size: m.totalBytes,
          expires_after_secs: 86400,
          image: { image_type: m.mediaType, w: 1080, h: 1080 },
        },
      });
    }
    if (key === "GET /2/media/upload" && url.searchParams.get("command") === "STATUS") {
      const m = this.media.get(url.searchParams.get("media_id") ?? "");
      if (!m) return this.respond(400, problem(400, "Invalid Request", "Invalid media id."));
      return this.respond(200, { data: { id: m.id, media_key: `7_${m.id}`, processing_info: this.poll(m) } });
    }
    if (key === "POST /2/media/upload/initialize") {
      const body = (await req.json()) as { media_type: string; total_bytes: number; media_category: string };
      return this.initMedia(body.media_type, body.total_bytes, body.media_category);
    }
    const chunked = /^\/2\/media\/upload\/(\d+)\/(append|finalize)$/.exec(url.pathname);
    if (req.method === "POST" && chunked) {
      if (chunked[2] === "append") return this.append(chunked[1]!, await req.formData());
      return this.finalize(chunked[1]!);
    }
    if (key === "POST /2/media/metadata") {
      // docs.x.com/x-api/media/metadata-create: `{id, metadata: {alt_text: {text}}}`, text at most 1,000 characters;
      // answers `{data: {id, associated_metadata: {alt_text: {text}}}}`.
      const body = (await req.json()) as { id?: string; metadata?: { alt_text?: { text?: string } } };
      const m = this.media.get(body.id ?? "");
      if (!m) return this.respond(400, problem(400, "Invalid Request", "Invalid media id."));
      const text = body.metadata?.alt_text?.text ?? "";
      if ([...text].length > 1000) {
        return this.respond(
          400,
          problem(
            400,
            "Invalid Request",
            "One or more parameters to your request was invalid.",
            "https://api.twitter.com/2/problems/invalid-request",
          ),
        );
      }
      m.altText = text;
      return this.respond(200, { data: { id: m.id, associated_metadata: { alt_text: { text } } } });
    }
    if (key === "POST /2/tweets") {
      if (!this.writeAccess) return this.respond(403, OAUTH1_PERMISSIONS);
      return this.createTweet(req);
    }
    const lookup = /^\/2\/tweets\/(\d+)$/.exec(url.pathname);
    if (req.method === "GET" && lookup) {
      if (!this.readAccess) return this.respond(403, CLIENT_NOT_ENROLLED);
      const t = this.tweets.get(lookup[1]!);
      if (!t) {
        return this.respond(200, {
          errors: [
            {
              value: lookup[1],
              detail: `Could not find tweet with id: [${lookup[1]}].`,
              title: "Not Found Error",
              resource_type: "tweet",
              type: "https://api.twitter.com/2/problems/resource-not-found",
            },
          ],
        });
      }
      return this.respond(200, {
        data: { id: t.id, text: t.text, edit_history_tweet_ids: [t.id], public_metrics: t.public_metrics },
      });
    }
    const timeline = /^\/2\/users\/(\d+)\/tweets$/.exec(url.pathname);
    if (req.method === "GET" && timeline) return this.userTimeline(url);
    return this.respond(404, problem(404, "Not Found Error", "Not found"));
  }

  /**
   * GET /2/users/:id/tweets. Tiers without read access answer 403 "client-not-enrolled"; max_results must be
   * 5–100 (default 10); start_time (RFC 3339) bounds created_at; newest first. Every post returned is counted in
   * `postsRead` (X bills and caps reads per post).
   */
  private userTimeline(url: URL) {
    this.timelineReads += 1;
    if (!this.readAccess) {
      return this.respond(403, CLIENT_NOT_ENROLLED);
    }
    const max = Number(url.searchParams.get("max_results") ?? 10);
    if (!Number.isInteger(max) || max < 5 || max > 100) {
      return this.respond(400, {
        errors: [
          {
            parameters: { max_results: [String(url.searchParams.get("max_results"))] },
            message: `The \`max_results\` query parameter value [${url.searchParams.get("max_results")}] is not between 5 and 100`,
          },
        ],
        title: "Invalid Request",
        detail: "One or more parameters to your request was invalid.",
        type: "https://api.twitter.com/2/problems/invalid-request",
      });
    }
    const start = url.searchParams.get("start_time");
    const since = start ? Date.parse(start) : Number.NEGATIVE_INFINITY;
    const excludeReplies = (url.searchParams.get("exclude") ?? "").split(",").includes("replies");
    const fields = (url.searchParams.get("tweet.fields") ?? "").split(",");
    const data = [...this.tweets.values()]
      .reverse()
      .filter((t) => Date.parse(t.created_at) >= since && !(excludeReplies && t.in_reply_to))
      .slice(0, max)
      .map((t) => ({
        id: t.id,
        text: t.text,
        created_at: t.created_at,
        edit_history_tweet_ids: [t.id],
        ...(fields.includes("referenced_tweets") && t.in_reply_to
          ? { referenced_tweets: [{ type: "replied_to", id: t.in_reply_to }] }
          : {}),
      }));
    this.postsRead += data.length;
    return this.respond(
      200,
      data.length ? { data, meta: { result_count: data.length } } : { meta: { result_count: 0 } },
    );
  }

  private store(mediaType: string, totalBytes: number, category: string): StoredMedia {
    const m: StoredMedia = {
      id: this.id(),
      category,
      mediaType,
      totalBytes,
      received: 0,
      bytes: [],
      segments: 0,
      finalized: false,
      pollsLeft: this.processingPolls,
    };
    this.media.set(m.id, m);
    return m;
  }

  private initMedia(mediaType: string, totalBytes: number, category: string) {
    if (!mediaType || !Number.isFinite(totalBytes) || totalBytes <= 0) {
      return this.respond(400, problem(400, "Invalid Request", "One or more parameters to your request was invalid."));
    }
    const tooBig = this.overLimit(mediaType, totalBytes);
    if (tooBig) return tooBig;
    const m = this.store(mediaType, totalBytes, category);
    return this.respond(200, { data: { id: m.id, media_key: `7_${m.id}`, expires_after_secs: 86400 } });
  }

  /** docs.x.com media: images 5 MB, GIFs 15 MB, videos 512 MB. */
  private overLimit(mediaType: string, bytes: number) {
    const limit = mediaType === "image/gif" ? 15 : mediaType.startsWith("image/") ? 5 : 512;
    if (bytes <= limit * 1024 * 1024) return null;
    return this.respond(400, problem(400, "Invalid Request", `File size exceeds ${limit * 1024 * 1024} bytes.`));
  }

  private async append(id: string, form: FormData) {
    const m = this.media.get(id);
    if (!m) return this.respond(400, problem(400, "Invalid Request", "Invalid media id."));
    const chunk = form.get("media");
    const index = Number(form.get("segment_index"));
    if (!(chunk instanceof File) || index !== m.segments) {
      return this.respond(400, problem(400, "Invalid Request", "Segment index out of order."));
    }
    m.segments += 1;
    m.received += chunk.size;
    m.bytes.push(new Uint8Array(await chunk.arrayBuffer()));
    return new Response(null, { status: 204, headers: this.rateHeaders() });
  }

  private finalize(id: string) {
    const m = this.media.get(id);
    if (!m) return this.respond(400, problem(400, "Invalid Request", "Invalid media id."));
    if (m.received !== m.totalBytes) {
      return this.respond(
        400,
        problem(400, "Invalid Request", `File size mismatch: expected ${m.totalBytes}, got ${m.received}.`),
      );
    }
    m.finalized = true;
    const data: Record<string, unknown> = {
      id: m.id,
      media_key: `7_${m.id}`,
      size: m.totalBytes,
      expires_after_secs: 86400,
    };
    if (m.pollsLeft > 0 || this.processingFailure) data.processing_info = { state: "pending", check_after_secs: 1 };
    return this.respond(200, { data });
  }

  private poll(m: StoredMedia) {
    if (m.pollsLeft > 0) {
      m.pollsLeft -= 1;
      return { state: "in_progress", check_after_secs: 1, progress_percent: 50 };
    }
    if (this.processingFailure) {
      return {
        state: "failed",
        progress_percent: 100,
        error: { code: 1, name: "InvalidMedia", message: this.processingFailure },
      };
    }
    return { state: "succeeded", progress_percent: 100 };
  }

  private async createTweet(req: Request) {
    const body = (await req.json()) as {
      text?: string;
      media?: { media_ids?: string[] };
      reply?: { in_reply_to_tweet_id?: string };
    };
    const parentId = body.reply?.in_reply_to_tweet_id;
    const parent = parentId ? this.tweets.get(parentId) : undefined;
    if (parentId && !parent) {
      return this.respond(
        403,
        problem(403, "Forbidden", "You attempted to reply to a Tweet that is deleted or not visible to you."),
      );
    }
    const text = body.text ?? "";
    const mediaIds = body.media?.media_ids ?? [];
    if (!text && mediaIds.length === 0) {
      return this.respond(400, {
        errors: [{ message: "Post text or media is required." }],
        title: "Invalid Request",
        detail: "One or more parameters to your request was invalid.",
        type: "https://api.twitter.com/2/problems/invalid-request",
      });
    }
    for (const id of mediaIds) {
      const m = this.media.get(id);
      if (!m?.finalized || m.pollsLeft > 0 || this.processingFailure) {
        return this.respond(400, {
          errors: [{ parameters: { "media.media_ids": [id] }, message: "Your media IDs are invalid." }],
          title: "Invalid Request",
          detail: "One or more parameters to your request was invalid.",
          type: "https://api.twitter.com/2/problems/invalid-request",
        });
      }
    }
    if (text && [...this.tweets.values()].some((t) => t.text === text)) {
      return this.respond(
        403,
        problem(403, "Forbidden", "You are not allowed to create a Tweet with duplicate content."),
      );
    }
    const t: StoredTweet = {
      id: this.id(),
      text: mediaIds.length ? `${text} https://t.co/abc${mediaIds.length}`.trim() : text,
      media_ids: mediaIds,
      in_reply_to: parent?.id ?? null,
      conversation_id: "",
      created_at: new Date().toISOString(),
      public_metrics: {
        retweet_count: 0,
        reply_count: 0,
        like_count: 0,
        quote_count: 0,
        bookmark_count: 0,
        impression_count: 0,
      },
    };
    t.conversation_id = parent?.conversation_id ?? t.id;
    if (parent) parent.public_metrics.reply_count = (parent.public_metrics.reply_count ?? 0) + 1;
    this.tweets.set(t.id, t);
    return this.respond(201, { data: { id: t.id, text: t.text, edit_history_tweet_ids: [t.id] } });
  }

  private async token(req: Request) {
    const form = new URLSearchParams(new TextDecoder().decode(await req.arrayBuffer()));
    if (form.get("grant_type") !== "refresh_token" || !this.refreshTokens.has(form.get("refresh_token") ?? "")) {
      return this.respond(400, {
        error: "invalid_request",
        error_description: "Value passed for the token was invalid.",
      });
    }
    this.refreshTokens.delete(form.get("refresh_token")!);
    const access = `x-access-${crypto.randomUUID()}`;
    const refresh = `x-refresh-${crypto.randomUUID()}`;
    this.accessTokens.add(access);
    this.clock.issue(access, FakeX.ACCESS_TOKEN_MS);
    this.refreshTokens.add(refresh);
    return this.respond(200, {
      token_type: "bearer",
      expires_in: 7200,
      access_token: access,
      scope: "tweet.read tweet.write users.read media.write offline.access",
      refresh_token: refresh,
    });
  }
}
