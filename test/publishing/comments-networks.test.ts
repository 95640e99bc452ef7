import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { failAfterHandling } from "../support/fake-fetch";
import { fakeLinkedIn, type LinkedInFake } from "../support/fakes/linkedin";
import { fakeFacebookGraph, fakeInstagramGraph, type MetaGraphFake } from "../support/fakes/meta";
import { fakeThreads, type ThreadsFake } from "../support/fakes/threads";
import { fakeYouTube, YOUTUBE_CHANNEL, type YouTubeFake } from "../support/fakes/youtube";
import type { TestWorkspace } from "../support/harness";
import {
  createTestWorkspace,
  deliver,
  deliverUntilSettled,
  instantLongWaits,
  readRow,
  seedAccount,
  seedMedia,
  seedPost,
} from "./support";

/**
 * Issue 20 through the real queue consumer, engine and adapters, for the networks whose first comment is a comment
 * (Facebook, both Instagrams, both LinkedIns, YouTube) and for Threads (thread items and the first comment as
 * replies). What the API shows (`GET /api/posts/:id`) is checked against what the fakes hold.
 */

let facebook: MetaGraphFake;
let instagram: MetaGraphFake;
let linkedin: LinkedInFake;
let threads: ThreadsFake;
let youtube: YouTubeFake;

function installYouTube(options: Parameters<typeof fakeYouTube>[0] = {}) {
  youtube?.stop();
  youtube = fakeYouTube({ processing: [{ uploadStatus: "processed", processingStatus: "succeeded" }], ...options });
}

beforeEach(() => {
  facebook = fakeFacebookGraph();
  instagram = fakeInstagramGraph();
  linkedin = fakeLinkedIn();
  threads = fakeThreads();
  installYouTube();
  instantLongWaits(); // YouTube's processing polls
});
afterEach(() => {
  vi.unstubAllGlobals();
  facebook.uninstall();
  instagram.uninstall();
  linkedin.uninstall();
  threads.uninstall();
  youtube.stop();
});

const token = { access_token: "access-token", refresh_token: "refresh-token" };
const PAGE = "1010101";
const IG_USER = "17841400000000001";
const COMMENT = "Links in the first comment: https://example.com/more";

interface CommentNetwork {
  platform: string;
  contentType: string;
  media?: (ws: TestWorkspace) => Promise<string[]>;
  seed: (ws: TestWorkspace) => Promise<string>;
  /** The comment create call (its answer is the one lost). */
  create: RegExp;
  /** Comments on the network: under which post, with what text. */
  comments: () => { id: string; on: string; text: string }[];
}

const metaComments = (fake: () => MetaGraphFake) => () =>
  fake().comments.map((c) => ({ id: c.id, on: c.on, text: c.message }));
const linkedInComments = () => linkedin.comments.map((c) => ({ id: c.urn, on: c.on, text: c.text }));

const NETWORKS: CommentNetwork[] = [
  {
    platform: "facebook",
    contentType: "facebook_post",
    seed: (ws) => seedAccount(ws, { platform: "facebook", platformUserId: PAGE, credentials: token }),
    create: /^\/v26\.0\/[^/]+\/comments$/,
    comments: metaComments(() => facebook),
  },
  {
    platform: "instagram",
    contentType: "instagram_feed",
    media: async (ws) => [await seedMedia(ws, "image")],
    seed: (ws) => seedAccount(ws, { platform: "instagram", platformUserId: IG_USER, credentials: token }),
    create: /^\/v26\.0\/[^/]+\/comments$/,
    comments: metaComments(() => instagram),
  },
  {
    platform: "instagram-facebook",
    contentType: "instagram_feed",
    media: async (ws) => [await seedMedia(ws, "image")],
    seed: (ws) => seedAccount(ws, { platform: "instagram-facebook", platformUserId: IG_USER, credentials: token }),
    create: /^\/v26\.0\/[^/]+\/comments$/,
    comments: metaComments(() => facebook),
  },
  {
    platform: "linkedin",
    contentType: "linkedin_post",
    seed: (ws) => seedAccount(ws, { platform: "linkedin", platformUserId: "abc123", credentials: token }),
    create: /^\/rest\/socialActions\/[^/]+\/comments$/,
    comments: linkedInComments,
  },
  {
    platform: "linkedin-page",
    contentType: "linkedin_page_post",
    seed: (ws) => seedAccount(ws, { platform: "linkedin-page", platformUserId: "2414183", credentials: token }),
    create: /^\/rest\/socialActions\/[^/]+\/comments$/,
    comments: linkedInComments,
  },
  {
    platform: "youtube",
    contentType: "youtube_short",
    media: async (ws) => [await seedMedia(ws, "video")],
    seed: (ws) => seedAccount(ws, { platform: "youtube", platformUserId: YOUTUBE_CHANNEL, credentials: token }),
    create: /^\/youtube\/v3\/commentThreads$/,
    comments: () => youtube.comments.map((c) => ({ id: c.id, on: c.videoId, text: c.text })),
  },
];

async function postWithComment(ws: TestWorkspace, n: CommentNetwork) {
  const accountId = await n.seed(ws);
  const post = await seedPost(ws, {
    content: `A post for ${n.platform}`,
    rows: [{ accountId, platform: n.platform, contentType: n.contentType }],
    mediaIds: n.media ? await n.media(ws) : [],
  });
  await env.DB.prepare("UPDATE post_platforms SET first_comment = ? WHERE id = ?").bind(COMMENT, post.rowIds[0]!).run();
  return post;
}

async function apiRow(ws: TestWorkspace, postId: string) {
  const res = await ws.api("GET", `/api/posts/${postId}`);
  expect(res.status).toBe(200);
  return res.body.platforms[0];
}

describe.each(NETWORKS)("$platform: first comment under the published post", (n) => {
  it("publishes the post, then the comment under it; both recorded with their URLs", async () => {
    const ws = await createTestWorkspace();
    const post = await postWithComment(ws, n);
    const result = await deliver(post.messages);
    expect(result.explicitAcks).toEqual(["msg-0"]);
    const row = await apiRow(ws, post.postId);
    expect(row.status).toBe("published");
    const comments = n.comments();
    expect(comments).toEqual([{ id: comments[0]!.id, on: row.platform_post_id, text: COMMENT }]);
    expect(row.first_comment).toEqual({
      content: COMMENT,
      status: "published",
      platform_post_id: comments[0]!.id,
      platform_url: expect.stringMatching(/^https:\/\//),
      error_message: null,
    });
  });

  it("a comment whose answer is lost is found on retry: one comment, the post not made again", async () => {
    const ws = await createTestWorkspace();
    const post = await postWithComment(ws, n);
    failAfterHandling("POST", n.create, { kind: "timeout" });
    const delays = await deliverUntilSettled(post.messages);
    expect(delays).toHaveLength(1);
    const row = await apiRow(ws, post.postId);
    expect([row.status, row.error_message]).toEqual(["published", null]);
    const comments = n.comments();
    expect(comments).toHaveLength(1);
    expect(row.first_comment).toMatchObject({ status: "published", platform_post_id: comments[0]!.id });
    expect(await readRow(post.rowIds[0]!)).toMatchObject({ status: "published", attempts: 2 });
  });
});

describe("youtube without the youtube.force-ssl scope", () => {
  it("publishes the Short; only the first comment fails, saying to reconnect", async () => {
    installYouTube({ forceSslScope: false });
    const ws = await createTestWorkspace();
    const post = await postWithComment(ws, NETWORKS.find((n) => n.platform === "youtube")!);
    await deliverUntilSettled(post.messages);
    const row = await apiRow(ws, post.postId);
    expect([row.status, row.error_message, row.platform_post_id]).toEqual(["published", null, "Sh0rt000001"]);
    expect(row.first_comment).toEqual({
      content: COMMENT,
      status: "failed",
      platform_post_id: null,
      platform_url: null,
      error_message:
        "YouTube did not let this app comment: the channel was connected without the permission to manage comments (youtube.force-ssl). Reconnect the YouTube account and allow it to post comments.",
    });
    expect(youtube.comments).toEqual([]);
  });
});

describe("linkedin without read access to comments", () => {
  it("a lost comment answer ends the comment as could-not-confirm; the post stays published, nothing doubled", async () => {
    linkedin.canReadComments = false;
    const ws = await createTestWorkspace();
    const post = await postWithComment(ws, NETWORKS.find((n) => n.platform === "linkedin")!);
    failAfterHandling("POST", /^\/rest\/socialActions\/[^/]+\/comments$/, { kind: "timeout" });
    await deliverUntilSettled(post.messages);
    const row = await apiRow(ws, post.postId);
    expect(row.status).toBe("published");
    expect(row.first_comment).toMatchObject({
      status: "failed",
      error_message:
        "Could not confirm whether the comment was published: the answer from LinkedIn was lost. Check LinkedIn before retrying.",
    });
    expect(linkedin.comments).toHaveLength(1);
    expect(linkedin.posts).toHaveLength(1);
  });
});

describe("threads: a thread and the first comment as replies", () => {
  const THREAD = ["Part one https://example.com/1 #launch", "Part two #launch", "Part three #launch"];

  async function threadPost(ws: TestWorkspace) {
    const accountId = await seedAccount(ws, { platform: "threads", platformUserId: "7000001", credentials: token });
    const post = await seedPost(ws, {
      content: "The post's shared text",
      rows: [{ accountId, platform: "threads", contentType: "threads_post" }],
    });
    await env.DB.prepare("UPDATE post_platforms SET thread = ?, first_comment = ? WHERE id = ?")
      .bind(JSON.stringify(THREAD.map((content) => ({ content, media: [] }))), COMMENT, post.rowIds[0]!)
      .run();
    return post;
  }

  async function expectThread(ws: TestWorkspace, postId: string) {
    const chain = threads.replyChain();
    const [main, t1, t2, t3, comment] = chain;
    expect(chain.map((c) => [c.text, c.repliedTo, c.root])).toEqual([
      ["The post's shared text", null, main!.id],
      [THREAD[0], main!.id, main!.id],
      [THREAD[1], t1!.id, main!.id],
      [THREAD[2], t2!.id, main!.id],
      [COMMENT, main!.id, main!.id],
    ]);
    const row = await apiRow(ws, postId);
    expect([row.status, row.platform_post_id]).toEqual(["published", main!.id]);
    const url = (id: string) => `https://www.threads.com/@tester/post/DA${id.slice(-6)}q`;
    expect(row.thread).toEqual(
      [t1!, t2!, t3!].map((t, i) => ({
        content: THREAD[i],
        media: [],
        status: "published",
        platform_post_id: t.id,
        platform_url: url(t.id),
        error_message: null,
      })),
    );
    expect(row.first_comment).toEqual({
      content: COMMENT,
      status: "published",
      platform_post_id: comment!.id,
      platform_url: url(comment!.id),
      error_message: null,
    });
  }

  it("publishes three replies in order and the comment under the post, every URL recorded", async () => {
    const ws = await createTestWorkspace();
    const post = await threadPost(ws);
    expect((await deliver(post.messages)).explicitAcks).toEqual(["msg-0"]);
    await expectThread(ws, post.postId);
  });

  it("a reply whose publish answer is lost part-way finishes on retry with no item twice", async () => {
    const ws = await createTestWorkspace();
    const post = await threadPost(ws);
    // The third threads_publish is thread item 2.
    let seen = 0;
    const inner = globalThis.fetch;
    globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (request.method === "POST" && new URL(request.url).pathname.endsWith("/threads_publish") && ++seen === 3) {
        const response = await inner(request);
        await response.body?.cancel();
        throw new DOMException("The operation was aborted due to timeout", "TimeoutError");
      }
      return inner(request);
    };
    try {
      const first = await deliver(post.messages, { attempts: 1 });
      expect(first.retryMessages).toHaveLength(1);
    } finally {
      globalThis.fetch = inner;
    }
    expect(threads.replyChain()).toHaveLength(3);
    expect((await deliver(post.messages, { attempts: 2 })).explicitAcks).toEqual(["msg-0"]);
    await expectThread(ws, post.postId);
  });
});
