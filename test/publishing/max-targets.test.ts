// fresh storage: runs the Worker's cron, which works on every workspace's rows at once.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { POST_TARGETS_MAX } from "../../src/lib/bounds";
import type { PublishMessage } from "../../src/publishing/messages";
import { fakeLinkedIn, type LinkedInFake } from "../support/fakes/linkedin";
import { fakeFacebookGraph, fakeInstagramGraph, type MetaGraphFake } from "../support/fakes/meta";
import { fakePinterest } from "../support/fakes/pinterest";
import { fakeThreads, type ThreadsFake } from "../support/fakes/threads";
import { fakeTikTok, type TikTokFake } from "../support/fakes/tiktok";
import { fakeYouTube } from "../support/fakes/youtube";
import { type TestWorkspace, YMDHIS } from "../support/harness";
import { type Fakes, installFakes, seedBlueskyAccount, seedMastodonAccount, seedXAccount } from "./platforms";
import {
  createTestWorkspace,
  deliver,
  instantLongWaits,
  readPost,
  recordingQueue,
  seedAccount,
  seedMedia,
  tick,
} from "./support";

/**
 * Issue 15, "done when": a post to the maximum number of accounts (POST_TARGETS_MAX = 100), covering the twelve
 * platform families, created through the API, claimed by the scheduler and published through the queue consumer
 * against the fakes — every row `published`, exactly one post per account on its network.
 */

let fakes: Fakes;
let linkedin: LinkedInFake;
let facebook: MetaGraphFake;
let instagram: MetaGraphFake;
let threads: ThreadsFake;
let tiktok: TikTokFake;
let youtube: ReturnType<typeof fakeYouTube>;
let pinterest: ReturnType<typeof fakePinterest>;

const BOARD = "549755885175";
/** Per family, the accounts' own tokens: every account speaks to its network as itself. */
const tokens = (family: string, n: number) => Array.from({ length: n }, (_, i) => `${family}-token-${i}`);

const FAMILIES = [
  "x",
  "linkedin",
  "linkedin-page",
  "facebook",
  "instagram",
  "instagram-facebook",
  "tiktok",
  "youtube",
  "threads",
  "pinterest",
  "bluesky",
  "mastodon",
] as const;
type Family = (typeof FAMILIES)[number];

/** 100 accounts over 12 families: 9 for the first four, 8 for the rest. */
const perFamily = Object.fromEntries(
  FAMILIES.map((f, i) => [
    f,
    Math.floor(POST_TARGETS_MAX / FAMILIES.length) + (i < POST_TARGETS_MAX % FAMILIES.length ? 1 : 0),
  ]),
) as Record<Family, number>;

beforeEach(() => {
  fakes = installFakes();
  linkedin = fakeLinkedIn();
  linkedin.partSize = 4 * 1024 * 1024; // LinkedIn's own part size (also the fake's default)
  facebook = fakeFacebookGraph();
  instagram = fakeInstagramGraph();
  threads = fakeThreads();
  tiktok = fakeTikTok({ accessTokens: tokens("tiktok", perFamily.tiktok), statuses: ["PUBLISH_COMPLETE"] });
  youtube = fakeYouTube({
    accessTokens: tokens("youtube", perFamily.youtube),
    processing: [{ uploadStatus: "processed", processingStatus: "succeeded" }],
  });
  pinterest = fakePinterest({ accessTokens: tokens("pinterest", perFamily.pinterest), mediaStatuses: ["succeeded"] });
  for (const t of tokens("facebook", perFamily.facebook)) facebook.validTokens.add(t);
  for (const t of tokens("instagram-facebook", perFamily["instagram-facebook"])) facebook.validTokens.add(t);
  for (const t of tokens("instagram", perFamily.instagram)) instagram.validTokens.add(t);
  for (const t of tokens("threads", perFamily.threads)) threads.validTokens.add(t);
  for (const t of tokens("linkedin", perFamily.linkedin)) linkedin.validTokens.add(t);
  for (const t of tokens("linkedin-page", perFamily["linkedin-page"])) linkedin.validTokens.add(t);
  for (const t of tokens("mastodon", perFamily.mastodon)) fakes.mastodon.tokens.add(t);
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

/** The one video content type of each family (a single video is the media every family can publish). */
const CONTENT_TYPE: Record<Family, string> = {
  x: "x_post",
  linkedin: "linkedin_post",
  "linkedin-page": "linkedin_page_post",
  facebook: "facebook_post",
  instagram: "instagram_feed",
  "instagram-facebook": "instagram_feed",
  tiktok: "tiktok_video",
  youtube: "youtube_short",
  threads: "threads_post",
  pinterest: "pinterest_video_pin",
  bluesky: "bluesky_post",
  mastodon: "mastodon_post",
};

/** The network-side id of each seeded account, per family (Page, IG user, person …). */
const accountIdsOn = Object.fromEntries(FAMILIES.map((f) => [f, [] as string[]])) as Record<Family, string[]>;
const networkId = (family: Family, i: number) => {
  const id = (
    {
      linkedin: `person${i}`,
      "linkedin-page": `24141${i}`,
      facebook: `10101010${i}`,
      instagram: `17841400000009${i}`,
      "instagram-facebook": `17841400000018${i}`,
      threads: `700000${i}`,
    } as Partial<Record<Family, string>>
  )[family];
  return id ?? `${family}-user-${i}`;
};

async function seedFamily(ws: TestWorkspace, family: Family, i: number): Promise<string> {
  accountIdsOn[family].push(networkId(family, i));
  const token = tokens(family, perFamily[family])[i]!;
  const credentials = { access_token: token, refresh_token: `${token}-refresh` };
  switch (family) {
    case "x":
      return seedXAccount(ws, { platformUserId: `12345678${i}`, username: `alice_x${i}` });
    case "bluesky":
      // One fake PDS user: the accounts differ by their sessions (and their stored ids).
      return seedBlueskyAccount(ws, fakes.bluesky, { platformUserId: `${fakes.bluesky.did}-${i}` });
    case "mastodon":
      return seedMastodonAccount(ws, { credentials: { access_token: token }, platformUserId: `10900000000000000${i}` });
    default:
      return seedAccount(ws, { platform: family, platformUserId: networkId(family, i), credentials });
  }
}

/** The queue's behaviour, minus the delays: batches of 10 (max_batch_size), retries fed back until all settle. */
async function deliverAll(messages: PublishMessage[]) {
  let pending = messages;
  for (let attempt = 1; pending.length > 0 && attempt <= 6; attempt++) {
    const next: PublishMessage[] = [];
    for (let at = 0; at < pending.length; at += 10) {
      const batch = pending.slice(at, at + 10);
      const result = await deliver(batch, { attempts: attempt });
      const retried = new Set(result.retryMessages.map((r) => r.msgId));
      batch.forEach((m, i) => {
        if (retried.has(`msg-${i}`)) next.push(m);
      });
    }
    pending = next;
  }
  return pending;
}

describe("a post to the maximum number of accounts, over all twelve families", () => {
  it(`publishes to ${POST_TARGETS_MAX} accounts: every row published, one post per account`, async () => {
    instantLongWaits();
    for (const f of FAMILIES) accountIdsOn[f].length = 0;
    const ws = await createTestWorkspace();
    const accounts: { id: string; family: Family }[] = [];
    for (const family of FAMILIES)
      for (let i = 0; i < perFamily[family]; i++) accounts.push({ id: await seedFamily(ws, family, i), family });
    expect(accounts).toHaveLength(POST_TARGETS_MAX);
    const video = await seedMedia(ws, "video");

    const created = await ws.api("POST", "/api/posts", {
      content: "Launch day for the whole team",
      platforms: accounts.map((a) => ({ social_account_id: a.id, content_type: CONTENT_TYPE[a.family] })),
      media: [{ id: video }],
    });
    expect(created.status, created.text).toBe(201);
    const postId = created.body.id as string;
    // Row meta is set with PUT (Pinterest's board), in the same request that schedules the post.
    const pins = (created.body.platforms as any[]).filter((r) => r.platform === "pinterest");
    const scheduled = await ws.api("PUT", `/api/posts/${postId}`, {
      platforms: pins.map((r) => ({ id: r.id, meta: { board_id: BOARD, title: "Launch" } })),
      status: "scheduled",
      scheduled_at: new Date(Date.now() + 120_000).toISOString(),
    });
    expect(scheduled.status, scheduled.text).toBe(200);
    await env.DB.prepare("UPDATE posts SET scheduled_at = ? WHERE id = ?")
      .bind(Date.now() - 1000, postId)
      .run();

    const messages = await tick(recordingQueue());
    expect(messages).toHaveLength(POST_TARGETS_MAX);
    expect(await deliverAll(messages)).toEqual([]);

    const shown = await ws.api("GET", `/api/posts/${postId}`);
    const stored = await env.DB.prepare("SELECT path, size, width, height, duration_seconds FROM media WHERE id = ?")
      .bind(video)
      .first<{ path: string; size: number; width: number; height: number; duration_seconds: number | null }>();
    const accountRows = created.body.platforms as any[];
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual({
      id: postId,
      content: "Launch day for the whole team",
      media: [
        {
          id: video,
          path: stored!.path,
          url: `https://media.test/${stored!.path}`,
          type: "video",
          mime_type: "video/mp4",
          original_filename: "file.mp4",
          size: stored!.size,
          width: stored!.width,
          height: stored!.height,
          duration_seconds: stored!.duration_seconds,
          alt: null,
        },
      ],
      status: "published",
      scheduled_at: expect.stringMatching(YMDHIS),
      published_at: expect.stringMatching(YMDHIS),
      queue_id: null,
      repeat: null,
      repeat_of: null,
      platforms: accounts.map((a, i) => ({
        id: accountRows[i].id,
        platform: a.family,
        content_type: CONTENT_TYPE[a.family],
        status: "published",
        enabled: true,
        platform_url: expect.stringMatching(/^https:\/\//),
        published_at: expect.stringMatching(YMDHIS),
        error_message: null,
        display_name: accountRows[i].display_name,
        display_username: accountRows[i].display_username,
        display_avatar: accountRows[i].display_avatar,
        social_account: { ...accountRows[i].social_account, id: a.id, platform: a.family, status: "connected" },
        meta: a.family === "pinterest" ? { board_id: BOARD, title: "Launch" } : {},
        platform_post_id: expect.stringMatching(/\S/),
      })),
      labels: [],
      created_at: expect.stringMatching(YMDHIS),
      updated_at: expect.stringMatching(YMDHIS),
    });
    expect(await readPost(postId)).toMatchObject({ status: "published" });

    // Exactly one post per account on its network: counts per network, and the owner of each post where the
    // network records it (Page, Instagram user, Threads user, LinkedIn author).
    const ids = (family: Family) => accountIdsOn[family];
    expect(fakes.x.tweets.size).toBe(perFamily.x);
    expect(linkedin.posts.map((p) => p.body.author).sort()).toEqual(
      [
        ...ids("linkedin").map((id) => `urn:li:person:${id}`),
        ...ids("linkedin-page").map((id) => `urn:li:organization:${id}`),
      ].sort(),
    );
    expect(facebook.published.map((p) => p.owner).sort()).toEqual(
      [...ids("facebook"), ...ids("instagram-facebook")].sort(),
    );
    expect(instagram.published.map((p) => p.owner).sort()).toEqual([...ids("instagram")].sort());
    expect(threads.published.map((p) => p.owner).sort()).toEqual([...ids("threads")].sort());
    expect(tiktok.publishes.size).toBe(perFamily.tiktok);
    expect(
      youtube.calls.filter((c) => c.method === "PUT" && /bytes \d+-\d+\//.test(c.headers["content-range"] ?? "")),
    ).toHaveLength(perFamily.youtube);
    expect(pinterest.pins.size).toBe(perFamily.pinterest);
    expect(fakes.bluesky.records.size).toBe(perFamily.bluesky);
    expect(fakes.mastodon.statuses.size).toBe(perFamily.mastodon);
  }, 120_000);
});
