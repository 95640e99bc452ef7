import { fakeOrigin } from "../fake-fetch";
import { fakeJwt, json, ScriptedFake } from "./scripted";
import { DAY_MS, TokenClock } from "./token-clock";

/**
 * A Bluesky PDS + video service + public AppView that answer like the real ones (platforms.md §11): XRPC error
 * envelope `{error, message}`, expired tokens as 400 `ExpiredToken`, IETF `ratelimit-*` headers on every response
 * (reset in epoch seconds) plus `retry-after` on 429, `createRecord` demanding a TID record key and answering 500
 * for a key that exists, lexicon limits (300 graphemes, 4 images), video jobs that go through processing states.
 */
export const BSKY_PDS = "https://bsky-pds.fake";
export const BSKY_VIDEO = "https://bsky-video.fake";
export const BSKY_APPVIEW = "https://bsky-appview.fake";
/** The PLC directory (BLUESKY_PLC_URL in tests). */
export const BSKY_PLC = "https://plc.fake";

const TID_RE = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/;

interface StoredRecord {
  uri: string;
  cid: string;
  value: Record<string, any>;
}

export class FakeBluesky extends ScriptedFake {
  did = "did:plc:alice0000000000000000000";
  userHandle = "alice.test";
  identifier = "alice.test";
  password = "abcd-efgh-ijkl-mnop";
  /** access JWT → exp (epoch seconds) */
  readonly accessTokens = new Map<string, number>();
  readonly refreshTokens = new Set<string>();
  /**
   * Session lifetimes of the reference PDS (bluesky-social/atproto packages/pds/src/account-manager/helpers/auth.ts):
   * access JWT 120 minutes, refresh JWT 90 days; refreshSession spends the refresh JWT it was given (the PDS
   * keeps a short grace period for a retry; this fake is stricter) and answers an expired one 400 ExpiredToken.
   */
  readonly clock = new TokenClock();
  static readonly REFRESH_JWT_MS = 90 * DAY_MS;
  /** Service-auth token → the audience it was made for. */
  readonly serviceTokens = new Map<string, string>();
  /**
   * Where the account's repo actually lives (its DID document's #atproto_pds), not the entryway the session is
   * opened on (BSKY_PDS plays bsky.social): the video service only takes tokens made for this PDS.
   */
  pdsEndpoint = "https://morel.us-east.host.bsky.fake";
  /** Digest of each video the service processed → its blob CID (a second upload answers already_exists). */
  readonly processedVideos = new Map<string, string>();
  readonly records = new Map<string, StoredRecord>();
  readonly blobs = new Map<string, { mimeType: string; size: number; bytes?: Uint8Array }>();
  readonly handles = new Map<string, string>([["bob.test", "did:plc:bob00000000000000000000"]]);
  readonly jobs = new Map<string, { polls: number; blobCid: string; did: string }>();
  /** getJobStatus answers this many in-progress states before the terminal one. */
  videoPollsBeforeDone = 2;
  /** When set, video jobs end JOB_STATE_FAILED with this error. */
  videoFailure: string | null = null;
  /** Engagement served by the AppView, by record URI. */
  readonly engagement = new Map<
    string,
    { likeCount: number; repostCount: number; replyCount: number; quoteCount: number }
  >();
  blobLimitBytes = 1_000_000;

  install(): () => void {
    // The account's own PDS (its DID document's #atproto_pds) answers for the sessions the entryway issues, as
    // bsky.social's PDS hosts do: the connect checks the session there (issue 25).
    const origins = new Set([BSKY_PDS, BSKY_VIDEO, BSKY_APPVIEW, BSKY_PLC, new URL(this.pdsEndpoint).origin]);
    const off = [...origins].map((o) => fakeOrigin(o, (req) => this.serve(req)));
    return () => {
      for (const f of off) f();
    };
  }

  /** A fresh session as createSession would give (access JWT valid for 2 h unless told otherwise). */
  issueSession(accessTtlSeconds = 7200) {
    const accessJwt = fakeJwt(Math.floor(Date.now() / 1000) + accessTtlSeconds, this.did);
    const refreshJwt = `refresh-${crypto.randomUUID()}`;
    this.accessTokens.set(accessJwt, Math.floor(Date.now() / 1000) + accessTtlSeconds);
    this.refreshTokens.add(refreshJwt);
    this.clock.issue(refreshJwt, FakeBluesky.REFRESH_JWT_MS);
    return { did: this.did, handle: this.userHandle, accessJwt, refreshJwt, active: true };
  }

  expireAccessTokens(): void {
    for (const k of this.accessTokens.keys()) this.accessTokens.set(k, Math.floor(Date.now() / 1000) - 60);
  }

  private rateHeaders(): Record<string, string> {
    return {
      "ratelimit-limit": "3000",
      "ratelimit-remaining": "2999",
      "ratelimit-reset": String(Math.floor(Date.now() / 1000) + 300),
      "ratelimit-policy": "3000;w=300",
    };
  }

  private xrpcError(status: number, error: string, message: string, headers: Record<string, string> = {}) {
    return json(status, { error, message }, { ...this.rateHeaders(), ...headers });
  }

  private ok(body: unknown) {
    return json(200, body, this.rateHeaders());
  }

  /** 429 as the PDS sends it: retry-after seconds and ratelimit-reset epoch seconds. */
  rateLimited(retryAfterSeconds: number) {
    return () =>
      json(
        429,
        { error: "RateLimitExceeded", message: "Rate Limit Exceeded" },
        {
          "ratelimit-limit": "30",
          "ratelimit-remaining": "0",
          "ratelimit-reset": String(Math.floor(Date.now() / 1000) + retryAfterSeconds),
          "ratelimit-policy": "30;w=300",
          "retry-after": String(retryAfterSeconds),
        },
      );
  }

  unavailable(status = 502) {
    return () => json(status, { error: "InternalServerError", message: "Internal Server Error" });
  }

  private auth(req: Request): Response | null {
    const header = req.headers.get("authorization");
    if (!header?.startsWith("Bearer ")) return this.xrpcError(401, "AuthenticationRequired", "Authentication Required");
    const token = header.slice(7);
    const exp = this.accessTokens.get(token);
    if (exp === undefined) return this.xrpcError(400, "InvalidToken", "Token could not be verified");
    if (exp * 1000 <= Date.now()) return this.xrpcError(400, "ExpiredToken", "Token has expired");
    return null;
  }

  async serve(req: Request): Promise<Response> {
    const { key, url } = this.log(req);
    const scripted = this.scriptedFor(key);
    if (scripted) return scripted(req);
    const nsid = url.pathname.replace(/^\/xrpc\//, "");
    const q = url.searchParams;
    const origin = url.origin;

    if (origin === BSKY_PLC) {
      if (decodeURIComponent(url.pathname.slice(1)) !== this.did) {
        return new Response(JSON.stringify({ message: `DID not registered: ${url.pathname.slice(1)}` }), {
          status: 404,
          headers: { "content-type": "application/json" },
        });
      }
      return this.ok({
        "@context": ["https://www.w3.org/ns/did/v1"],
        id: this.did,
        alsoKnownAs: [`at://${this.userHandle}`],
        verificationMethod: [],
        service: [{ id: "#atproto_pds", type: "AtprotoPersonalDataServer", serviceEndpoint: this.pdsEndpoint }],
      });
    }

    if (origin === BSKY_APPVIEW) {
      if (nsid !== "app.bsky.feed.getPosts")
        return this.xrpcError(404, "MethodNotImplemented", "Method Not Implemented");
      const uris = q.getAll("uris");
      const posts = uris.flatMap((uri) => {
        const rec = [...this.records.values()].find((r) => r.uri === uri);
        if (!rec) return [];
        const counts = this.engagement.get(uri) ?? { likeCount: 0, repostCount: 0, replyCount: 0, quoteCount: 0 };
        return [
          {
            uri,
            cid: rec.cid,
            author: { did: this.did, handle: this.userHandle },
            record: rec.value,
            ...counts,
            bookmarkCount: 0,
            indexedAt: new Date().toISOString(),
          },
        ];
      });
      return this.ok({ posts });
    }

    if (origin === BSKY_VIDEO) return this.video(req, nsid, q);

    switch (nsid) {
      case "com.atproto.server.createSession": {
        const body = (await req.json()) as { identifier?: string; password?: string };
        if (body.identifier !== this.identifier || body.password !== this.password) {
          return this.xrpcError(401, "AuthenticationRequired", "Invalid identifier or password");
        }
        return this.ok(this.issueSession());
      }
      case "com.atproto.server.refreshSession": {
        const token = req.headers.get("authorization")?.slice(7) ?? "";
        if (!this.refreshTokens.has(token) || this.clock.expired(token)) {
          return this.xrpcError(400, "ExpiredToken", "Token has expired");
        }
        this.refreshTokens.delete(token);
        return this.ok(this.issueSession());
      }
      case "com.atproto.server.getSession": {
        const denied = this.auth(req);
        if (denied) return denied;
        return this.ok({ did: this.did, handle: this.userHandle, active: true });
      }
      case "com.atproto.identity.resolveHandle": {
        const did = this.handles.get(q.get("handle") ?? "");
        return did ? this.ok({ did }) : this.xrpcError(400, "InvalidRequest", "Unable to resolve handle");
      }
      case "com.atproto.server.getServiceAuth": {
        const denied = this.auth(req);
        if (denied) return denied;
        const token = `svc-${crypto.randomUUID()}`;
        this.serviceTokens.set(token, q.get("aud") ?? "");
        return this.ok({ token });
      }
      case "com.atproto.repo.uploadBlob": {
        const denied = this.auth(req);
        if (denied) return denied;
        const bytes = new Uint8Array(await req.arrayBuffer());
        if (bytes.byteLength > this.blobLimitBytes) {
          return this.xrpcError(413, "BlobTooLarge", `This file is too large. It is ${bytes.byteLength} bytes.`);
        }
        const mimeType = req.headers.get("content-type") ?? "application/octet-stream";
        const cid = `bafkrei${crypto.randomUUID().replace(/-/g, "")}`;
        this.blobs.set(cid, { mimeType, size: bytes.byteLength });
        return this.ok({ blob: { $type: "blob", ref: { $link: cid }, mimeType, size: bytes.byteLength } });
      }
      case "com.atproto.repo.createRecord": {
        const denied = this.auth(req);
        if (denied) return denied;
        const body = (await req.json()) as { repo: string; collection: string; rkey?: string; record: any };
        if (body.repo !== this.did)
          return this.xrpcError(400, "InvalidRequest", "Input/repo must be the session's DID");
        const rkey = body.rkey ?? `3l${crypto.randomUUID().replace(/-/g, "").slice(0, 11)}`;
        if (!TID_RE.test(rkey)) return this.xrpcError(400, "InvalidRequest", `Invalid TID: ${rkey}`);
        if (this.records.has(rkey)) return this.xrpcError(500, "InternalServerError", "Internal Server Error");
        const problem = this.validatePost(body.record);
        if (problem) return this.xrpcError(400, "InvalidRequest", problem);
        const uri = `at://${this.did}/${body.collection}/${rkey}`;
        const cid = `bafyrei${crypto.randomUUID().replace(/-/g, "")}`;
        this.records.set(rkey, { uri, cid, value: body.record });
        return this.ok({ uri, cid, commit: { cid: `bafyrei${rkey}`, rev: rkey }, validationStatus: "valid" });
      }
      case "com.atproto.repo.getRecord": {
        const rec = q.get("repo") === this.did ? this.records.get(q.get("rkey") ?? "") : undefined;
        if (!rec) {
          return this.xrpcError(
            400,
            "RecordNotFound",
            `Could not locate record: at://${q.get("repo")}/${q.get("collection")}/${q.get("rkey")}`,
          );
        }
        return this.ok(rec);
      }
      default:
        return this.xrpcError(404, "MethodNotImplemented", "Method Not Implemented");
    }
  }

  /** The posts of a thread in creation order, each with what its `reply` names (tests assert chains). */
  replyChain(): { uri: string; text: string; root: string | null; parent: string | null }[] {
    return [...this.records.values()].map((r) => ({
      uri: r.uri,
      text: r.value.text,
      root: r.value.reply?.root?.uri ?? null,
      parent: r.value.reply?.parent?.uri ?? null,
    }));
  }

  /**
   * Lexicon validation of `reply` as the PDS does it: both strong refs need an at-uri and a cid. The PDS does not
   * check that the parent exists (the AppView just shows an orphaned reply), so neither does this fake.
   */
  private validateReply(reply: any): string | null {
    if (reply === undefined) return null;
    for (const key of ["root", "parent"] as const) {
      const ref = reply?.[key];
      if (!ref || typeof ref !== "object") {
        return `Invalid app.bsky.feed.post record: Record/reply must have the property "${key}"`;
      }
      if (typeof ref.uri !== "string" || !/^at:\/\/[^/]+\/[^/]+\/[^/]+$/.test(ref.uri)) {
        return `Invalid app.bsky.feed.post record: Record/reply/${key}/uri must be a valid at-uri`;
      }
      if (typeof ref.cid !== "string" || ref.cid === "") {
        return `Invalid app.bsky.feed.post record: Record/reply/${key} must have the property "cid"`;
      }
    }
    return null;
  }

  private validatePost(record: any): string | null {
    const replyProblem = this.validateReply(record.reply);
    if (replyProblem) return replyProblem;
    // The lexicon's `text` is `maxLength: 3000` (UTF-8 bytes) and `maxGraphemes: 300`; the PDS checks bytes first
    // (@atproto/lexicon validators/primitives.ts string(): "string too big (maximum 3000, got 3761)").
    const bytes = new TextEncoder().encode(record.text ?? "").byteLength;
    if (bytes > 3000) {
      return `Invalid app.bsky.feed.post record: string too big (maximum 3000, got ${bytes}) at $.record.text`;
    }
    const graphemes = [...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(record.text ?? "")].length;
    if (graphemes > 300) {
      return `Invalid app.bsky.feed.post record: grapheme too big (maximum 300, got ${graphemes}) at $.record.text`;
    }
    const embed = record.embed;
    if (embed?.$type === "app.bsky.embed.images") {
      if (embed.images.length > 4) {
        return `Invalid app.bsky.feed.post record: array too big (maximum 4, got ${embed.images.length}) at $.record.embed.images`;
      }
      for (const img of embed.images) {
        if (!this.blobs.has(img.image?.ref?.$link)) return `Could not find blob: ${img.image?.ref?.$link}`;
      }
    }
    if (embed?.$type === "app.bsky.embed.video" && !this.blobs.has(embed.video?.ref?.$link)) {
      return `Could not find blob: ${embed.video?.ref?.$link}`;
    }
    return null;
  }

  private async video(req: Request, nsid: string, q: URLSearchParams): Promise<Response> {
    const token = req.headers.get("authorization")?.slice(7) ?? "";
    if (!this.serviceTokens.has(token)) return this.xrpcError(401, "AuthenticationRequired", "Authentication Required");
    if (this.serviceTokens.get(token) !== `did:web:${new URL(this.pdsEndpoint).host}`) {
      return this.xrpcError(401, "BadJwtAudience", "jwt audience does not match service did");
    }
    if (nsid === "app.bsky.video.uploadVideo") {
      const bytes = await req.arrayBuffer();
      const digest = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)), (b) =>
        b.toString(16).padStart(2, "0"),
      ).join("");
      const processed = this.processedVideos.get(digest);
      if (processed) {
        return json(
          409,
          {
            error: "already_exists",
            message: "Video already processed",
            did: q.get("did") ?? "",
            blob: { $type: "blob", ref: { $link: processed }, mimeType: "video/mp4", size: bytes.byteLength },
          },
          this.rateHeaders(),
        );
      }
      const jobId = crypto.randomUUID();
      const blobCid = `bafkreivideo${jobId.replace(/-/g, "").slice(0, 20)}`;
      this.blobs.set(blobCid, { mimeType: "video/mp4", size: bytes.byteLength, bytes: new Uint8Array(bytes) });
      const did = q.get("did") ?? "";
      this.jobs.set(jobId, { polls: 0, blobCid, did });
      if (!this.videoFailure) this.processedVideos.set(digest, blobCid);
      return this.ok({ jobId, did, state: "JOB_STATE_CREATED", progress: 0 });
    }
    if (nsid === "app.bsky.video.getJobStatus") {
      const jobId = q.get("jobId") ?? "";
      const job = this.jobs.get(jobId);
      if (!job) return this.xrpcError(404, "NotFound", "Job not found");
      job.polls += 1;
      if (job.polls <= this.videoPollsBeforeDone) {
        return this.ok({ jobStatus: { jobId, did: job.did, state: "JOB_STATE_ENCODING", progress: 50 } });
      }
      if (this.videoFailure) {
        return this.ok({ jobStatus: { jobId, did: job.did, state: "JOB_STATE_FAILED", error: this.videoFailure } });
      }
      const blob = { $type: "blob", ref: { $link: job.blobCid }, mimeType: "video/mp4", size: 1 };
      return this.ok({ jobStatus: { jobId, did: job.did, state: "JOB_STATE_COMPLETED", progress: 100, blob } });
    }
    return this.xrpcError(404, "MethodNotImplemented", "Method Not Implemented");
  }
}
