import { fakeOrigin } from "../fake-fetch";
import { json, ScriptedFake } from "./scripted";

/**
 * A Mastodon instance that answers like the real one (platforms.md §12): `{"error": "..."}` bodies, 401 for a bad
 * token, `X-RateLimit-*` headers on every response with the reset as ISO 8601, media that is processed at once
 * (images, 200) or asynchronously (video, 202 then 206 on polls, then 200), 422 when a status attaches unprocessed
 * media or exceeds the instance's limit (`maxCharacters`, 500; graphemes, URLs count 23; GET /api/v2/instance says so), and `Idempotency-Key` returning the first status.
 */
export const MASTODON = "https://mastodon.fake";

interface StoredMedia {
  id: string;
  type: "image" | "video";
  pollsLeft: number;
  size: number;
  filename: string;
  /** The file as received. */
  bytes: Uint8Array;
  /** Issue 29: the alt text sent as the form's `description`. */
  description: string | null;
}

interface StoredStatus {
  id: string;
  text: string;
  media_ids: string[];
  visibility: string;
  in_reply_to_id: string | null;
  created_at: string;
  favourites_count: number;
  reblogs_count: number;
  replies_count: number;
}

export class FakeMastodon extends ScriptedFake {
  /** The instance's origin: MASTODON unless a test runs several instances. */
  origin = MASTODON;
  readonly tokens = new Set(["masto-token"]);
  readonly media = new Map<string, StoredMedia>();
  readonly statuses = new Map<string, StoredStatus>();
  readonly idempotency = new Map<string, string>();
  accountId = "109000000000000001";
  username = "alice";
  /** The instance's `configuration.statuses` (GET /api/v2/instance); the status limit follows it. */
  maxCharacters = 500;
  charactersReservedPerUrl = 23;
  /** The instance's `configuration.media_attachments` (Mastodon's defaults); uploads over them are refused. */
  imageSizeLimit = 16 * 1024 * 1024;
  imageMatrixLimit = 33_177_600;
  videoSizeLimit = 99 * 1024 * 1024;
  videoMatrixLimit = 8_294_400;
  /** `media_attachments.description_limit`: the longest alt text (`description`) the instance takes. */
  descriptionLimit = 1500;
  /** GET /api/v1/media/:id answers 206 this many times for a video before 200. */
  videoProcessingPolls = 2;
  private nextId = 110000000000000000n;

  install(): () => void {
    return fakeOrigin(this.origin, (req) => this.handle(req));
  }

  private headers(): Record<string, string> {
    return {
      "X-RateLimit-Limit": "300",
      "X-RateLimit-Remaining": "299",
      "X-RateLimit-Reset": new Date(Date.now() + 5 * 60_000).toISOString(),
    };
  }

  private respond(status: number, body: unknown) {
    return json(status, body, this.headers());
  }

  /** 429 as Mastodon sends it: no Retry-After, the reset as an ISO 8601 timestamp. */
  rateLimited(resetInSeconds: number) {
    return () =>
      json(
        429,
        { error: "Too many requests" },
        {
          "X-RateLimit-Limit": "300",
          "X-RateLimit-Remaining": "0",
          "X-RateLimit-Reset": new Date(Date.now() + resetInSeconds * 1000).toISOString(),
        },
      );
  }

  unavailable(status = 503) {
    return () =>
      new Response("<html><body>503 Service Unavailable</body></html>", {
        status,
        headers: { "content-type": "text/html" },
      });
  }

  private id(): string {
    this.nextId += 1n;
    return String(this.nextId);
  }

  private statusJson(s: StoredStatus) {
    return {
      id: s.id,
      uri: `${this.origin}/users/${this.username}/statuses/${s.id}`,
      url: `${this.origin}/@${this.username}/${s.id}`,
      created_at: s.created_at,
      content: `<p>${s.text}</p>`,
      visibility: s.visibility,
      in_reply_to_id: s.in_reply_to_id,
      in_reply_to_account_id: s.in_reply_to_id ? this.accountId : null,
      media_attachments: s.media_ids.map((id) => this.mediaJson(this.media.get(id)!)),
      reblogs_count: s.reblogs_count,
      favourites_count: s.favourites_count,
      replies_count: s.replies_count,
      account: { id: this.accountId, username: this.username, acct: this.username },
    };
  }

  private mediaJson(m: StoredMedia) {
    const ready = m.pollsLeft <= 0;
    return {
      id: m.id,
      type: m.type,
      url: ready ? `${this.origin}/system/media/${m.id}/${m.filename}` : null,
      preview_url: `${this.origin}/system/media/${m.id}/small.jpg`,
      description: null,
      blurhash: null,
    };
  }

  async handle(req: Request): Promise<Response> {
    const { key, url } = this.log(req);
    const scripted = this.scriptedFor(key);
    if (scripted) return scripted(req);
    // Public: no token needed (Mastodon docs, GET /api/v2/instance; trimmed to what matters here).
    if (key === "GET /api/v2/instance") {
      return this.respond(200, {
        domain: "mastodon.fake",
        title: "Mastodon Fake",
        version: "4.5.0",
        configuration: {
          urls: { streaming: "wss://mastodon.fake" },
          accounts: { max_featured_tags: 10, max_pinned_statuses: 5 },
          statuses: {
            max_characters: this.maxCharacters,
            max_media_attachments: 4,
            characters_reserved_per_url: this.charactersReservedPerUrl,
          },
          media_attachments: {
            supported_mime_types: [
              "image/jpeg",
              "image/png",
              "image/gif",
              "image/webp",
              "video/mp4",
              "video/quicktime",
            ],
            description_limit: this.descriptionLimit,
            image_size_limit: this.imageSizeLimit,
            image_matrix_limit: this.imageMatrixLimit,
            video_size_limit: this.videoSizeLimit,
            video_frame_rate_limit: 120,
            video_matrix_limit: this.videoMatrixLimit,
          },
        },
      });
    }
    const token = req.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
    if (!this.tokens.has(token)) return this.respond(401, { error: "The access token is invalid" });

    if (key === "GET /api/v1/accounts/verify_credentials") {
      return this.respond(200, {
        id: this.accountId,
        username: this.username,
        acct: this.username,
        display_name: "Alice",
        avatar: `${this.origin}/avatars/alice.png`,
      });
    }
    if (key === "POST /api/v2/media") {
      const form = await req.formData();
      const file = form.get("file");
      if (!(file instanceof File)) return this.respond(422, { error: "Validation failed: File can't be blank" });
      const type = file.type.startsWith("video/") ? "video" : "image";
      // MediaAttachment IMAGE_LIMIT / VIDEO_LIMIT (defaults 16 MB images, 99 MB videos; the instance's own here).
      const limit = type === "video" ? this.videoSizeLimit : this.imageSizeLimit;
      if (file.size > limit) {
        const mb = Math.round(limit / 1024 / 1024);
        return this.respond(422, { error: `Validation failed: File file size must be less than ${mb} MB` });
      }
      // docs.joinmastodon.org/methods/media/#v2: `description` is the alt text, at most the instance's
      // `media_attachments.description_limit` characters (1,500 by default); longer is a 422.
      const description = form.get("description");
      if (typeof description === "string" && [...description].length > this.descriptionLimit) {
        return this.respond(422, {
          error: `Validation failed: Description is too long (maximum is ${this.descriptionLimit} characters)`,
        });
      }
      const m: StoredMedia = {
        id: this.id(),
        type,
        pollsLeft: type === "video" ? this.videoProcessingPolls : 0,
        size: file.size,
        filename: file.name,
        bytes: new Uint8Array(await file.arrayBuffer()),
        description: typeof description === "string" && description !== "" ? description : null,
      };
      this.media.set(m.id, m);
      return this.respond(m.pollsLeft > 0 ? 202 : 200, this.mediaJson(m));
    }
    const mediaMatch = /^\/api\/v1\/media\/(\w+)$/.exec(url.pathname);
    if (req.method === "GET" && mediaMatch) {
      const m = this.media.get(mediaMatch[1]!);
      if (!m) return this.respond(404, { error: "Record not found" });
      m.pollsLeft -= 1;
      return this.respond(m.pollsLeft > 0 ? 206 : 200, this.mediaJson(m));
    }
    if (key === "POST /api/v1/statuses") {
      const idem = req.headers.get("idempotency-key");
      if (idem && this.idempotency.has(idem)) {
        return this.respond(200, this.statusJson(this.statuses.get(this.idempotency.get(idem)!)!));
      }
      const body = (await req.json()) as {
        status?: string;
        media_ids?: string[];
        visibility?: string;
        in_reply_to_id?: string;
      };
      // StatusesController#set_thread: a reply to a status that does not exist (or is not visible) is a 404.
      const thread = body.in_reply_to_id ? this.statuses.get(body.in_reply_to_id) : undefined;
      if (body.in_reply_to_id && !thread) {
        return this.respond(404, { error: "The post you are trying to reply to does not appear to exist." });
      }
      // docs.joinmastodon.org/methods/statuses/#create: `visibility` is public, unlisted, private or direct
      // (absent: the account's default, public here); anything else is refused.
      const visibility = body.visibility ?? "public";
      if (!["public", "unlisted", "private", "direct"].includes(visibility)) {
        return this.respond(422, { error: "Validation failed: Visibility is not included in the list" });
      }
      const text = body.status ?? "";
      const mediaIds = body.media_ids ?? [];
      if (!text && mediaIds.length === 0) return this.respond(422, { error: "Validation failed: Text can't be blank" });
      // StatusLengthValidator: grapheme clusters, each URL as characters_reserved_per_url.
      const countable = text.replace(/https?:\/\/\S+/g, "x".repeat(this.charactersReservedPerUrl));
      const length = [...new Intl.Segmenter("en", { granularity: "grapheme" }).segment(countable)].length;
      if (length > this.maxCharacters) {
        return this.respond(422, {
          error: `Validation failed: Text character limit of ${this.maxCharacters} exceeded`,
        });
      }
      for (const id of mediaIds) {
        const m = this.media.get(id);
        if (!m) return this.respond(422, { error: "Validation failed: Media ids are invalid" });
        if (m.pollsLeft > 0) {
          return this.respond(422, {
            error: "Cannot attach files that have not finished processing. Try again in a moment!",
          });
        }
      }
      const s: StoredStatus = {
        id: this.id(),
        text,
        media_ids: mediaIds,
        visibility,
        in_reply_to_id: thread?.id ?? null,
        created_at: new Date().toISOString(),
        favourites_count: 0,
        reblogs_count: 0,
        replies_count: 0,
      };
      this.statuses.set(s.id, s);
      if (thread) thread.replies_count += 1;
      if (idem) this.idempotency.set(idem, s.id);
      return this.respond(200, this.statusJson(s));
    }
    const statusMatch = /^\/api\/v1\/statuses\/(\w+)$/.exec(url.pathname);
    if (req.method === "GET" && statusMatch) {
      const s = this.statuses.get(statusMatch[1]!);
      return s ? this.respond(200, this.statusJson(s)) : this.respond(404, { error: "Record not found" });
    }
    return this.respond(404, { error: "Record not found" });
  }
}
