import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type AfterHandlingFault, failAfterHandling } from "../support/fake-fetch";
import { fakeLinkedIn, type LinkedInFake } from "../support/fakes/linkedin";
import { MASTODON } from "../support/fakes/mastodon";
import { fakeFacebookGraph, fakeInstagramGraph, type MetaGraphFake } from "../support/fakes/meta";
import { fakePinterest } from "../support/fakes/pinterest";
import { fakeThreads, type ThreadsFake } from "../support/fakes/threads";
import { fakeTikTok, type TikTokFake } from "../support/fakes/tiktok";
import { fakeYouTube } from "../support/fakes/youtube";
import type { TestWorkspace } from "../support/harness";
import { type Fakes, installFakes, seedBlueskyAccount, seedMastodonAccount, seedXAccount } from "./platforms";
import {
  createTestWorkspace,
  deliver,
  deliverUntilSettled,
  instantLongWaits,
  readPost,
  readRow,
  seedAccount,
  seedMedia,
  seedPost,
} from "./support";

/**
 * "No post is ever made twice" (issue 17), per network, through the real queue consumer: the fake makes the post
 * and then the answer is lost (timeout) or replaced by a 5xx; the queue delivers again until the row settles.
 * Afterwards the network holds exactly one post and the row is `published` with its URL — or, where the network
 * cannot be asked, the row says so and no second post exists.
 */

let fakes: Fakes;
let linkedin: LinkedInFake;
let facebook: MetaGraphFake;
let instagram: MetaGraphFake;
let threads: ThreadsFake;
let tiktok: TikTokFake;
let youtube: ReturnType<typeof fakeYouTube>;
let pinterest: ReturnType<typeof fakePinterest>;
beforeEach(() => {
  fakes = installFakes();
  linkedin = fakeLinkedIn();
  facebook = fakeFacebookGraph();
  instagram = fakeInstagramGraph();
  threads = fakeThreads();
  tiktok = fakeTikTok();
  youtube = fakeYouTube({ processing: [{ uploadStatus: "processed", processingStatus: "succeeded" }] });
  pinterest = fakePinterest();
});
afterEach(() => {
  vi.unstubAllGlobals();
  fakes.uninstall();
  linkedin.uninstall();
  facebook.uninstall();
  instagram.uninstall();
  threads.uninstall();
  tiktok.stop();
  youtube.stop();
  pinterest.stop();
});

const token = { access_token: "access-token", refresh_token: "refresh-token" };
const PAGE = "1010101";
const IG_USER = "17841400000000001";

const igPosts = (fake: MetaGraphFake) =>
  fake.published
    .filter((p) => p.kind === "ig_media")
    .map((p) => ({ id: p.id, url: `https://www.instagram.com/p/C${p.id.slice(-8)}xYz/` }));

const FAULTS: Array<[string, AfterHandlingFault]> = [
  ["the answer times out", { kind: "timeout" }],
  ["a 5xx follows the creation", { kind: "status", status: 503, body: { error: "Service Unavailable" } }],
];

interface NetworkCase {
  platform: string;
  contentType: string;
  content: string;
  meta?: Record<string, unknown>;
  media?: (ws: TestWorkspace) => Promise<string[]>;
  seed: (ws: TestWorkspace) => Promise<string>;
  /** The call that makes the post (its answer is the one lost). */
  create: { method: string; path: string | RegExp };
  /** Posts on the network now. */
  posts: () => Array<{ id: string; url: string }>;
}

/** LinkedIn members and Pages publish through the same `POST /rest/posts`. */
function linkedInCase(
  c: Pick<NetworkCase, "platform" | "contentType" | "content" | "media"> & { platformUserId: string },
) {
  const { platformUserId, ...rest } = c;
  return {
    ...rest,
    seed: (ws: TestWorkspace) => seedAccount(ws, { platform: c.platform, platformUserId, credentials: token }),
    create: { method: "POST", path: "/rest/posts" },
    posts: () => linkedin.posts.map((p) => ({ id: p.urn, url: `https://www.linkedin.com/feed/update/${p.urn}` })),
  } satisfies NetworkCase;
}

/** Both Instagram logins publish a feed image through `media_publish`, each on its own Graph host. */
function instagramCase(platform: string, content: string, graph: () => MetaGraphFake): NetworkCase {
  return {
    platform,
    contentType: "instagram_feed",
    content,
    media: async (ws) => [await seedMedia(ws, "image")],
    seed: (ws) => seedAccount(ws, { platform, platformUserId: IG_USER, credentials: token }),
    create: { method: "POST", path: `/v26.0/${IG_USER}/media_publish` },
    posts: () => igPosts(graph()),
  };
}

const CASES: NetworkCase[] = [
  {
    platform: "x",
    contentType: "x_post",
    content: "Exactly once on X https://example.com/a",
    seed: (ws) => seedXAccount(ws),
    create: { method: "POST", path: "/2/tweets" },
    posts: () => [...fakes.x.tweets.values()].map((t) => ({ id: t.id, url: `https://x.com/alice_x/status/${t.id}` })),
  },
  {
    platform: "mastodon",
    contentType: "mastodon_post",
    content: "Exactly once on Mastodon",
    seed: (ws) => seedMastodonAccount(ws),
    create: { method: "POST", path: "/api/v1/statuses" },
    posts: () => [...fakes.mastodon.statuses.values()].map((s) => ({ id: s.id, url: `${MASTODON}/@alice/${s.id}` })),
  },
  {
    platform: "bluesky",
    contentType: "bluesky_post",
    content: "Exactly once on Bluesky",
    seed: (ws) => seedBlueskyAccount(ws, fakes.bluesky),
    create: { method: "POST", path: "/xrpc/com.atproto.repo.createRecord" },
    posts: () =>
      [...fakes.bluesky.records.values()].map((r) => ({
        id: r.uri,
        url: `https://bsky.app/profile/${fakes.bluesky.userHandle}/post/${r.uri.split("/").pop()}`,
      })),
  },
  linkedInCase({
    platform: "linkedin",
    contentType: "linkedin_post",
    content: "Exactly once on LinkedIn #launch",
    platformUserId: "abc123",
    media: async (ws) => [await seedMedia(ws, "image")],
  }),
  linkedInCase({
    platform: "linkedin-page",
    contentType: "linkedin_page_post",
    content: "Exactly once on a LinkedIn Page",
    platformUserId: "2414183",
  }),
  {
    platform: "facebook",
    contentType: "facebook_post",
    content: "Exactly once on a Facebook Page",
    seed: (ws) => seedAccount(ws, { platform: "facebook", platformUserId: PAGE, credentials: token }),
    create: { method: "POST", path: `/v26.0/${PAGE}/feed` },
    posts: () =>
      facebook.published.map((p) => ({
        id: p.id,
        url: `https://www.facebook.com/permalink.php?story_fbid=${p.id.split("_")[1]}&id=${PAGE}`,
      })),
  },
  instagramCase("instagram", "Exactly once on Instagram", () => instagram),
  instagramCase("instagram-facebook", "Exactly once on Instagram via Facebook", () => facebook),
  {
    platform: "threads",
    contentType: "threads_post",
    content: "Exactly once on Threads",
    seed: (ws) => seedAccount(ws, { platform: "threads", platformUserId: "7000001", credentials: token }),
    create: { method: "POST", path: "/v1.0/7000001/threads_publish" },
    posts: () =>
      threads.published.map((p) => ({
        id: p.id,
        url: `https://www.threads.com/@tester/post/DA${p.id.slice(-6)}q`,
      })),
  },
  {
    platform: "tiktok",
    contentType: "tiktok_video",
    content: "Exactly once on TikTok",
    media: async (ws) => [await seedMedia(ws, "video")],
    seed: (ws) => seedAccount(ws, { platform: "tiktok", credentials: token }),
    create: { method: "PUT", path: "/upload/video/" },
    posts: () =>
      [...tiktok.publishes.values()].map((p) => ({
        id: p.postId,
        url: `https://www.tiktok.com/@tester_tt/video/${p.postId}`,
      })),
  },
  {
    platform: "youtube",
    contentType: "youtube_short",
    content: "Exactly once on YouTube",
    media: async (ws) => [await seedMedia(ws, "video")],
    seed: (ws) => seedAccount(ws, { platform: "youtube", credentials: token }),
    create: { method: "PUT", path: "/upload/youtube/v3/videos" },
    posts: () =>
      youtube.calls
        .filter((c) => c.method === "PUT" && /bytes \d+-\d+\//.test(c.headers["content-range"] ?? ""))
        .map(() => ({ id: "Sh0rt000001", url: "https://www.youtube.com/shorts/Sh0rt000001" })),
  },
  {
    platform: "pinterest",
    contentType: "pinterest_pin",
    content: "Exactly once on Pinterest",
    meta: { board_id: "549755885175", title: "Once" },
    media: async (ws) => [await seedMedia(ws, "image")],
    seed: (ws) => seedAccount(ws, { platform: "pinterest", credentials: token }),
    create: { method: "POST", path: "/v5/pins" },
    posts: () =>
      [...pinterest.pins.values()].map((p) => ({
        id: String(p.id),
        url: `https://www.pinterest.com/pin/${p.id}/`,
      })),
  },
];

const caseOf = (platform: string) => CASES.find((c) => c.platform === platform)!;

async function publishThroughQueue(c: NetworkCase) {
  const ws = await createTestWorkspace();
  const accountId = await c.seed(ws);
  const post = await seedPost(ws, {
    content: c.content,
    rows: [{ accountId, platform: c.platform, contentType: c.contentType, meta: c.meta }],
    mediaIds: c.media ? await c.media(ws) : [],
  });
  const delays = await deliverUntilSettled(post.messages);
  return { post, delays, row: await readRow(post.rowIds[0]!) };
}

describe("no post is ever made twice", () => {
  for (const c of CASES) {
    for (const [label, fault] of FAULTS) {
      it(`${c.platform}: ${label} → one post on the network, the row published with its URL`, async () => {
        instantLongWaits();
        failAfterHandling(c.create.method, c.create.path, fault);
        const { post, delays, row } = await publishThroughQueue(c);
        const onNetwork = c.posts();
        expect(onNetwork).toHaveLength(1);
        // One retry at most (Bluesky looks up its record key within the same delivery after a 5xx).
        expect(delays.length).toBeLessThanOrEqual(1);
        expect(row).toEqual({
          status: "published",
          platform_post_id: onNetwork[0]!.id,
          platform_url: onNetwork[0]!.url,
          published_at: expect.any(Number),
          error_message: null,
          attempts: delays.length + 1,
          claimed_at: expect.any(Number),
        });
        expect(await readPost(post.postId)).toMatchObject({ status: "published" });
        const state = await env.DB.prepare("SELECT publish_state FROM post_platforms WHERE id = ?")
          .bind(post.rowIds[0]!)
          .first<{ publish_state: string | null }>();
        expect(state).toEqual({ publish_state: null });
      });
    }
  }

  /** Where the network cannot be asked whether the lost call made the post: the row fails and says so. */
  const UNCONFIRMED: Array<{
    name: string;
    network: string;
    arrange?: () => void;
    fault: [method: string, path: string, fault: AfterHandlingFault];
    publish: () => NetworkCase;
    onNetwork: () => number;
  }> = [
    {
      name: "x: when X will not let the app read its posts, a lost answer fails the row as could-not-confirm",
      network: "X",
      arrange: () => {
        fakes.x.readAccess = false;
      },
      fault: ["POST", "/2/tweets", { kind: "timeout" }],
      publish: () => caseOf("x"),
      onNetwork: () => fakes.x.tweets.size,
    },
    {
      name: "tiktok: a pull-from-URL init whose answer was lost fails as could-not-confirm, with one post on TikTok",
      network: "TikTok",
      fault: ["POST", "/v2/post/publish/video/init/", { kind: "timeout" }],
      publish: () => ({ ...caseOf("tiktok"), meta: { video_source: "PULL_FROM_URL" } }),
      onNetwork: () => tiktok.publishes.size,
    },
    {
      name: "facebook: a story whose answer was lost fails as could-not-confirm, with one story on the Page",
      network: "Facebook",
      fault: [
        "POST",
        `/v26.0/${PAGE}/photo_stories`,
        {
          kind: "status",
          status: 500,
          body: { error: { message: "An unknown error has occurred.", type: "OAuthException", code: 1 } },
        },
      ],
      publish: () => ({
        ...caseOf("facebook"),
        contentType: "facebook_story",
        media: async (ws) => [await seedMedia(ws, "image")],
      }),
      onNetwork: () => facebook.published.filter((p) => p.kind === "photo_story").length,
    },
  ];

  for (const u of UNCONFIRMED) {
    it(u.name, async () => {
      u.arrange?.();
      failAfterHandling(...u.fault);
      const { post, delays, row } = await publishThroughQueue(u.publish());
      expect(u.onNetwork()).toBe(1);
      expect(delays).toHaveLength(1);
      expect(row).toEqual({
        status: "failed",
        platform_post_id: null,
        platform_url: null,
        published_at: null,
        error_message: `Could not confirm whether the post was published: the answer from ${u.network} was lost. Check ${u.network} before retrying.`,
        attempts: 2,
        claimed_at: expect.any(Number),
      });
      expect(await readPost(post.postId)).toMatchObject({ status: "failed" });
    });
  }

  it("a post edited after a lost answer is a new post: the saved handle is not reused", async () => {
    failAfterHandling("POST", "/rest/posts", { kind: "timeout" });
    const c = caseOf("linkedin-page");
    const ws = await createTestWorkspace();
    const accountId = await c.seed(ws);
    const post = await seedPost(ws, {
      content: "First words",
      rows: [{ accountId, platform: c.platform, contentType: c.contentType }],
    });
    await deliverUntilSettled(post.messages, 1);
    const saved = await env.DB.prepare("SELECT publish_state FROM post_platforms WHERE id = ?")
      .bind(post.rowIds[0]!)
      .first<{ publish_state: string }>();
    expect(JSON.parse(saved!.publish_state)).toEqual({
      request: expect.stringMatching(/^[0-9a-f]{64}$/),
      state: { post_body: expect.objectContaining({ commentary: "First words" }) },
    });
    await env.DB.prepare("UPDATE posts SET content = 'Second words' WHERE id = ?").bind(post.postId).run();
    // Redelivered as the queue would (attempt 2): the edited text is posted, not the saved body of the old one.
    await deliver(post.messages, { attempts: 2 });
    expect(linkedin.posts.map((p) => p.body.commentary)).toEqual(["First words", "Second words"]);
    expect(await readRow(post.rowIds[0]!)).toMatchObject({
      status: "published",
      platform_post_id: linkedin.posts[1]!.urn,
    });
  });
});
