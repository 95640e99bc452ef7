import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AfterHandlingFault, failAfterHandling } from "../support/fake-fetch";
import { fakeLinkedIn, type LinkedInFake } from "../support/fakes/linkedin";
import { MASTODON } from "../support/fakes/mastodon";
import type { TestWorkspace } from "../support/harness";
import { type Fakes, installFakes, seedBlueskyAccount, seedMastodonAccount, seedXAccount } from "./platforms";
import {
  createTestWorkspace,
  deliverUntilSettled,
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
beforeEach(() => {
  fakes = installFakes();
  linkedin = fakeLinkedIn();
});
afterEach(() => {
  fakes.uninstall();
  linkedin.uninstall();
});

const FAULTS: Array<[string, AfterHandlingFault]> = [
  ["the answer times out", { kind: "timeout" }],
  ["a 5xx follows the creation", { kind: "status", status: 503, body: { error: "Service Unavailable" } }],
];

interface NetworkCase {
  platform: string;
  contentType: string;
  content: string;
  media?: (ws: TestWorkspace) => Promise<string[]>;
  seed: (ws: TestWorkspace) => Promise<string>;
  /** The call that makes the post (its answer is the one lost). */
  create: { method: string; path: string | RegExp };
  /** Posts on the network now. */
  posts: () => Array<{ id: string; url: string }>;
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
  {
    platform: "linkedin",
    contentType: "linkedin_post",
    content: "Exactly once on LinkedIn #launch",
    media: async (ws) => [await seedMedia(ws, "image")],
    seed: (ws) =>
      seedAccount(ws, {
        platform: "linkedin",
        platformUserId: "abc123",
        credentials: { access_token: "access-token", refresh_token: "refresh-token" },
      }),
    create: { method: "POST", path: "/rest/posts" },
    posts: () => linkedin.posts.map((p) => ({ id: p.urn, url: `https://www.linkedin.com/feed/update/${p.urn}` })),
  },
  {
    platform: "linkedin-page",
    contentType: "linkedin_page_post",
    content: "Exactly once on a LinkedIn Page",
    seed: (ws) =>
      seedAccount(ws, {
        platform: "linkedin-page",
        platformUserId: "2414183",
        credentials: { access_token: "access-token", refresh_token: "refresh-token" },
      }),
    create: { method: "POST", path: "/rest/posts" },
    posts: () => linkedin.posts.map((p) => ({ id: p.urn, url: `https://www.linkedin.com/feed/update/${p.urn}` })),
  },
];

async function publishThroughQueue(c: NetworkCase) {
  const ws = await createTestWorkspace();
  const accountId = await c.seed(ws);
  const post = await seedPost(ws, {
    content: c.content,
    rows: [{ accountId, platform: c.platform, contentType: c.contentType }],
    mediaIds: c.media ? await c.media(ws) : [],
  });
  const delays = await deliverUntilSettled(post.messages);
  return { post, delays, row: await readRow(post.rowIds[0]!) };
}

describe("no post is ever made twice", () => {
  for (const c of CASES) {
    for (const [label, fault] of FAULTS) {
      it(`${c.platform}: ${label} → one post on the network, the row published with its URL`, async () => {
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

  it("x: when X will not let the app read its posts, a lost answer fails the row as could-not-confirm", async () => {
    fakes.x.readAccess = false;
    failAfterHandling("POST", "/2/tweets", { kind: "timeout" });
    const { post, delays, row } = await publishThroughQueue(CASES[0]!);
    expect(fakes.x.tweets.size).toBe(1);
    expect(delays).toHaveLength(1);
    expect(row).toEqual({
      status: "failed",
      platform_post_id: null,
      platform_url: null,
      published_at: null,
      error_message:
        "Could not confirm whether the post was published: the answer from X was lost. Check X before retrying.",
      attempts: 2,
      claimed_at: expect.any(Number),
    });
    expect(await readPost(post.postId)).toMatchObject({ status: "failed" });
  });
});
