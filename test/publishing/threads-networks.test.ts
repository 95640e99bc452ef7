import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TestWorkspace } from "../support/harness";
import { type Fakes, installFakes, seedBlueskyAccount, seedMastodonAccount, seedXAccount } from "./platforms";
import { createTestWorkspace, deliver, readRow, seedPost } from "./support";

/**
 * Issue 20 done-when, per network, with the real adapters and the networks' fakes (X, Bluesky, Mastodon): the row's
 * own text is the post; a three-item thread goes out as three replies in order (root = the post, parent = the item
 * before) with every URL recorded; the first comment is a reply under the post; a thread whose reply answer is lost
 * part-way finishes on retry with no item posted twice.
 */

let fakes: Fakes;
beforeEach(() => {
  fakes = installFakes();
});
afterEach(() => fakes.uninstall());

/**
 * The `n`-th matching request reaches the network (the fake makes the post) and then its answer is lost (timeout),
 * as a dropped connection does. Returns the way back to the fetch before.
 */
function loseAnswer(method: string, path: RegExp, n: number): () => void {
  const inner = globalThis.fetch;
  let seen = 0;
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    if (request.method === method && path.test(new URL(request.url).pathname) && ++seen === n) {
      const response = await inner(request);
      await response.body?.cancel();
      throw new DOMException("The operation was aborted due to timeout", "TimeoutError");
    }
    return inner(request);
  };
  return () => {
    globalThis.fetch = inner;
  };
}

interface Network {
  platform: "x" | "bluesky" | "mastodon";
  contentType: string;
  seed: (ws: TestWorkspace) => Promise<string>;
  create: RegExp;
  /** The network's posts in creation order: [text, what it replies to (root, parent) as ids/uris]. */
  chain: () => { id: string; text: string; parent: string | null; root: string | null }[];
}

const NETWORKS: Network[] = [
  {
    platform: "x",
    contentType: "x_post",
    seed: (ws) => seedXAccount(ws),
    create: /^\/2\/tweets$/,
    chain: () =>
      [...fakes.x.tweets.values()].map((t) => ({
        id: t.id,
        text: t.text,
        parent: t.in_reply_to,
        root: t.in_reply_to ? t.conversation_id : null,
      })),
  },
  {
    platform: "bluesky",
    contentType: "bluesky_post",
    seed: (ws) => seedBlueskyAccount(ws, fakes.bluesky),
    create: /createRecord$/,
    chain: () => fakes.bluesky.replyChain().map((r) => ({ id: r.uri, text: r.text, parent: r.parent, root: r.root })),
  },
  {
    platform: "mastodon",
    contentType: "mastodon_post",
    seed: (ws) => seedMastodonAccount(ws),
    create: /^\/api\/v1\/statuses$/,
    chain: () => {
      const all = [...fakes.mastodon.statuses.values()];
      const rootOf = (id: string | null): string | null => {
        let s = all.find((x) => x.id === id);
        while (s?.in_reply_to_id) s = all.find((x) => x.id === s!.in_reply_to_id);
        return s?.id ?? null;
      };
      return all.map((s) => ({
        id: s.id,
        text: s.text,
        parent: s.in_reply_to_id,
        root: s.in_reply_to_id ? rootOf(s.in_reply_to_id) : null,
      }));
    },
  },
];

const THREAD = [
  "Part one https://example.com/one #launch",
  "Part two https://example.com/two #launch",
  "Part three https://example.com/three #launch",
];

async function threadPost(ws: TestWorkspace, n: Network) {
  const account = await n.seed(ws);
  const post = await seedPost(ws, {
    content: "The post's shared text, which this row replaces",
    rows: [{ accountId: account, platform: n.platform, contentType: n.contentType }],
  });
  await env.DB.prepare("UPDATE post_platforms SET content = ?, thread = ?, first_comment = ? WHERE id = ?")
    .bind(
      `Own text for ${n.platform}`,
      JSON.stringify(THREAD.map((content) => ({ content, media: [] }))),
      "Links in the first comment: https://example.com/more",
      post.rowIds[0]!,
    )
    .run();
  return post;
}

/** The chain the network must hold: the post, three replies in order, the comment under the post. */
function expectChain(n: Network) {
  const chain = n.chain();
  expect(chain.map((c) => c.text)).toEqual([
    `Own text for ${n.platform}`,
    ...THREAD,
    "Links in the first comment: https://example.com/more",
  ]);
  const [main, t1, t2, t3, comment] = chain;
  expect(chain.map((c) => [c.root, c.parent])).toEqual([
    [null, null],
    [main!.id, main!.id],
    [main!.id, t1!.id],
    [main!.id, t2!.id],
    [main!.id, main!.id],
  ]);
  return { main: main!, items: [t1!, t2!, t3!], comment: comment! };
}

async function expectRecorded(ws: TestWorkspace, postId: string, n: Network) {
  const { main, items, comment } = expectChain(n);
  const row = (await ws.api("GET", `/api/posts/${postId}`)).body.platforms[0];
  expect([row.status, row.error_message, row.content, row.platform_post_id]).toEqual([
    "published",
    null,
    `Own text for ${n.platform}`,
    main.id,
  ]);
  expect(row.thread).toEqual(
    items.map((t, i) => ({
      content: THREAD[i],
      media: [],
      status: "published",
      platform_post_id: t.id,
      platform_url: expect.stringMatching(/^https:\/\//),
      error_message: null,
    })),
  );
  expect(row.first_comment).toEqual({
    content: "Links in the first comment: https://example.com/more",
    status: "published",
    platform_post_id: comment.id,
    platform_url: expect.stringMatching(/^https:\/\//),
    error_message: null,
  });
  // Every URL is its own.
  const urls = [
    row.platform_url,
    ...row.thread.map((t: { platform_url: string }) => t.platform_url),
    row.first_comment.platform_url,
  ];
  expect(new Set(urls).size).toBe(5);
}

describe("bluesky thread facets", () => {
  it("each reply carries its link and hashtag facets (UTF-8 byte offsets)", async () => {
    const ws = await createTestWorkspace();
    const n = NETWORKS[1]!;
    const post = await threadPost(ws, n);
    await deliver(post.messages);
    const records = [...fakes.bluesky.records.values()].slice(1, 4);
    expect(
      records.map((r) =>
        (r.value.facets as { index: { byteStart: number; byteEnd: number }; features: Record<string, string>[] }[]).map(
          (f) => [f.index.byteStart, f.index.byteEnd, f.features[0]!.$type, f.features[0]!.uri ?? f.features[0]!.tag],
        ),
      ),
    ).toEqual(
      ["one", "two", "three"].map((w) => {
        const text = `Part ${w} https://example.com/${w} #launch`;
        const link = `https://example.com/${w}`;
        const at = text.indexOf(link);
        return [
          [at, at + link.length, "app.bsky.richtext.facet#link", link],
          [text.indexOf("#launch"), text.length, "app.bsky.richtext.facet#tag", "launch"],
        ];
      }),
    );
  });
});

describe.each(NETWORKS)("$platform: own text, thread and first comment", (n) => {
  it("publishes the row's own text, three replies in order and the first comment, with every URL recorded", async () => {
    const ws = await createTestWorkspace();
    const post = await threadPost(ws, n);
    const result = await deliver(post.messages);
    expect(result.explicitAcks).toEqual(["msg-0"]);
    await expectRecorded(ws, post.postId, n);
  });

  it("a thread whose reply answer is lost finishes on retry, with no item posted twice", async () => {
    const ws = await createTestWorkspace();
    const post = await threadPost(ws, n);
    // The third creation is thread item 2: the network makes it, the answer never arrives.
    const restore = loseAnswer("POST", n.create, 3);
    try {
      const first = await deliver(post.messages, { attempts: 1 });
      expect(first.retryMessages.length).toBe(1);
    } finally {
      restore();
    }
    expect(await readRow(post.rowIds[0]!)).toMatchObject({ status: "publishing", platform_post_id: n.chain()[0]!.id });
    const second = await deliver(post.messages, { attempts: 2 });
    expect(second.explicitAcks).toEqual(["msg-0"]);
    expect(n.chain()).toHaveLength(5);
    await expectRecorded(ws, post.postId, n);
  });
});
