import { detectType, readDimensions } from "../../../src/media/sniff";
import { fakeOrigin } from "../fake-fetch";
import { type Override, type RecordedCall, recordRequest, takeOverride } from "./meta";
import { measureVideo, VIDEO_UPLOAD_LIMITS, type VideoRefusal, videoRefusal } from "./pulled-media";
import { DAY_MS, TokenClock } from "./token-clock";

/**
 * A fake LinkedIn (platforms.md §1–2): the versioned REST API on `https://linkedin.fake` and OAuth on
 * `https://linkedin-oauth.fake`. It answers like the real one:
 * - every `/rest/…` call needs `LinkedIn-Version: YYYYMM` and `X-Restli-Protocol-Version: 2.0.0`;
 * - errors `{"status","serviceErrorCode","code","message"}` (401 EXPIRED_ACCESS_TOKEN, 422 UNPROCESSABLE_ENTITY…);
 *   throttling is a bare 429 with no rate-limit headers;
 * - images: initializeUpload → PUT to the returned upload URL (36,152,320 pixels or more fail processing); video: initializeUpload with parts of `partSize`
 *   bytes (4 MiB real, small in tests) → PUT each part (ETag header) → finalizeUpload (ETags in order) →
 *   `GET /rest/videos/{urn}` WAITING_UPLOAD/PROCESSING → AVAILABLE | PROCESSING_FAILED;
 * - `POST /rest/posts` → 201 with empty body and the URN in `x-restli-id`; the same author posting the same
 *   commentary and content again → 422 DUPLICATE_POST naming the first post;
 * - organizationalEntityShareStatistics; refresh_token grant with OAuth error bodies.
 * Every request (both origins) is recorded in `calls`; created posts in `posts`.
 */

export const LINKEDIN_ORIGIN = "https://linkedin.fake";
export const LINKEDIN_OAUTH_ORIGIN = "https://linkedin-oauth.fake";

interface Asset {
  urn: string;
  kind: "image" | "video";
  owner: string;
  status: "WAITING_UPLOAD" | "PROCESSING" | "AVAILABLE" | "PROCESSING_FAILED";
  size: number;
  parts: Array<{ firstByte: number; lastByte: number; etag?: string; uploadUrl: string }>;
  uploadToken: string;
  pendingPolls: number;
  bytes: number;
  /** Video parts as uploaded, by part index (measured at finalize). */
  received: Uint8Array[];
  /** Why processing fails: a video outside the Videos API's limits. */
  refusal?: string;
}

/** `processingFailureReason` for a video outside the Videos API's limits (LinkedIn documents no list of values). */
const LINKEDIN_VIDEO_FAILURE: Record<VideoRefusal, string> = {
  format: "VIDEO_FORMAT_NOT_SUPPORTED",
  size: "VIDEO_FILE_SIZE_OUT_OF_RANGE",
  duration: "VIDEO_DURATION_OUT_OF_RANGE",
  aspect: "VIDEO_ASPECT_RATIO_OUT_OF_RANGE",
  dimensions: "VIDEO_DIMENSIONS_OUT_OF_RANGE",
};

/** Images API: "The image must have fewer than 36,152,320 pixels". */
export const LINKEDIN_MAX_IMAGE_PIXELS = 36_152_320;

/** Width × height of uploaded image bytes; 0 when they are no image whose size can be read (placeholder bytes). */
function imagePixels(bytes: Uint8Array): number {
  const type = detectType(bytes.subarray(0, 64));
  const dims = type?.kind === "image" ? readDimensions(type.mime, bytes) : null;
  return dims ? dims.width * dims.height : 0;
}

export function linkedInError(status: number, code: string, message: string, serviceErrorCode?: number): Response {
  return new Response(JSON.stringify({ status, ...(serviceErrorCode ? { serviceErrorCode } : {}), code, message }), {
    status,
    headers: { "content-type": "application/json", "x-li-uuid": "fakeUuid==", "x-restli-protocol-version": "2.0.0" },
  });
}

/** LinkedIn throttling: 429 and nothing else to go on. */
export function linkedInThrottle(): Response {
  return linkedInError(
    429,
    "TOO_MANY_REQUESTS",
    "Resource level throttle APPLICATION DAY limit for calls to this resource is reached.",
  );
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

/** A `YYYYMM` version is active from its month until 12 months later (LinkedIn's minimum support window). */
export function isActiveVersion(version: string, nowMs: number): boolean {
  const year = Number(version.slice(0, 4));
  const month = Number(version.slice(4, 6)) - 1;
  const released = Date.UTC(year, month, 1);
  return released <= nowMs && nowMs < Date.UTC(year + 1, month, 15);
}

export class LinkedInFake {
  readonly calls: RecordedCall[] = [];
  readonly posts: Array<{ urn: string; body: Record<string, unknown> }> = [];
  readonly validTokens = new Set<string>(["access-token"]);
  readonly expiredTokens = new Set<string>();
  readonly refreshTokens = new Set<string>(["refresh-token"]);
  /**
   * LinkedIn "Refresh Tokens with OAuth 2.0" (programmatic refresh tokens): access tokens live 60 days, the
   * refresh token 365 days from the first authorization — a refresh returns the same refresh token with what is
   * left of its life, and an access token that never outlives it. Expired access tokens: 401 EXPIRED_ACCESS_TOKEN; an expired refresh
   * token: 400 invalid_grant.
   */
  readonly clock = new TokenClock();
  static readonly ACCESS_TOKEN_MS = 60 * DAY_MS;
  static readonly REFRESH_TOKEN_MS = 365 * DAY_MS;
  /**
   * Video part size: LinkedIn's own, 4 MiB (Videos API, learn.microsoft.com/linkedin/marketing/community-management/
   * shares/videos-api: a file over 4 MB is uploaded in parts whose `uploadInstructions` run 0–4,194,303,
   * 4,194,304–…; smaller files in one part). Tests of the part logic itself set it lower.
   */
  partSize = 4 * 1024 * 1024;
  /** Polls answered PROCESSING after finalize before AVAILABLE. */
  videoPolls = 1;
  /** When set, videos end PROCESSING_FAILED with this reason. */
  videoFailure: string | undefined;
  shareStatistics = new Map<string, Record<string, number>>();
  /** Comments made through the Comments API (issue 20), in order. */
  readonly comments: Array<{ id: string; urn: string; on: string; actor: string; text: string; at: number }> = [];
  /**
   * Whether this app may read comments (members' comments need the restricted `r_member_social`; without it
   * `GET …/comments` answers 403 ACCESS_DENIED).
   */
  canReadComments = true;
  private readonly assets = new Map<string, Asset>();
  private readonly overrides: Override[] = [];
  private seq = 0;
  private refreshSeq = 0;
  readonly uninstall: () => void;

  constructor() {
    const a = fakeOrigin(LINKEDIN_ORIGIN, (r) => this.handle(r));
    const b = fakeOrigin(LINKEDIN_OAUTH_ORIGIN, (r) => this.handleOAuth(r));
    this.uninstall = () => {
      a();
      b();
    };
  }

  failNext(match: { method?: string; path: RegExp | string }, respond: () => Response, times = 1): void {
    this.overrides.push({ ...match, respond, remaining: times });
  }

  /** Each video as LinkedIn received it (its parts joined in order), in upload order. */
  videoBytes(): Uint8Array[] {
    return [...this.assets.values()]
      .filter((a) => a.kind === "video")
      .map((a) => {
        const out = new Uint8Array(a.bytes);
        let at = 0;
        for (const part of a.received) {
          out.set(part, at);
          at += part.byteLength;
        }
        return out;
      });
  }

  summary(): string[] {
    return this.calls.map((c) => `${c.method} ${c.path}`);
  }

  private next(): string {
    return String(7_400_000_000_000_000_000n + BigInt(++this.seq));
  }

  private async handle(request: Request): Promise<Response> {
    // An image upload is read twice: recorded (its size) and measured (its pixels).
    const upload = new URL(request.url).pathname.startsWith("/dms-uploads/") ? request.clone() : null;
    const call = await recordRequest(request);
    this.calls.push(call);
    const override = takeOverride(this.overrides, call);
    if (override) return override;

    const auth = request.headers.get("authorization")?.match(/^Bearer (.+)$/)?.[1];
    if (!auth) return linkedInError(401, "EMPTY_ACCESS_TOKEN", "Empty oauth2 access token", 65604);
    if (this.expiredTokens.has(auth) || (this.validTokens.has(auth) && this.clock.expired(auth)))
      return linkedInError(401, "EXPIRED_ACCESS_TOKEN", "The token used in the request has expired", 65601);
    if (!this.validTokens.has(auth)) return linkedInError(401, "INVALID_ACCESS_TOKEN", "Invalid access token", 65600);

    if (upload) return this.upload(call, new Uint8Array(await upload.arrayBuffer()));

    if (call.path.startsWith("/rest/")) {
      const version = request.headers.get("linkedin-version");
      if (!version) {
        return linkedInError(
          400,
          "VERSION_MISSING",
          "A version must be present. Please specify a version by adding the LinkedIn-Version header.",
        );
      }
      if (!/^\d{6}(\.\d{2})?$/.test(version)) {
        return linkedInError(400, "INVALID_VERSION", `Invalid version format: ${version}`);
      }
      // Each monthly version is served from its release for at least a year, then sunset: HTTP 426.
      if (!isActiveVersion(version, Date.now())) {
        return linkedInError(426, "NONEXISTENT_VERSION", `Requested version ${version} is not active`);
      }
      if (request.headers.get("x-restli-protocol-version") !== "2.0.0") {
        return linkedInError(400, "ILLEGAL_ARGUMENT", "Rest.li protocol version 2.0.0 is required");
      }
    }

    const body = call.body ?? {};
    const action = call.query.action;
    if (call.method === "POST" && call.path === "/rest/images" && action === "initializeUpload")
      return this.initImage(body);
    if (call.method === "POST" && call.path === "/rest/videos" && action === "initializeUpload")
      return this.initVideo(body);
    if (call.method === "POST" && call.path === "/rest/videos" && action === "finalizeUpload")
      return this.finalize(body);
    if (call.method === "GET" && call.path.startsWith("/rest/videos/")) {
      return this.readVideo(decodeURIComponent(call.path.slice("/rest/videos/".length)));
    }
    if (call.method === "POST" && call.path === "/rest/posts") return this.createPost(body);
    const comments = call.path.match(/^\/rest\/socialActions\/([^/]+)\/comments$/);
    if (comments && call.method === "POST") return this.createComment(decodeURIComponent(comments[1]!), body);
    if (comments && call.method === "GET") return this.listComments(decodeURIComponent(comments[1]!));
    if (call.method === "GET" && call.path === "/rest/organizationalEntityShareStatistics") return this.stats(request);
    return linkedInError(404, "NOT_FOUND", `No virtual resource found`);
  }

  private initImage(body: Record<string, unknown>): Response {
    const owner = (body.initializeUploadRequest as { owner?: string } | undefined)?.owner;
    if (!owner || !/^urn:li:(person|organization):/.test(owner)) {
      return linkedInError(422, "UNPROCESSABLE_ENTITY", "/initializeUploadRequest/owner :: owner is required");
    }
    const id = `D4E10AQ${this.next()}`;
    const urn = `urn:li:image:${id}`;
    const uploadUrl = `${LINKEDIN_ORIGIN}/dms-uploads/${id}/uploadedImage/0?ca=vector_ads&cn=uploads&m=AQ&app=1&sync=0&v=beta&ut=fake`;
    this.assets.set(urn, {
      urn,
      kind: "image",
      owner,
      status: "WAITING_UPLOAD",
      size: 0,
      parts: [{ firstByte: 0, lastByte: -1, uploadUrl }],
      uploadToken: "",
      pendingPolls: 0,
      bytes: 0,
      received: [],
    });
    return json({ value: { uploadUrlExpiresAt: Date.now() + 86_400_000, uploadUrl, image: urn } });
  }

  private initVideo(body: Record<string, unknown>): Response {
    const req = body.initializeUploadRequest as { owner?: string; fileSizeBytes?: number } | undefined;
    if (!req?.owner || typeof req.fileSizeBytes !== "number" || req.fileSizeBytes <= 0) {
      return linkedInError(422, "UNPROCESSABLE_ENTITY", "/initializeUploadRequest/fileSizeBytes :: field is required");
    }
    const id = `D4E10AQ${this.next()}`;
    const urn = `urn:li:video:${id}`;
    const parts: Asset["parts"] = [];
    for (let first = 0, n = 0; first < req.fileSizeBytes; first += this.partSize, n++) {
      parts.push({
        firstByte: first,
        lastByte: Math.min(req.fileSizeBytes, first + this.partSize) - 1,
        uploadUrl: `${LINKEDIN_ORIGIN}/dms-uploads/${id}/uploadedVideo/${n}?sau=fake&part=${n}`,
      });
    }
    const uploadToken = parts.length > 1 ? `ViZXJzaW9u${id}` : "";
    this.assets.set(urn, {
      urn,
      kind: "video",
      owner: req.owner,
      status: "WAITING_UPLOAD",
      size: req.fileSizeBytes,
      parts,
      uploadToken,
      pendingPolls: this.videoPolls,
      bytes: 0,
      received: [],
    });
    return json({
      value: {
        uploadUrlsExpireAt: Date.now() + 86_400_000,
        video: urn,
        uploadInstructions: parts.map(({ uploadUrl, firstByte, lastByte }) => ({ uploadUrl, lastByte, firstByte })),
        uploadToken,
      },
    });
  }

  private upload(call: RecordedCall, body: Uint8Array): Response {
    if (call.method !== "PUT") return linkedInError(405, "METHOD_NOT_ALLOWED", "Method not allowed");
    const url = `${call.origin}${call.path}?${new URLSearchParams(call.query)}`;
    for (const asset of this.assets.values()) {
      const part = asset.parts.find((p) => p.uploadUrl === url);
      if (!part) continue;
      const bytes = Number((call.body as { bytes?: number } | null)?.bytes ?? 0);
      if (asset.kind === "image") {
        if (bytes === 0) return linkedInError(400, "BAD_REQUEST", "Empty upload");
        // The upload is taken; processing refuses an image of 36,152,320 pixels or more (Images API: "fewer than
        // 36,152,320 pixels"), and a post naming it is then refused as for any unavailable image.
        asset.status = imagePixels(body) >= LINKEDIN_MAX_IMAGE_PIXELS ? "PROCESSING_FAILED" : "AVAILABLE";
        asset.bytes = bytes;
        return new Response(null, { status: 201 });
      }
      if (bytes !== part.lastByte - part.firstByte + 1) {
        return linkedInError(400, "BAD_REQUEST", `Part size ${bytes} does not match the upload instruction.`);
      }
      part.etag = `/ETag-${asset.parts.indexOf(part)}-${bytes}`;
      asset.received[asset.parts.indexOf(part)] = body;
      asset.bytes += bytes;
      return new Response(null, { status: 200, headers: { etag: part.etag } });
    }
    return linkedInError(404, "NOT_FOUND", "Upload URL not found or expired");
  }

  private async finalize(body: Record<string, unknown>): Promise<Response> {
    const req = body.finalizeUploadRequest as
      | { video?: string; uploadToken?: string; uploadedPartIds?: string[] }
      | undefined;
    const asset = this.assets.get(req?.video ?? "");
    if (asset?.kind !== "video") return linkedInError(404, "NOT_FOUND", "Video not found");
    const expected = asset.parts.map((p) => p.etag);
    if (
      req?.uploadToken !== asset.uploadToken ||
      JSON.stringify(req?.uploadedPartIds ?? []) !== JSON.stringify(expected) ||
      asset.bytes !== asset.size
    ) {
      return linkedInError(400, "BAD_REQUEST", "The uploaded part ids do not match the uploaded parts.");
    }
    asset.status = "PROCESSING";
    // LinkedIn measures the assembled file while processing; one outside its limits ends PROCESSING_FAILED.
    const whole = new Uint8Array(asset.size);
    let at = 0;
    for (const part of asset.received) {
      whole.set(part, at);
      at += part.length;
    }
    const file = await measureVideo(whole);
    const refused = file.mime?.startsWith("video/") ? videoRefusal(file, VIDEO_UPLOAD_LIMITS.linkedin) : null;
    if (refused) asset.refusal = LINKEDIN_VIDEO_FAILURE[refused];
    return new Response(null, { status: 200 });
  }

  private readVideo(urn: string): Response {
    const asset = this.assets.get(urn);
    if (asset?.kind !== "video") return linkedInError(404, "NOT_FOUND", `Video ${urn} not found`);
    if (asset.status === "PROCESSING") {
      if (asset.pendingPolls > 0) asset.pendingPolls--;
      else asset.status = (asset.refusal ?? this.videoFailure) ? "PROCESSING_FAILED" : "AVAILABLE";
    }
    return json({
      id: urn,
      owner: asset.owner,
      status: asset.status,
      ...(asset.status === "PROCESSING_FAILED" ? { processingFailureReason: asset.refusal ?? this.videoFailure } : {}),
      ...(asset.status === "AVAILABLE" ? { downloadUrl: `https://dms.licdn.fake/${urn}`, duration: 12000 } : {}),
    });
  }

  private createPost(body: Record<string, unknown>): Response {
    const author = String(body.author ?? "");
    if (!/^urn:li:(person|organization):\w+$/.test(author)) {
      return linkedInError(422, "UNPROCESSABLE_ENTITY", `/author :: "${author}" is not a valid author URN`, 100);
    }
    if (body.lifecycleState !== "PUBLISHED" || body.visibility !== "PUBLIC" || !body.distribution) {
      return linkedInError(422, "UNPROCESSABLE_ENTITY", "/lifecycleState :: field is required");
    }
    const commentary = String(body.commentary ?? "");
    if ([...commentary].length > 3000) {
      return linkedInError(
        422,
        "UNPROCESSABLE_ENTITY",
        "/commentary :: length of the text must not exceed 3000 characters",
        100,
      );
    }
    const content = body.content as
      | {
          media?: { id?: string; altText?: string };
          multiImage?: { images?: Array<{ id?: string; altText?: string }> };
        }
      | undefined;
    const ids = content?.media?.id ? [content.media.id] : (content?.multiImage?.images ?? []).map((i) => i.id ?? "");
    // Posts API (learn.microsoft.com/linkedin/marketing/community-management/shares/posts-api): MediaContent and
    // MultiImage images take `altText`, at most 4,086 characters.
    const alts = content?.media ? [content.media.altText] : (content?.multiImage?.images ?? []).map((i) => i.altText);
    if (alts.some((a) => a !== undefined && [...a].length > 4086)) {
      return linkedInError(
        422,
        "UNPROCESSABLE_ENTITY",
        "/content/media/altText :: length must not exceed 4086 characters",
      );
    }
    if (content?.multiImage && (ids.length < 2 || ids.length > 20)) {
      return linkedInError(
        422,
        "UNPROCESSABLE_ENTITY",
        "/content/multiImage/images :: must have between 2 and 20 images",
      );
    }
    for (const id of ids) {
      const asset = this.assets.get(id);
      if (asset?.status === "PROCESSING_FAILED") {
        return linkedInError(400, "INVALID_CONTENT", `Media ${id} failed processing and cannot be used.`);
      }
      if (asset?.status !== "AVAILABLE") {
        return linkedInError(400, "INVALID_CONTENT", `Media ${id} is not available. It may still be processing.`);
      }
      if (asset.owner !== author) {
        return linkedInError(
          403,
          "ACCESS_DENIED",
          `Accessing this ${asset.kind} resource is forbidden for the author.`,
        );
      }
    }
    // LinkedIn refuses a post identical to a recent one of the same author, naming it (the shape integrators see).
    const same = this.posts.find(
      (p) =>
        p.body.author === author &&
        p.body.commentary === body.commentary &&
        JSON.stringify(p.body.content ?? null) === JSON.stringify(body.content ?? null),
    );
    if (same) {
      return json(
        {
          errorDetailType: "com.linkedin.common.error.BadRequest",
          message: `com.linkedin.content.common.exception.BadRequestResponseException: Content is a duplicate of ${same.urn}`,
          errorDetails: {
            inputErrors: [{ description: "Duplicate post is detected", input: {}, code: "DUPLICATE_POST" }],
          },
          status: 422,
        },
        422,
      );
    }
    const kind = ids.some((id) => id.startsWith("urn:li:video:")) ? "ugcPost" : "share";
    const urn = `urn:li:${kind}:${this.next()}`;
    this.posts.push({ urn, body });
    return new Response(null, { status: 201, headers: { "x-restli-id": urn, "x-linkedin-id": urn } });
  }

  /**
   * Comments API create: `{actor, object, message: {text}}` on a post that exists; `object` must be the post in the
   * path; text ≤ 1,250 characters. → 201 with the comment (`id`, `$URN`) and its id in `x-restli-id`.
   */
  private createComment(postUrn: string, body: Record<string, unknown>): Response {
    const actor = String(body.actor ?? "");
    if (!/^urn:li:(person|organization):\w+$/.test(actor)) {
      return linkedInError(422, "UNPROCESSABLE_ENTITY", `/actor :: "${actor}" is not a valid actor URN`, 100);
    }
    if (body.object !== postUrn) {
      return linkedInError(400, "ILLEGAL_ARGUMENT", "/object :: must be the entity in the resource path");
    }
    if (!this.posts.some((p) => p.urn === postUrn)) {
      return linkedInError(404, "NOT_FOUND", `Entity ${postUrn} not found`);
    }
    const text = String((body.message as { text?: unknown } | undefined)?.text ?? "");
    if (!text.trim()) return linkedInError(422, "UNPROCESSABLE_ENTITY", "/message/text :: field is required", 100);
    if ([...text].length > 1250) {
      return linkedInError(
        422,
        "UNPROCESSABLE_ENTITY",
        "/message/text :: length of the text must not exceed 1250 characters",
        100,
      );
    }
    const id = this.next();
    const urn = `urn:li:comment:(${postUrn},${id})`;
    const at = Date.now();
    this.comments.push({ id, urn, on: postUrn, actor, text, at });
    return json(this.commentJson(this.comments.at(-1)!), 201, { "x-restli-id": id });
  }

  private commentJson(c: LinkedInFake["comments"][number]) {
    return {
      id: c.id,
      $URN: c.urn,
      actor: c.actor,
      object: c.on,
      message: { text: c.text, attributes: [] },
      created: { actor: c.actor, time: c.at },
      lastModified: { actor: c.actor, time: c.at },
    };
  }

  /** Comments API list: newest first; 403 when the app may not read comments. */
  private listComments(postUrn: string): Response {
    if (!this.canReadComments) {
      return linkedInError(
        403,
        "ACCESS_DENIED",
        "Not enough permissions to access: socialActions.comments.GET.NO_VERSION",
        100,
      );
    }
    const elements = this.comments
      .filter((c) => c.on === postUrn)
      .reverse()
      .map((c) => this.commentJson(c));
    return json({ paging: { start: 0, count: 50, total: elements.length, links: [] }, elements });
  }

  private stats(request: Request): Response {
    // Rest.li 2.0: List(...) with encoded URNs inside; parse from the raw query to check the encoding.
    const raw = new URL(request.url).search;
    const org = raw.match(/organizationalEntity=([^&]+)/)?.[1];
    const list = raw.match(/(shares|ugcPosts)=List\(([^)]+)\)/);
    if (!raw.includes("q=organizationalEntity") || !org || !list) {
      return linkedInError(400, "ILLEGAL_ARGUMENT", "Invalid query parameters passed to request");
    }
    const post = decodeURIComponent(list[2]!);
    const stats = this.shareStatistics.get(post);
    if (!stats) return json({ paging: { start: 0, count: 10, links: [] }, elements: [] });
    return json({
      paging: { start: 0, count: 10, links: [] },
      elements: [
        {
          totalShareStatistics: stats,
          organizationalEntity: decodeURIComponent(org),
          [list[1] === "shares" ? "share" : "ugcPost"]: post,
        },
      ],
    });
  }

  private async handleOAuth(request: Request): Promise<Response> {
    const call = await recordRequest(request);
    this.calls.push(call);
    const override = takeOverride(this.overrides, call);
    if (override) return override;
    if (call.method !== "POST" || call.path !== "/oauth/v2/accessToken")
      return new Response("Not Found", { status: 404 });
    const p = (call.body ?? {}) as Record<string, string>;
    if (p.client_id !== "li-client" || p.client_secret !== "li-secret") {
      return json({ error: "invalid_client", error_description: "Client authentication failed" }, 401);
    }
    if (p.grant_type !== "refresh_token") {
      return json({ error: "unsupported_grant_type", error_description: "The grant type is not supported" }, 400);
    }
    if (!p.refresh_token || !this.refreshTokens.has(p.refresh_token) || this.clock.expired(p.refresh_token)) {
      return json(
        {
          error: "invalid_grant",
          error_description: "The provided authorization grant or refresh token is invalid, expired or revoked",
        },
        400,
      );
    }
    const n = ++this.refreshSeq;
    const access = `li-access-${n}`;
    this.validTokens.add(access);
    // "Day 360 - … your access token and refresh token will both expire in 5 days": never past the refresh token.
    const refreshEnds = this.clock.expiresAt(p.refresh_token) ?? Number.POSITIVE_INFINITY;
    // One reading of the clock: the answer says the lifetime just given (not a recount a millisecond later, which
    // would floor to a second less).
    const issuedAt = Date.now();
    const accessEnds = Math.min(issuedAt + LinkedInFake.ACCESS_TOKEN_MS, refreshEnds);
    this.clock.expireAt(access, accessEnds);
    return json({
      access_token: access,
      expires_in: Math.floor((accessEnds - issuedAt) / 1000),
      refresh_token: p.refresh_token,
      refresh_token_expires_in: this.clock.secondsLeft(p.refresh_token) ?? 31_536_000 - n,
      scope: "openid,profile,w_member_social",
    });
  }
}

export function fakeLinkedIn(): LinkedInFake {
  return new LinkedInFake();
}
