import { guardedPlatformFetch, readJson } from "../http";
import { registerAdapter } from "../registry";
import {
  type AdapterAccount,
  type AdapterContext,
  type AdapterMedia,
  type PlatformAdapter,
  PlatformError,
  type PublishRequest,
  type PublishResult,
  type RefreshedCredentials,
} from "../types";
import { xrpc, xrpcError, xrpcErrorFrom, xrpcRaw } from "./api";
import {
  atUri,
  buildFacets,
  type DetectedFacet,
  detectFacets,
  imagesEmbed,
  jwtExpiresAt,
  metricsFromPostView,
  parseAtUri,
  postRecord,
  postUrl,
  tidFromRowId,
  videoEmbed,
} from "./transform";
import type {
  BlobRef,
  CreateRecordResponse,
  DidDocument,
  Embed,
  GetRecordResponse,
  JobStatus,
  PostView,
  ReplyRef,
  Session,
  StrongRef,
  XrpcErrorBody,
} from "./types";

const DEFAULT_SERVICE = "https://bsky.social";
const DEFAULT_VIDEO_SERVICE = "https://video.bsky.app";
const COLLECTION = "app.bsky.feed.post";
const MAX_IMAGES = 4;
const VIDEO_POLL_INTERVAL_MS = 2_000;
const VIDEO_POLL_MAX = 150;
const VIDEO_UPLOAD_TIMEOUT_MS = 5 * 60_000;

interface BskySession {
  service: string;
  did: string;
  token: string;
}

const trimSlash = (s: string) => s.replace(/\/+$/, "");

/** The account's PDS (meta.service, set when connected), its DID and the current access JWT. */
function sessionOf(account: AdapterAccount): BskySession {
  const service = trimSlash(String(account.meta.service ?? DEFAULT_SERVICE));
  const did = String(account.meta.did ?? account.platformUserId ?? "");
  const token = account.credentials.access_jwt;
  if (!did || !token) throw new PlatformError("auth", "The Bluesky session is missing.");
  return { service, did, token };
}

const actorOf = (account: AdapterAccount, did: string) => (account.username.includes(".") ? account.username : did);

/** A published post; `replyRef.cid` is what a later reply's strong refs need besides the uri. */
function result(account: AdapterAccount, did: string, uri: string, cid: string | undefined): PublishResult {
  const out: PublishResult = { platformPostId: uri, platformUrl: postUrl(actorOf(account, did), uri) };
  if (cid) out.replyRef = { cid };
  return out;
}

async function resolveMentions(actx: AdapterContext, s: BskySession, detected: DetectedFacet[]) {
  const handles = [...new Set(detected.flatMap((d) => (d.kind === "mention" ? [d.handle] : [])))];
  const dids = new Map<string, string>();
  await Promise.all(
    handles.map(async (handle) => {
      const res = await xrpcRaw(actx, {
        host: s.service,
        nsid: "com.atproto.identity.resolveHandle",
        query: { handle },
      });
      if (res.ok) {
        const body = await readJson<{ did?: string }>(res);
        if (body?.did) dids.set(handle, body.did);
        return;
      }
      // An unknown handle stays plain text; a throttled or failing server is worth a retry.
      if (res.status === 400 || res.status === 404) return;
      throw await xrpcError(res, actx.now());
    }),
  );
  return dids;
}

async function uploadImage(actx: AdapterContext, s: BskySession, m: AdapterMedia): Promise<BlobRef> {
  const bytes = await actx.readMedia(m);
  const out = await xrpc<{ blob: BlobRef }>(actx, {
    host: s.service,
    nsid: "com.atproto.repo.uploadBlob",
    token: s.token,
    body: bytes,
    contentType: m.mimeType,
  });
  return out.blob;
}

/** Video goes through the video service (transcoded playlist): service auth → uploadVideo → job status polls. */
async function uploadVideo(actx: AdapterContext, account: AdapterAccount, s: BskySession, m: AdapterMedia) {
  const videoHost = trimSlash(String(account.meta.video_service ?? DEFAULT_VIDEO_SERVICE));
  const { token: serviceToken } = await xrpc<{ token: string }>(actx, {
    host: s.service,
    nsid: "com.atproto.server.getServiceAuth",
    token: s.token,
    query: {
      // The video service checks the token was made for the account's own PDS, which is not the entryway
      // (bsky.social) the session may have been opened on: the DID document names it.
      aud: `did:web:${new URL(await actualPds(actx, s)).host}`,
      lxm: "com.atproto.repo.uploadBlob",
      exp: String(Math.floor(actx.now() / 1000) + 30 * 60),
    },
  });
  const { body } = await actx.openMedia(m);
  const res = await xrpcRaw(actx, {
    host: videoHost,
    nsid: "app.bsky.video.uploadVideo",
    method: "POST",
    token: serviceToken,
    query: { did: s.did, name: `${m.id}.mp4` },
    body,
    contentType: m.mimeType,
    timeoutMs: VIDEO_UPLOAD_TIMEOUT_MS,
  });
  const raw = (await readJson<Record<string, unknown>>(res)) ?? {};
  let job: JobStatus | undefined = (raw.jobStatus as JobStatus | undefined) ?? (raw as unknown as JobStatus);
  // A video the service already processed (a retry, or the same file posted again) answers `already_exists`
  // with its blob: that blob is the video. Without a blob, the existing job is followed instead.
  const existingBlob = job?.blob ?? (raw.blob as BlobRef | undefined);
  if (raw.error === "already_exists" && existingBlob) return existingBlob;
  if (!res.ok && !((res.status === 409 || raw.error === "already_exists") && job?.jobId)) {
    throw xrpcErrorFrom(res.status, res.headers, raw as XrpcErrorBody, actx.now());
  }
  for (let poll = 0; job && poll < VIDEO_POLL_MAX; poll++) {
    if (job.state === "JOB_STATE_COMPLETED" && job.blob) return job.blob;
    if (job.state === "JOB_STATE_FAILED") {
      throw new PlatformError(
        "permanent",
        `Bluesky could not process the video: ${job.error ?? job.message ?? "failed"}`,
      );
    }
    await actx.sleep(VIDEO_POLL_INTERVAL_MS);
    const status: { jobStatus: JobStatus } = await xrpc<{ jobStatus: JobStatus }>(actx, {
      host: videoHost,
      nsid: "app.bsky.video.getJobStatus",
      token: serviceToken,
      query: { jobId: job.jobId },
    });
    job = status.jobStatus;
  }
  throw new PlatformError("transient", "Bluesky is still processing the video.");
}

/**
 * The account's actual PDS, from its DID document (did:plc via BLUESKY_PLC_URL, did:web via the host's
 * `/.well-known/did.json`): the `#atproto_pds` service. Falls back to the session's service when the document
 * names none; a directory that is down or throttling is worth a retry.
 */
async function actualPds(actx: AdapterContext, s: BskySession): Promise<string> {
  let url: string | null = null;
  if (/^did:plc:[a-z0-9]+$/.test(s.did)) url = `${actx.config.BLUESKY_PLC_URL}/${s.did}`;
  else if (/^did:web:[a-z0-9.-]+$/i.test(s.did)) url = `https://${s.did.slice("did:web:".length)}/.well-known/did.json`;
  if (!url) return s.service;
  const res = await guardedPlatformFetch(actx, "Bluesky", url, { headers: { accept: "application/json" } });
  if (res.status === 429 || res.status >= 500) {
    await res.body?.cancel();
    throw new PlatformError("transient", `The Bluesky identity directory is unavailable (HTTP ${res.status}).`, {
      status: res.status,
    });
  }
  const doc = await readJson<DidDocument>(res);
  if (!res.ok) return s.service;
  const pds = doc?.service?.find(
    (svc) =>
      (svc.id === "#atproto_pds" || svc.id === `${s.did}#atproto_pds`) && typeof svc.serviceEndpoint === "string",
  )?.serviceEndpoint;
  try {
    return pds ? new URL(pds).origin : s.service;
  } catch {
    return s.service;
  }
}

async function buildEmbed(actx: AdapterContext, req: PublishRequest, s: BskySession): Promise<Embed | undefined> {
  if (req.media.length === 0) return undefined;
  const videos = req.media.filter((m) => m.type === "video");
  const images = req.media.filter((m) => m.type === "image");
  if (videos.length > 1 || (videos.length === 1 && images.length > 0) || images.length > MAX_IMAGES) {
    throw new PlatformError("permanent", "Bluesky posts take up to four images or one video.");
  }
  const video = videos[0];
  if (video) return videoEmbed(await uploadVideo(actx, req.account, s, video), video.width, video.height, video.alt);
  const blobs = [];
  for (const m of images) {
    blobs.push({ blob: await uploadImage(actx, s, m), width: m.width, height: m.height, alt: m.alt });
  }
  return imagesEmbed(blobs);
}

/** `getRecord` on the account's repo: the record (uri + cid), or null when it does not exist. */
async function readRecord(
  actx: AdapterContext,
  s: BskySession,
  repo: string,
  collection: string,
  rkey: string,
): Promise<GetRecordResponse | null> {
  const res = await xrpcRaw(actx, {
    host: s.service,
    nsid: "com.atproto.repo.getRecord",
    token: s.token,
    query: { repo, collection, rkey },
  });
  if (res.ok)
    return (await readJson<GetRecordResponse>(res)) ?? { uri: `at://${repo}/${collection}/${rkey}`, value: {} };
  const body = (await readJson<XrpcErrorBody>(res)) ?? {};
  if (body.error === "RecordNotFound" || res.status === 404) return null;
  throw xrpcErrorFrom(res.status, res.headers, body, actx.now());
}

async function getExisting(actx: AdapterContext, req: PublishRequest): Promise<PublishResult | null> {
  const s = sessionOf(req.account);
  const rkey = tidFromRowId(req.postPlatformId);
  const found = await readRecord(actx, s, s.did, COLLECTION, rkey);
  return found ? result(req.account, s.did, found.uri ?? atUri(s.did, rkey), found.cid) : null;
}

/**
 * The strong ref (uri + cid) of a post a reply points at: the cid kept with the published result (`replyRef`),
 * else read back with getRecord (a post published before replies existed kept no cid).
 */
async function strongRef(actx: AdapterContext, s: BskySession, post: PublishResult): Promise<StrongRef> {
  const uri = post.platformPostId;
  const kept = post.replyRef?.cid;
  if (typeof kept === "string" && kept) return { uri, cid: kept };
  const parts = parseAtUri(uri);
  if (!parts) throw new PlatformError("permanent", `Bluesky cannot reply to ${uri}: it is not a post address.`);
  const found = await readRecord(actx, s, parts.repo, parts.collection, parts.rkey);
  if (!found?.cid) {
    throw new PlatformError("permanent", "The Bluesky post this reply answers no longer exists.", { status: 400 });
  }
  return { uri: found.uri ?? uri, cid: found.cid };
}

async function replyRefOf(
  actx: AdapterContext,
  s: BskySession,
  replyTo: PublishRequest["replyTo"],
): Promise<ReplyRef | undefined> {
  if (!replyTo) return undefined;
  const root = await strongRef(actx, s, replyTo.root);
  const parent =
    replyTo.parent.platformPostId === replyTo.root.platformPostId ? root : await strongRef(actx, s, replyTo.parent);
  return { root, parent };
}

function refreshedFrom(account: AdapterAccount, session: Session): RefreshedCredentials {
  return {
    credentials: { ...account.credentials, access_jwt: session.accessJwt, refresh_jwt: session.refreshJwt },
    expiresAt: jwtExpiresAt(session.accessJwt),
  };
}

export const blueskyAdapter: PlatformAdapter = {
  platform: "bluesky",

  async publish(actx, req) {
    const s = sessionOf(req.account);
    const rkey = tidFromRowId(req.postPlatformId);
    const detected = detectFacets(req.content);
    const dids = await resolveMentions(actx, s, detected);
    // A reply (thread item, or a first comment given as a reply) names the thread's root and the post it answers.
    const reply = await replyRefOf(actx, s, req.replyTo);
    const embed = await buildEmbed(actx, req, s);
    const record = postRecord(req.content, actx.now(), buildFacets(detected, dids), embed, reply);
    try {
      const created = await xrpc<CreateRecordResponse>(actx, {
        host: s.service,
        nsid: "com.atproto.repo.createRecord",
        token: s.token,
        json: { repo: s.did, collection: COLLECTION, rkey, record },
      });
      return result(req.account, s.did, created.uri, created.cid);
    } catch (err) {
      // A record key that already exists answers 500, and a lost response looks the same: look before failing.
      if (err instanceof PlatformError && err.kind === "transient" && err.status && err.status >= 500) {
        const existing = await getExisting(actx, req).catch(() => null);
        if (existing) return existing;
      }
      throw err;
    }
  },

  findExisting: getExisting,

  async refresh(actx, account) {
    const service = trimSlash(String(account.meta.service ?? DEFAULT_SERVICE));
    const { refresh_jwt: refreshJwt, identifier, app_password: password } = account.credentials;
    if (refreshJwt) {
      const res = await xrpcRaw(actx, {
        host: service,
        nsid: "com.atproto.server.refreshSession",
        method: "POST",
        token: refreshJwt,
      });
      if (res.ok) return refreshedFrom(account, (await readJson<Session>(res))!);
      const err = await xrpcError(res, actx.now());
      if (err.kind !== "auth") throw err;
    }
    // The refresh JWT expired or was revoked: the stored app password opens a new session.
    if (identifier && password) {
      const res = await xrpcRaw(actx, {
        host: service,
        nsid: "com.atproto.server.createSession",
        json: { identifier, password },
      });
      if (res.ok) return refreshedFrom(account, (await readJson<Session>(res))!);
      const err = await xrpcError(res, actx.now());
      if (err.kind === "transient") throw err;
    }
    throw new PlatformError("auth", "Bluesky refused to renew the session.");
  },

  async metrics(actx, req) {
    const data = await xrpc<{ posts?: PostView[] }>(actx, {
      host: actx.config.BLUESKY_APPVIEW_URL,
      nsid: "app.bsky.feed.getPosts",
      query: { uris: [req.platformPostId] },
    });
    const post = data.posts?.find((p) => p.uri === req.platformPostId);
    if (!post) throw new PlatformError("permanent", "Bluesky did not return the post.");
    return metricsFromPostView(post);
  },
};

registerAdapter(blueskyAdapter);
