import { type CreateSent, couldNotConfirm, LOOKUP_SKEW_MS, savedState, saveState } from "../checkpoint";
import { readJson } from "../http";
import { refreshedFromTokenResponse } from "../oauth";
import { registerAdapter } from "../registry";
import {
  type AdapterAccount,
  type AdapterContext,
  type AdapterMedia,
  MetricsUnavailable,
  type PlatformAdapter,
  PlatformError,
  type PublishRequest,
  type PublishResult,
} from "../types";
import { fixedChunks, x, xError, xRaw } from "./api";
import { comparableText, mediaPlan, metricsFromPublic, tweetBody, tweetUrl } from "./transform";
import type {
  CreateTweetResponse,
  MediaUploadResponse,
  ProcessingInfo,
  TokenResponse,
  TweetLookupResponse,
  UserTweetsResponse,
} from "./types";

const CHUNK_BYTES = 1024 * 1024;
const STATUS_POLL_MAX = 120;
/** The smallest page X's user timeline allows (5–100): the look-up reads as little as it can. */
const LOOKUP_MAX_RESULTS = "5";

function tokenOf(account: AdapterAccount): string {
  const token = account.credentials.access_token;
  if (!token) throw new PlatformError("auth", "The X access token is missing.");
  return token;
}

async function uploadSimple(actx: AdapterContext, token: string, m: AdapterMedia, category: string) {
  const form = new FormData();
  form.append("media", new Blob([await actx.readMedia(m)], { type: m.mimeType }), m.originalFilename || "media");
  form.append("media_category", category);
  form.append("media_type", m.mimeType);
  const out = await x<MediaUploadResponse>(actx, { path: "/2/media/upload", token, form });
  if (!out.data?.id) throw new PlatformError("transient", "X returned no media id.");
  return out.data.id;
}

/** initialize → append (1 MiB segments streamed from storage) → finalize → status polls until succeeded. */
async function uploadChunked(actx: AdapterContext, token: string, m: AdapterMedia, category: string) {
  const { body, size } = await actx.openMedia(m);
  const init = await x<MediaUploadResponse>(actx, {
    path: "/2/media/upload/initialize",
    token,
    json: { media_type: m.mimeType, total_bytes: size, media_category: category },
  });
  const id = init.data?.id;
  if (!id) throw new PlatformError("transient", "X returned no media id.");
  let segment = 0;
  for await (const chunk of fixedChunks(body, CHUNK_BYTES)) {
    const form = new FormData();
    form.append("segment_index", String(segment++));
    form.append("media", new Blob([chunk], { type: "application/octet-stream" }), "chunk");
    await x(actx, { path: `/2/media/upload/${id}/append`, token, form, timeoutMs: 120_000 });
  }
  const fin = await x<MediaUploadResponse>(actx, { path: `/2/media/upload/${id}/finalize`, token, method: "POST" });
  await waitForProcessing(actx, token, id, fin.data?.processing_info);
  return id;
}

async function waitForProcessing(actx: AdapterContext, token: string, id: string, initial?: ProcessingInfo) {
  let info = initial;
  for (let poll = 0; info && poll < STATUS_POLL_MAX; poll++) {
    if (info.state === "succeeded") return;
    if (info.state === "failed") {
      throw new PlatformError("permanent", `X could not process the media: ${info.error?.message ?? "failed"}`);
    }
    await actx.sleep(Math.max(1, info.check_after_secs ?? 1) * 1000);
    const status = await x<MediaUploadResponse>(actx, {
      path: "/2/media/upload",
      token,
      query: { command: "STATUS", media_id: id },
    });
    info = status.data?.processing_info;
  }
  // No processing_info means ready; still processing after the last poll is worth a later retry.
  if (info && info.state !== "succeeded") throw new PlatformError("transient", "X is still processing the media.");
}

/**
 * X has no idempotency key and its create answer is the only handle. Before the create call the adapter saves
 * "sent at T" (cleared again when X answers with a definite refusal); a retry after that looks at the account's own posts since T (start_time, one page of 5, no
 * replies/retweets) for the same text (links ignored: X rewrites them). A reply (thread item, first comment) is
 * looked for among the account's replies too, and must answer the same parent (`referenced_tweets` replied_to).
 * Returns null when there is none, and "unknown" when X will not let the app look (403 on access tiers without read
 * access) or the account id is missing.
 */
async function findSentTweet(
  actx: AdapterContext,
  req: PublishRequest,
  sentAt: number,
): Promise<PublishResult | null | "unknown"> {
  const userId = req.account.platformUserId;
  if (!userId) return "unknown";
  const parentId = req.replyTo?.parent.platformPostId;
  const res = await xRaw(actx, {
    path: `/2/users/${encodeURIComponent(userId)}/tweets`,
    token: tokenOf(req.account),
    query: {
      start_time: new Date(sentAt - LOOKUP_SKEW_MS).toISOString().replace(/\.\d{3}Z$/, "Z"),
      max_results: LOOKUP_MAX_RESULTS,
      exclude: parentId ? "retweets" : "retweets,replies",
      "tweet.fields": parentId ? "created_at,referenced_tweets" : "created_at",
    },
  });
  if (res.status === 403) {
    await res.body?.cancel();
    return "unknown";
  }
  if (!res.ok) throw await xError(res, actx.now());
  const out = (await readJson<UserTweetsResponse>(res)) ?? {};
  const wanted = comparableText(req.content);
  const answersParent = (t: NonNullable<UserTweetsResponse["data"]>[number]) =>
    !parentId || (t.referenced_tweets ?? []).some((r) => r.type === "replied_to" && r.id === parentId);
  const match = out.data?.find((t) => comparableText(t.text) === wanted && answersParent(t));
  return match ? { platformPostId: match.id, platformUrl: tweetUrl(req.account.username, match.id) } : null;
}

export const xAdapter: PlatformAdapter = {
  platform: "x",

  async publish(actx, req) {
    const token = tokenOf(req.account);
    const sent = savedState<CreateSent>(req);
    if (sent?.create_sent_at) {
      // An earlier attempt sent the create call and lost its answer: the post may exist.
      const found = await findSentTweet(actx, req, sent.create_sent_at);
      if (found === "unknown") throw couldNotConfirm("X", req.replyTo ? "reply" : "post");
      if (found) return found;
    }
    const mediaIds: string[] = [];
    for (const m of req.media) {
      const plan = mediaPlan(m.type, m.mimeType);
      const id = plan.chunked
        ? await uploadChunked(actx, token, m, plan.category)
        : await uploadSimple(actx, token, m, plan.category);
      // Issue 29: an image's (or GIF's) alt text, set on the uploaded media before the post names it
      // (docs.x.com/x-api/media/metadata-create: `POST /2/media/metadata`, `alt_text.text`, at most 1,000 characters).
      if (m.alt && m.type === "image") {
        await x(actx, { path: "/2/media/metadata", token, json: { id, metadata: { alt_text: { text: m.alt } } } });
      }
      mediaIds.push(id);
    }
    await saveState(req, { create_sent_at: actx.now() } satisfies CreateSent);
    const out = await x<CreateTweetResponse>(actx, {
      path: "/2/tweets",
      token,
      json: tweetBody(req.content, mediaIds, req.replyTo?.parent.platformPostId),
    }).catch(async (err: unknown) => {
      // A definite answer (4xx, 429 included) means X made nothing: the next attempt need not look (a timeline
      // read costs a request and, on pay-per-use, credits). Only an unknown outcome — no answer, a timeout, a 5xx —
      // keeps "sent at T". If clearing fails, the next attempt merely looks once more.
      if (err instanceof PlatformError && err.status !== undefined && err.status < 500) {
        await saveState(req, {}).catch(() => {});
      }
      throw err;
    });
    if (!out.data?.id) throw new PlatformError("transient", "X returned no post id.");
    return { platformPostId: out.data.id, platformUrl: tweetUrl(req.account.username, out.data.id) };
  },

  async refresh(actx, account) {
    const { refresh_token: refreshToken } = account.credentials;
    const clientId = actx.config.X_CLIENT_ID;
    if (!refreshToken || !clientId)
      throw new PlatformError("auth", "X sessions cannot be renewed without a refresh token.");
    const headers: Record<string, string> = {
      "Content-Type": "application/x-www-form-urlencoded",
      Accept: "application/json",
    };
    if (actx.config.X_CLIENT_SECRET)
      headers.Authorization = `Basic ${btoa(`${clientId}:${actx.config.X_CLIENT_SECRET}`)}`;
    const res = await xRawToken(
      actx,
      headers,
      new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId }),
    );
    if (res.status === 429 || res.status >= 500) throw await xError(res, actx.now());
    const body = await readJson<TokenResponse>(res);
    if (!res.ok || !body?.access_token) {
      throw new PlatformError(
        "auth",
        `X refused to refresh the token: ${body?.error_description ?? body?.error ?? `HTTP ${res.status}`}`,
      );
    }
    // X rotates refresh tokens: the new one is kept.
    return refreshedFromTokenResponse(body, account.credentials, actx.now());
  },

  async metrics(actx, req) {
    const out = await x<TweetLookupResponse>(actx, {
      path: `/2/tweets/${encodeURIComponent(req.platformPostId)}`,
      token: tokenOf(req.account),
      query: { "tweet.fields": "public_metrics" },
    }).catch((err) => {
      // Tiers without read access (Free) may post but not read: 403 client-not-enrolled on every lookup.
      if (err instanceof PlatformError && err.status === 403) {
        throw new MetricsUnavailable("platform_access_denied", `X does not let this app read posts: ${err.message}`);
      }
      throw err;
    });
    if (!out.data?.public_metrics) {
      throw new PlatformError("permanent", `X did not return the post: ${out.errors?.[0]?.detail ?? "not found"}`);
    }
    return metricsFromPublic(out.data.public_metrics);
  },
};

function xRawToken(actx: AdapterContext, headers: Record<string, string>, form: URLSearchParams) {
  return actx
    .fetch(`${actx.config.X_API_URL}/2/oauth2/token`, {
      method: "POST",
      headers,
      body: form.toString(),
      signal: AbortSignal.timeout(30_000),
    })
    .catch(() => {
      throw new PlatformError("transient", "X could not be reached.");
    });
}

registerAdapter(xAdapter);
