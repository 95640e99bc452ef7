import { registerAdapter } from "../registry";
import { type AdapterContext, type AdapterMedia, type PlatformAdapter, PlatformError } from "../types";
import { mastodon, mastodonError, mastodonRaw, streamingMultipart } from "./api";
import { instanceOf, metricsFromStatus, statusBody, statusUrl, visibilityOf } from "./transform";
import type { MediaAttachment, Status } from "./types";

const MEDIA_POLL_INTERVAL_MS = 1_000;
const MEDIA_POLL_MAX = 120;
const MEDIA_UPLOAD_TIMEOUT_MS = 5 * 60_000;

interface Session {
  instance: string;
  token: string;
}

function sessionOf(meta: Record<string, unknown>, token: string | undefined): Session {
  const instance = instanceOf(meta);
  if (!instance) throw new PlatformError("permanent", "The Mastodon account has no instance URL.");
  if (!token) throw new PlatformError("auth", "The Mastodon access token is missing.");
  return { instance, token };
}

/** `POST /api/v2/media`: 200 when processed at once, 202 (url null) while processing → poll until 200. */
async function uploadMedia(actx: AdapterContext, s: Session, m: AdapterMedia): Promise<string> {
  const { body: stream, size } = await actx.openMedia(m);
  // Issue 29: the alt text is the attachment's `description` (docs.joinmastodon.org/methods/media/#v2).
  const form = streamingMultipart(m.alt ? { description: m.alt } : {}, {
    field: "file",
    filename: m.originalFilename || m.path.split("/").pop()!,
    contentType: m.mimeType,
    body: stream,
    size,
  });
  const uploaded = await mastodon<MediaAttachment>(actx, {
    ...s,
    path: "/api/v2/media",
    method: "POST",
    body: form.body,
    headers: { "Content-Type": form.contentType },
    timeoutMs: MEDIA_UPLOAD_TIMEOUT_MS,
  });
  if (uploaded.status === 200 && uploaded.body.url) return uploaded.body.id;
  const id = uploaded.body.id;
  for (let poll = 0; poll < MEDIA_POLL_MAX; poll++) {
    await actx.sleep(MEDIA_POLL_INTERVAL_MS);
    const res = await mastodonRaw(actx, { ...s, path: `/api/v1/media/${encodeURIComponent(id)}` });
    if (res.status === 200) return id;
    if (res.status !== 206) throw await mastodonError(res, actx.now());
  }
  throw new PlatformError("transient", "Mastodon is still processing the media.");
}

export const mastodonAdapter: PlatformAdapter = {
  platform: "mastodon",

  async publish(actx, req) {
    const s = sessionOf(req.account.meta, req.account.credentials.access_token);
    const mediaIds: string[] = [];
    for (const m of req.media) mediaIds.push(await uploadMedia(actx, s, m));
    // The row id as Idempotency-Key: a retried POST returns the first status instead of posting twice. A thread
    // item or first comment is a reply (`in_reply_to_id` = the post it answers) keyed by its own item key, with the
    // row's visibility (req.meta is the row's meta for every item).
    const { body } = await mastodon<Status>(actx, {
      ...s,
      path: "/api/v1/statuses",
      json: statusBody(req.content, mediaIds, req.replyTo?.parent.platformPostId, visibilityOf(req.meta)),
      headers: { "Idempotency-Key": req.postPlatformId },
    });
    return { platformPostId: body.id, platformUrl: statusUrl(s.instance, req.account.username, body) };
  },

  async metrics(actx, req) {
    const s = sessionOf(req.account.meta, req.account.credentials.access_token);
    const { body } = await mastodon<Status>(actx, {
      ...s,
      path: `/api/v1/statuses/${encodeURIComponent(req.platformPostId)}`,
    });
    return metricsFromStatus(body);
  },
};

registerAdapter(mastodonAdapter);
