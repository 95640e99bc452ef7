import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkFileRules } from "../../src/catalog/media-rules";
import { MEDIA_RULES } from "../../src/catalog/media-specs";
import { adapterFor } from "../../src/platforms";
import type { AdapterAccount, AdapterMedia } from "../../src/platforms/types";
import { attachUploadToPost } from "../../src/services/uploads/attach-upload";
import { insertPost, mediaForm, workspaceContext } from "../media/fixtures";
import { clipMov, clipMp4, phoneMov, phoneMp4, portraitMov, type RealVideo } from "../media/videos";
import { blueskyAccount, testAccount, testAdapterContext } from "../support/adapter-context";
import { fakeOrigin } from "../support/fake-fetch";
import { fakeLinkedIn, type LinkedInFake } from "../support/fakes/linkedin";
import { MASTODON } from "../support/fakes/mastodon";
import { fakeFacebookGraph, fakeInstagramGraph, type MetaGraphFake } from "../support/fakes/meta";
import { fakePinterest } from "../support/fakes/pinterest";
import { fakeThreads, type ThreadsFake } from "../support/fakes/threads";
import { fakeTikTok, type TikTokFake } from "../support/fakes/tiktok";
import { fakeYouTube } from "../support/fakes/youtube";
import { call, type TestWorkspace } from "../support/harness";
import { type Fakes, installFakes } from "./platforms";
import { createTestWorkspace, seedAccount, seedPost } from "./support";

/**
 * Issue 29: videos written by a real muxer (ffmpeg: QuickTime .mov with a data-handler hdlr in minf, ISO-BMFF .mp4
 * with moov after mdat, a phone's rotated HEVC) go in by all three routes with their true duration and displayed
 * sides, and a phone's portrait video (.mov and .mp4) publishes through the fakes to every network that takes
 * video — the fakes measure what they are sent (test/support/fakes/pulled-media.ts).
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

const PAGE = "1010101";
const IG_USER = "17841400000000001";

interface Target {
  platform: string;
  contentType: string;
  meta?: Record<string, unknown>;
  account: () => AdapterAccount;
  /** What the network now holds (one item after the publish). */
  onNetwork: () => number;
}

const igMedia = (f: () => MetaGraphFake) => () => f().published.filter((p) => p.kind === "ig_media").length;

const TARGETS: Target[] = [
  {
    platform: "x",
    contentType: "x_post",
    account: () => testAccount("x", { credentials: { access_token: "x-access", refresh_token: "x-refresh" } }),
    onNetwork: () => fakes.x.tweets.size,
  },
  {
    platform: "bluesky",
    contentType: "bluesky_post",
    account: () => blueskyAccount(fakes.bluesky),
    onNetwork: () => fakes.bluesky.records.size,
  },
  {
    platform: "mastodon",
    contentType: "mastodon_post",
    account: () =>
      testAccount("mastodon", { meta: { instance: MASTODON }, credentials: { access_token: "masto-token" } }),
    onNetwork: () => fakes.mastodon.statuses.size,
  },
  {
    platform: "linkedin",
    contentType: "linkedin_post",
    account: () => testAccount("linkedin", { platformUserId: "abc123" }),
    onNetwork: () => linkedin.posts.length,
  },
  {
    platform: "linkedin-page",
    contentType: "linkedin_page_post",
    account: () => testAccount("linkedin-page", { platformUserId: "2414183" }),
    onNetwork: () => linkedin.posts.length,
  },
  ...(["facebook_post", "facebook_reel", "facebook_story"] as const).map((contentType) => ({
    platform: "facebook",
    contentType,
    account: () => testAccount("facebook", { platformUserId: PAGE }),
    onNetwork: () => facebook.published.length,
  })),
  ...(["instagram_feed", "instagram_reel", "instagram_story"] as const).flatMap((contentType) => [
    {
      platform: "instagram",
      contentType,
      account: () => testAccount("instagram", { platformUserId: IG_USER }),
      onNetwork: igMedia(() => instagram),
    },
    {
      platform: "instagram-facebook",
      contentType,
      account: () => testAccount("instagram-facebook", { platformUserId: IG_USER }),
      onNetwork: igMedia(() => facebook),
    },
  ]),
  {
    platform: "threads",
    contentType: "threads_post",
    account: () => testAccount("threads", { platformUserId: "7000001" }),
    onNetwork: () => threads.published.length,
  },
  {
    platform: "tiktok",
    contentType: "tiktok_video",
    account: () => testAccount("tiktok"),
    onNetwork: () => tiktok.publishes.size,
  },
  {
    platform: "youtube",
    contentType: "youtube_short",
    account: () => testAccount("youtube"),
    onNetwork: () =>
      youtube.calls.filter((c) => c.method === "PUT" && /bytes \d+-\d+\//.test(c.headers["content-range"] ?? ""))
        .length,
  },
  {
    platform: "pinterest",
    contentType: "pinterest_video_pin",
    meta: { board_id: "549755885175", title: "A real video" },
    account: () => testAccount("pinterest"),
    onNetwork: () => pinterest.pins.size,
  },
];

/** Every content type whose catalog rules take a video. */
const takesVideo = Object.entries(MEDIA_RULES).filter(([, r]) => r.max_videos > 0 && r.video);

describe("a phone's portrait video (.mov and .mp4, from ffmpeg) publishes to every network that takes video (issue 29)", () => {
  beforeEach(() => {
    fakes = installFakes();
    // Parts of 64 KiB: the 84 KB file goes up in 2 parts, as a large one would in LinkedIn's 4 MiB.
    linkedin = Object.assign(fakeLinkedIn(), { partSize: 64 * 1024 });
    facebook = fakeFacebookGraph();
    instagram = fakeInstagramGraph();
    threads = fakeThreads();
    tiktok = fakeTikTok();
    youtube = fakeYouTube({ processing: [{ uploadStatus: "processed", processingStatus: "succeeded" }] });
    pinterest = fakePinterest();
  });
  afterEach(() => {
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
      .map((v) => ({ ...t, video: v, name: `${t.platform} ${t.contentType} ← ${v.name}` })),
  );

  it.each(cases)("$name", async (c) => {
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [{ platform: c.platform, contentType: c.contentType }]);
    // In by the API (the container is read there) and checked against the catalog as scheduling does …
    const up = await call("POST", `/api/posts/${postId}/media`, {
      key: ws.key,
      rawBody: mediaForm(c.video.bytes, c.video.name),
    });
    expect(up.status, up.text).toBe(200);
    expect(up.body.media).toEqual([expect.objectContaining(asMedia(c.video))]);
    const m = up.body.media[0];
    const media: AdapterMedia = {
      id: m.id,
      type: "video",
      mimeType: m.mime_type,
      url: m.url,
      path: m.path,
      size: m.size,
      width: m.width,
      height: m.height,
      durationSeconds: m.duration_seconds,
      originalFilename: m.original_filename,
    };
    expect(checkFileRules(c.platform, c.contentType, media)).toEqual([]);
    // … then published by the network's adapter to its fake, which measures the file it gets.
    const published = await adapterFor(c.platform)!.publish(testAdapterContext(), {
      postPlatformId: crypto.randomUUID(),
      contentType: c.contentType,
      content: "A real video",
      media: [media],
      meta: c.meta ?? {},
      account: c.account(),
    });
    expect(published.platformPostId).toEqual(expect.any(String));
    expect(c.onNetwork()).toBe(1);
  });
});
