import type { Platform } from "../catalog/platforms";
import type { Config } from "../config";
import type { AccountCredentials } from "../services/social-accounts/credentials";

/**
 * The one interface every platform adapter implements. Adapters are pure request/response code against the
 * platform's real API (hosts from Config, so tests point them at fakes); they never touch D1. The publishing
 * engine (src/publishing) owns claiming, retries, status and persistence.
 */

export interface AdapterMedia {
  id: string;
  type: "image" | "video";
  mimeType: string;
  /** Public `{MEDIA_URL}/medias/<file>` address, for platforms that pull media by URL. */
  url: string;
  /** R2 key, `medias/<uuid>.<ext>`. */
  path: string;
  size: number | null;
  width: number | null;
  height: number | null;
  /** Videos: duration from the container (issue 16); null/absent when unknown. */
  durationSeconds?: number | null;
  originalFilename: string;
  /** Issue 29: the item's alt text (null/absent: none); adapters send it where the network takes one. */
  alt?: string | null;
}

export interface AdapterAccount {
  id: string;
  platform: Platform;
  platformUserId: string | null;
  username: string;
  displayName: string;
  meta: Record<string, unknown>;
  credentials: AccountCredentials;
}

export interface PublishRequest {
  /** Post-platform row id: stable across retries; use it for platform idempotency keys / record keys. */
  postPlatformId: string;
  contentType: string;
  content: string;
  media: AdapterMedia[];
  /** Row meta: Pinterest `board_id`, TikTok `privacy_level`, title, … */
  meta: Record<string, unknown>;
  account: AdapterAccount;
  /**
   * The "no post twice" checkpoint (docs/publishing.md): what an earlier attempt of this row saved, and how to
   * save before an irreversible call. Absent when an adapter is called outside the publish job (then nothing is
   * resumed or saved).
   */
  checkpoint?: PublishCheckpoint;
  /**
   * This delivery is the last one the queue makes: an adapter that would ask for a later re-check of a post the
   * network already accepted (TikTok in moderation) settles now instead.
   */
  finalAttempt?: boolean;
  /**
   * Issue 20: publish this request as a reply (a thread item, or a first comment on networks whose comments are
   * replies: X, Bluesky, Threads, Mastodon). `root` is the row's main post, `parent` the item it answers (the main
   * post for the first item). `postPlatformId` is then the item's own stable key (`<row id>:t<n>` / `<row id>:c`),
   * so derived record keys and idempotency keys differ per item, and `checkpoint` is the item's own.
   */
  replyTo?: { root: PublishResult; parent: PublishResult };
}

/** JSON the adapter chooses; kept on the row (`publish_state`) until it settles. */
export type PublishState = Record<string, unknown>;

export interface PublishCheckpoint {
  /** What the last attempt of this same request saved, or null (first attempt, or the post was edited since). */
  readonly saved: PublishState | null;
  /**
   * Durably records `state` (replacing what was saved) before the adapter makes a call it cannot take back.
   * Throws when this delivery no longer holds the row's claim, so a stale delivery never makes that call.
   */
  save(state: PublishState): Promise<void>;
}

export interface PublishResult {
  platformPostId: string;
  platformUrl: string | null;
  /**
   * What a later reply under this post needs besides its id, chosen by the adapter and stored with the result
   * (Bluesky: `{cid}`, for `reply.root` / `reply.parent` strong refs). Absent when the id is enough.
   */
  replyRef?: Record<string, unknown>;
}

/**
 * Issue 20: a comment under a published post, on networks where a comment is not a post of the account's own
 * (Facebook, Instagram, LinkedIn, YouTube). Networks without `comment` get their first comment as a reply
 * (`PublishRequest.replyTo`).
 */
export interface CommentRequest {
  /** Stable key of this comment (`<row id>:c`), for idempotency / lookups across retries. */
  key: string;
  /** The row's published post. */
  on: PublishResult;
  contentType: string;
  content: string;
  meta: Record<string, unknown>;
  account: AdapterAccount;
  /** The comment's own checkpoint (same contract as PublishRequest.checkpoint). */
  checkpoint?: PublishCheckpoint;
}

export interface MetricsRequest {
  platformPostId: string;
  platformUrl: string | null;
  contentType: string;
  account: AdapterAccount;
}

export interface Metric {
  label: string;
  value: number;
}

/** New credentials after a refresh; the engine seals and stores them and updates `token_expires_at`. */
export interface RefreshedCredentials {
  credentials: AccountCredentials;
  /** Epoch ms, or null for tokens that do not expire. */
  expiresAt: number | null;
}

export interface AdapterContext {
  config: Config;
  /** Outbound HTTP; always use this, never the global, so the engine can time out and trace calls. */
  fetch: typeof fetch;
  /** Streams a stored media object's bytes from R2 (for platforms that take uploads). */
  openMedia: (media: AdapterMedia) => Promise<{ body: ReadableStream<Uint8Array>; size: number }>;
  /** Reads a stored media object whole (small images only). */
  readMedia: (media: AdapterMedia) => Promise<Uint8Array>;
  now: () => number;
  /** Waits between polls of asynchronous processing; tests make it instant. */
  sleep: (ms: number) => Promise<void>;
}

export interface PlatformAdapter {
  platform: Platform;
  publish(ctx: AdapterContext, req: PublishRequest): Promise<PublishResult>;
  /**
   * Before a retry of a row that may already have reached the network (it was claimed before), returns the
   * existing post if the platform can tell (Bluesky getRecord on the derived record key), else null.
   */
  findExisting?(ctx: AdapterContext, req: PublishRequest): Promise<PublishResult | null>;
  /** Posts a comment under a published post (Facebook, Instagram, LinkedIn, YouTube). See CommentRequest. */
  comment?(ctx: AdapterContext, req: CommentRequest): Promise<PublishResult>;
  /** Refreshes the account's token; throws PlatformError kind "auth" when the platform refuses. */
  refresh?(ctx: AdapterContext, account: AdapterAccount): Promise<RefreshedCredentials>;
  /** Post-level metrics with the labels of decisions §11. Absent for tiktok and linkedin. */
  metrics?(ctx: AdapterContext, req: MetricsRequest): Promise<Metric[]>;
}

/**
 * Thrown by an adapter's `metrics` when the network will not give this app the post's metrics (X on an access tier
 * without read access): the entry says `{unsupported: true, reason}` instead of `api_error` (docs/metrics.md).
 */
export class MetricsUnavailable extends Error {
  constructor(
    readonly reason: "platform_access_denied",
    message: string,
  ) {
    super(message);
    this.name = "MetricsUnavailable";
  }
}

/**
 * How a platform call failed:
 * - `transient`: network, timeout, 5xx, 429 or the platform's throttle signal → retry with backoff
 *   (`retryAfterSeconds` from Retry-After / reset headers / Meta usage headers when given);
 * - `permanent`: the platform refused the content or request → fail the row at once;
 * - `auth`: the token was rejected or expired → refresh once, then fail with "session expired".
 * `message` is the platform's reason in plain words (never a token).
 */
export type PlatformErrorKind = "transient" | "permanent" | "auth";

export class PlatformError extends Error {
  readonly kind: PlatformErrorKind;
  readonly retryAfterSeconds?: number;
  readonly status?: number;
  /**
   * The network refused the account a permission it needs (a revoked scope, a Page role removed): only a reconnect
   * that grants it again helps. The publish job marks the account `needs_reconnect` (docs/account-health.md).
   */
  readonly needsReconnect: boolean;
  constructor(
    kind: PlatformErrorKind,
    message: string,
    opts: { retryAfterSeconds?: number; status?: number; needsReconnect?: boolean } = {},
  ) {
    super(message);
    this.name = "PlatformError";
    this.kind = kind;
    this.retryAfterSeconds = opts.retryAfterSeconds;
    this.status = opts.status;
    this.needsReconnect = opts.needsReconnect === true;
  }
}
