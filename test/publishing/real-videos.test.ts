import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MEDIA_RULES } from "../../src/catalog/media-specs";
import { concatBytes } from "../../src/media/byte-source";
import type { PublishMessage } from "../../src/publishing/messages";
import { attachUploadToPost } from "../../src/services/uploads/attach-upload";
import { mediaForm, workspaceContext } from "../media/fixtures";
import { clipMov, clipMp4, phoneMov, phoneMp4, portraitMov, type RealVideo } from "../media/videos";
import { fakeOrigin } from "../support/fake-fetch";
import { fakeLinkedIn, type LinkedInFake } from "../support/fakes/linkedin";
import { fakeFacebookGraph, fakeInstagramGraph, type MetaGraphFake } from "../support/fakes/meta";
import { fakePinterest } from "../support/fakes/pinterest";
import { recordPulls } from "../support/fakes/pulled-media";
import { fakeThreads, type ThreadsFake } from "../support/fakes/threads";
import { fakeTikTok, type TikTokFake } from "../support/fakes/tiktok";
import { fakeYouTube } from "../support/fakes/youtube";
import { call, type TestWorkspace } from "../support/harness";
import { type Fakes, installFakes, seedBlueskyAccount, seedMastodonAccount, seedXAccount } from "./platforms";
import { createTestWorkspace, deliverUntilSettled, instantLongWaits, seedAccount, seedPost } from "./support";

/**
 * Issue 29: videos written by a real muxer (ffmpeg: QuickTime .mov with a data-handler hdlr in minf, ISO-BMFF .mp4
 * with moov after mdat, a phone's rotated HEVC) go in by all three routes with their true duration and displayed
 * sides, and a phone's portrait video (.mov and .mp4) publishes through the API and the queue consumer to the
 * fakes of every network that takes video — the fakes measure what they are sent (test/support/fakes/pulled-media.ts)
 * and keep it, so the test sees the network got the uploaded bytes.
 */

const CDN = "https://cdn.fake";
let ip = 0;

/** The Media item as the Post resource shows it. */
const asMedia = (v: RealVideo) => ({
  type: "video",
  mime_type: v.name.endsWith(".mov") ? "video/quicktime" : "video/mp4",
  original_filename: v.name,
  size: v.bytes.length,
  width: v.width,
  height: v.height,
  duration_seconds: v.durationSeconds,
  alt: null,
});

async function draft(ws: TestWorkspace, contentType = "x_post", platform = "x", meta: Record<string, unknown> = {}) {
  const accountId = await seedAccount(ws, { platform, credentials: { access_token: "t" } });
  return seedPost(ws, { content: "A real video", status: "draft", rows: [{ accountId, platform, contentType, meta }] });
}

/** Each route, ending with the post's media[] as `GET /api/posts/{post}` shows it. */
const ROUTES: Record<string, (ws: TestWorkspace, postId: string, v: RealVideo) => Promise<unknown>> = {
  async multipart(ws, postId, v) {
    const res = await call("POST", `/api/posts/${postId}/media`, { key: ws.key, rawBody: mediaForm(v.bytes, v.name) });
    expect(res.status, res.text).toBe(200);
    return res.body.media;
  },
  async "from-url"(ws, postId, v) {
    const off = fakeOrigin(CDN, () => new Response(v.bytes, { headers: { "Content-Type": "video/mp4" } }));
    try {
      const res = await ws.api("POST", `/api/posts/${postId}/media/from-url`, { urls: [`${CDN}/${v.name}`] });
      expect(res.status, res.text).toBe(200);
      expect(res.body.failed_urls).toEqual([]);
      return res.body.post?.media ?? (await ws.api("GET", `/api/posts/${postId}`)).body.media;
    } finally {
      off();
    }
  },
  async "signed upload"(ws, postId, v) {
    const issued = await ws.api("POST", "/api/uploads");
    expect(issued.status).toBe(201);
    const url = new URL(issued.body.upload_url);
    const res = await call("POST", `${url.pathname}${url.search}`, {
      rawBody: mediaForm(v.bytes, v.name),
      headers: { "CF-Connecting-IP": `198.51.100.${++ip}` },
    });
    expect(res.status, res.text).toBe(201);
    await attachUploadToPost(workspaceContext(ws), { post_id: postId, upload_token: issued.body.upload_token });
    return (await ws.api("GET", `/api/posts/${postId}`)).body.media;
  },
};

describe("real videos upload by every route with their true duration and sides (issue 29)", () => {
  for (const [route, upload] of Object.entries(ROUTES)) {
    it.each([clipMov, clipMp4, portraitMov, phoneMov, phoneMp4].map((v) => [v.name, v] as const))(
      `${route}: %s`,
      async (_name, video) => {
        const ws = await createTestWorkspace();
        const { postId } = await draft(ws);
        expect(await upload(ws, postId, video)).toEqual([expect.objectContaining(asMedia(video))]);
      },
    );
  }
});

let fakes: Fakes;
let linkedin: LinkedInFake;
let facebook: MetaGraphFake;
let instagram: MetaGraphFake;
let threads: ThreadsFake;
let tiktok: TikTokFake;
let youtube: ReturnType<typeof fakeYouTube>;
let pinterest: ReturnType<typeof fakePinterest>;
let pulled: ReturnType<typeof recordPulls>;

const PAGE = "1010101";
const IG_USER = "17841400000000001";
const token = { access_token: "access-token", refresh_token: "refresh-token" };

interface Target {
  platform: string;
  contentType: string;
  meta?: Record<string, unknown>;
  seed: (ws: TestWorkspace) => Promise<string>;
  /** What the network now holds (one item after the publish). */
  onNetwork: () => number;
  /** Each video file the network received (uploaded to it, or downloaded by it from our media URL). */
  received: () => Uint8Array[];
}

const igMedia = (f: () => MetaGraphFake) => () => f().published.filter((p) => p.kind === "ig_media").length;
const downloads = () => pulled.pulls.map((p) => p.bytes);
const seeded = (platform: string, platformUserId?: string) => (ws: TestWorkspace) =>
  seedAccount(ws, { platform, credentials: token, ...(platformUserId ? { platformUserId } : {}) });

const TARGETS: Target[] = [
  {
    platform: "x",
    contentType: "x_post",
    seed: (ws) => seedXAccount(ws),
    onNetwork: () => fakes.x.tweets.size,
    received: () => [...fakes.x.media.values()].map((m) => concatBytes(m.bytes)),
  },
  {
    platform: "bluesky",
    contentType: "bluesky_post",
    seed: (ws) => seedBlueskyAccount(ws, fakes.bluesky),
    onNetwork: () => fakes.bluesky.records.size,
    received: () => [...fakes.bluesky.blobs.values()].flatMap((b) => (b.bytes ? [b.bytes] : [])),
  },
  {
    platform: "mastodon",
    contentType: "mastodon_post",
    seed: (ws) => seedMastodonAccount(ws),
    onNetwork: () => fakes.mastodon.statuses.size,
    received: () => [...fakes.mastodon.media.values()].map((m) => m.bytes),
  },
  {
    platform: "linkedin",
    contentType: "linkedin_post",
    seed: seeded("linkedin", "abc123"),
    onNetwork: () => linkedin.posts.length,
    received: () => linkedin.videoBytes(),
  },
  {
    platform: "linkedin-page",
    contentType: "linkedin_page_post",
    seed: seeded("linkedin-page", "2414183"),
    onNetwork: () => linkedin.posts.length,
    received: () => linkedin.videoBytes(),
  },
  ...(["facebook_post", "facebook_reel", "facebook_story"] as const).map((contentType) => ({
    platform: "facebook",
    contentType,
    seed: seeded("facebook", PAGE),
    onNetwork: () => facebook.published.length,
    received: downloads,
  })),
  ...(["instagram_feed", "instagram_reel", "instagram_story"] as const).flatMap((contentType) => [
    {
      platform: "instagram",
      contentType,
      seed: seeded("instagram", IG_USER),
      onNetwork: igMedia(() => instagram),
      received: downloads,
    },
    {
      platform: "instagram-facebook",
      contentType,
      seed: seeded("instagram-facebook", IG_USER),
      onNetwork: igMedia(() => facebook),
      received: downloads,
    },
  ]),
  {
    platform: "threads",
    contentType: "threads_post",
    seed: seeded("threads", "7000001"),
    onNetwork: () => threads.published.length,
    received: downloads,
  },
  {
    platform: "tiktok",
    contentType: "tiktok_video",
    seed: seeded("tiktok"),
    onNetwork: () => tiktok.publishes.size,
    received: () => [...tiktok.publishes.keys()].map((id) => tiktok.uploaded(id)),
  },
  {
    platform: "tiktok",
    contentType: "tiktok_video",
    meta: { video_source: "PULL_FROM_URL" },
    seed: seeded("tiktok"),
    onNetwork: () => tiktok.publishes.size,
    received: downloads,
  },
  {
    platform: "youtube",
    contentType: "youtube_short",
    seed: seeded("youtube"),
    onNetwork: () =>
      youtube.calls.filter((c) => c.method === "PUT" && /bytes \d+-\d+\//.test(c.headers["content-range"] ?? ""))
        .length,
    received: () => [...youtube.sessions.keys()].map((id) => youtube.uploaded(id)),
  },
  {
    platform: "pinterest",
    contentType: "pinterest_video_pin",
    meta: { board_id: "549755885175", title: "A real video" },
    seed: seeded("pinterest"),
    onNetwork: () => pinterest.pins.size,
    received: () => [...pinterest.media.values()].map((m) => m.fileBytes),
  },
];

/** Every content type whose catalog rules take a video. */
const takesVideo = Object.entries(MEDIA_RULES).filter(([, r]) => r.max_videos > 0 && r.video);

describe("a phone's portrait video (.mov and .mp4, from ffmpeg) publishes through the API and the queue to every network that takes video (issue 29)", () => {
  let sent: PublishMessage[];
  beforeEach(() => {
    fakes = installFakes();
    // LinkedIn's own 4 MiB parts (the fake's default): the 84 KB file goes up in one part.
    linkedin = fakeLinkedIn();
    facebook = fakeFacebookGraph();
    instagram = fakeInstagramGraph();
    threads = fakeThreads();
    tiktok = fakeTikTok();
    youtube = fakeYouTube({ processing: [{ uploadStatus: "processed", processingStatus: "succeeded" }] });
    pinterest = fakePinterest();
    pulled = recordPulls();
    // Processing polls wait seconds between reads: no real waits.
    instantLongWaits();
    sent = [];
    vi.spyOn(env.PUBLISH_QUEUE, "sendBatch").mockImplementation(async (messages) => {
      for (const m of messages) sent.push(m.body as PublishMessage);
      return {} as QueueSendBatchResponse;
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
    pulled.stop();
    fakes.uninstall();
    linkedin.uninstall();
    facebook.uninstall();
    instagram.uninstall();
    threads.uninstall();
    tiktok.stop();
    youtube.stop();
    pinterest.stop();
  });

  it("covers every content type that takes a single video (carousels need several items)", () => {
    const covered = new Set(TARGETS.map((t) => t.contentType));
    const missing = takesVideo.map(([ct]) => ct).filter((ct) => !covered.has(ct) && !ct.endsWith("_carousel"));
    expect(missing).toEqual([]);
  });

  const cases = TARGETS.flatMap((t) =>
    [phoneMov, phoneMp4]
      .filter((v) =>
        MEDIA_RULES[t.contentType as keyof typeof MEDIA_RULES].video!.formats.includes(asMedia(v).mime_type),
      )
      .map((v) => ({
        ...t,
        video: v,
        name: `${t.platform} ${t.contentType}${t.meta?.video_source ? ` (${t.meta.video_source})` : ""} ← ${v.name}`,
      })),
  );

  it.each(cases)("$name", async (c) => {
    const ws = await createTestWorkspace();
    const accountId = await c.seed(ws);
    // The post, by the API …
    const created = await ws.api("POST", "/api/posts", {
      content: "A real video",
      platforms: [{ social_account_id: accountId, content_type: c.contentType }],
    });
    expect(created.status, created.text).toBe(201);
    const postId = created.body.id as string;
    if (c.meta) {
      // A row's meta (Pinterest's board, TikTok's source) is set with PUT, as the API documents.
      const rowId = created.body.platforms[0].id as string;
      const meta = await ws.api("PUT", `/api/posts/${postId}`, { platforms: [{ id: rowId, meta: c.meta }] });
      expect(meta.status, meta.text).toBe(200);
    }
    // … the phone's file uploaded to it (the container is read there) …
    const up = await call("POST", `/api/posts/${postId}/media`, {
      key: ws.key,
      rawBody: mediaForm(c.video.bytes, c.video.name),
    });
    expect(up.status, up.text).toBe(200);
    expect(up.body.media).toEqual([expect.objectContaining(asMedia(c.video))]);
    // … published: the API checks it against the network's rules and hands the row to the queue …
    const published = await ws.api("PUT", `/api/posts/${postId}`, { status: "publishing" });
    expect(published.status, published.text).toBe(200);
    expect(sent).toHaveLength(1);
    // … whose consumer runs the network's adapter against its fake, which measures the file it gets.
    await deliverUntilSettled(sent);
    const post = (await ws.api("GET", `/api/posts/${postId}`)).body;
    expect(post.platforms.map((p: Record<string, unknown>) => [p.status, p.error_message])).toEqual([
      ["published", null],
    ]);
    expect(post.status).toBe("published");
    expect(c.onNetwork()).toBe(1);
    // Videos are never re-encoded: the network got the very bytes that were uploaded.
    const received = c.received();
    expect(received).toHaveLength(1);
    expect(received[0]!.length).toBe(c.video.bytes.length);
    expect(equalBytes(received[0]!, c.video.bytes)).toBe(true);
  });
});

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
