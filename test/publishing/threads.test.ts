import { env } from "cloudflare:workers";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { adapterFor } from "../../src/platforms";
import { registerAdapter } from "../../src/platforms/registry";
import {
  type CommentRequest,
  type PlatformAdapter,
  PlatformError,
  type PublishRequest,
  type PublishResult,
} from "../../src/platforms/types";
import type { TestWorkspace } from "../support/harness";
import { createTestWorkspace, deliver, readPost, readRow, seedAccount, seedMedia, seedPost } from "./support";

/**
 * Issue 20 (docs/threads.md), the publish job's side: after a row's post, its thread items go out in order as
 * replies (root = the post, parent = the item before), then the first comment; each is recorded the moment it
 * exists, so a retry continues and never posts an item twice. These tests drive the real queue consumer with a
 * scripted network (this file's adapters stand in for Threads and Facebook: the orchestration is what is tested
 * here; the networks' own reply calls are tested with their fakes in test/platforms/*).
 */

interface Made {
  key: string;
  content: string;
  media: string[];
  root: string | null;
  parent: string | null;
  kind: "post" | "comment";
}

/** A network that keeps what it was asked to make, by the request's stable key, and can be told to fail. */
class ScriptedNetwork {
  made: Made[] = [];
  /** Per key: how the next call for it fails. `lost`: the item is made, then the answer is lost. */
  faults = new Map<string, ("transient" | "permanent" | "lost")[]>();

  adapter(platform: "threads" | "facebook", withComment: boolean): PlatformAdapter {
    const net = this;
    const make = (key: string, m: Omit<Made, "key">): PublishResult => {
      const fault = net.faults.get(key)?.shift();
      if (fault === "transient") throw new PlatformError("transient", "Service unavailable (503).", { status: 503 });
      if (fault === "permanent") throw new PlatformError("permanent", "The network refused the reply.");
      net.made.push({ key, ...m });
      const id = `id-${net.made.length}`;
      if (fault === "lost") throw new PlatformError("transient", "The request timed out.");
      return { platformPostId: id, platformUrl: `https://net.test/p/${id}`, replyRef: { cid: `cid-${id}` } };
    };
    const adapter: PlatformAdapter = {
      platform,
      async publish(_ctx, req: PublishRequest) {
        if (req.replyTo) {
          // What a reply needs comes back with the results it names (Bluesky's cid).
          expect(req.replyTo.root.replyRef).toEqual({ cid: `cid-${req.replyTo.root.platformPostId}` });
          expect(req.replyTo.parent.replyRef).toEqual({ cid: `cid-${req.replyTo.parent.platformPostId}` });
        }
        return make(req.postPlatformId, {
          content: req.content,
          media: req.media.map((m) => m.id),
          root: req.replyTo?.root.platformPostId ?? null,
          parent: req.replyTo?.parent.platformPostId ?? null,
          kind: "post",
        });
      },
      async findExisting(_ctx, req) {
        const i = net.made.findIndex((m) => m.key === req.postPlatformId);
        if (i < 0) return null;
        const id = `id-${i + 1}`;
        return { platformPostId: id, platformUrl: `https://net.test/p/${id}`, replyRef: { cid: `cid-${id}` } };
      },
    };
    if (withComment) {
      adapter.comment = async (_ctx, req: CommentRequest) =>
        make(req.key, { content: req.content, media: [], root: req.on.platformPostId, parent: null, kind: "comment" });
    }
    return adapter;
  }
}

let net: ScriptedNetwork;
const originals = new Map<string, PlatformAdapter | undefined>();
beforeAll(() => {
  for (const p of ["threads", "facebook"]) originals.set(p, adapterFor(p));
});
afterAll(() => {
  for (const [, a] of originals) if (a) registerAdapter(a);
});
beforeEach(() => {
  net = new ScriptedNetwork();
  registerAdapter(net.adapter("threads", false));
  registerAdapter(net.adapter("facebook", true));
});

async function threadsPost(
  ws: TestWorkspace,
  texts: { content?: string | null; thread?: { content: string; media?: string[] }[]; firstComment?: string | null },
) {
  const account = await seedAccount(ws, { platform: "threads", credentials: { access_token: "t" } });
  const post = await seedPost(ws, {
    content: "The post for every network",
    rows: [{ accountId: account, platform: "threads", contentType: "threads_post" }],
  });
  await env.DB.prepare("UPDATE post_platforms SET content = ?, thread = ?, first_comment = ? WHERE id = ?")
    .bind(
      texts.content ?? null,
      texts.thread ? JSON.stringify(texts.thread.map((t) => ({ content: t.content, media: t.media ?? [] }))) : null,
      texts.firstComment ?? null,
      post.rowIds[0]!,
    )
    .run();
  return post;
}

const comment = (content: string, id: string) => ({
  content,
  status: "published",
  platform_post_id: id,
  platform_url: `https://net.test/p/${id}`,
  error_message: null,
});

const item = (content: string, id: string) => ({
  content,
  media: [],
  status: "published",
  platform_post_id: id,
  platform_url: `https://net.test/p/${id}`,
  error_message: null,
});

describe("threads and first comments in the publish job", () => {
  it("publishes the row's own text, then three replies in order, then the first comment, recording every URL", async () => {
    const ws = await createTestWorkspace();
    const image = await seedMedia(ws, "image");
    const post = await threadsPost(ws, {
      content: "Own text for Threads",
      thread: [{ content: "Item one", media: [image] }, { content: "Item two" }, { content: "Item three" }],
      firstComment: "Links in the comments: https://example.com",
    });
    const rowId = post.rowIds[0]!;
    const result = await deliver(post.messages);
    expect(result.explicitAcks).toEqual(["msg-0"]);
    expect(net.made).toEqual([
      { key: rowId, content: "Own text for Threads", media: [], root: null, parent: null, kind: "post" },
      { key: `${rowId}:t1`, content: "Item one", media: [image], root: "id-1", parent: "id-1", kind: "post" },
      { key: `${rowId}:t2`, content: "Item two", media: [], root: "id-1", parent: "id-2", kind: "post" },
      { key: `${rowId}:t3`, content: "Item three", media: [], root: "id-1", parent: "id-3", kind: "post" },
      {
        key: `${rowId}:c`,
        content: "Links in the comments: https://example.com",
        media: [],
        root: "id-1",
        parent: "id-1",
        kind: "post",
      },
    ]);
    const res = await ws.api("GET", `/api/posts/${post.postId}`);
    const row = res.body.platforms[0];
    expect({
      status: row.status,
      platform_post_id: row.platform_post_id,
      platform_url: row.platform_url,
      error_message: row.error_message,
      content: row.content,
      thread: row.thread.map((t: Record<string, unknown>) => ({
        ...t,
        media: (t.media as { id: string }[]).map((m) => m.id),
      })),
      first_comment: row.first_comment,
    }).toEqual({
      status: "published",
      platform_post_id: "id-1",
      platform_url: "https://net.test/p/id-1",
      error_message: null,
      content: "Own text for Threads",
      thread: [{ ...item("Item one", "id-2"), media: [image] }, item("Item two", "id-3"), item("Item three", "id-4")],
      first_comment: comment("Links in the comments: https://example.com", "id-5"),
    });
    expect(res.body.status).toBe("published");
  });

  it("a thread interrupted by a transient error finishes on retry, with no item made twice", async () => {
    const ws = await createTestWorkspace();
    const post = await threadsPost(ws, {
      thread: [{ content: "one" }, { content: "two" }, { content: "three" }],
      firstComment: "comment",
    });
    const rowId = post.rowIds[0]!;
    // Item 2: the network makes it and the answer is lost; then item 3 answers 503 once.
    net.faults.set(`${rowId}:t2`, ["lost"]);
    net.faults.set(`${rowId}:t3`, ["transient"]);

    const first = await deliver(post.messages, { attempts: 1 });
    expect(first.retryMessages.length).toBe(1);
    // Part-way: the post and item 1 are recorded, item 2 is unknown, the row waits for its retry and says why.
    expect(await readRow(rowId)).toMatchObject({
      status: "publishing",
      platform_post_id: "id-1",
      platform_url: "https://net.test/p/id-1",
      error_message: "Thread item 2: The request timed out.",
    });
    const mid = (await ws.api("GET", `/api/posts/${post.postId}`)).body.platforms[0];
    expect(mid.thread.map((t: { status: string }) => t.status)).toEqual(["published", "pending", "pending"]);
    expect(mid.first_comment.status).toBe("pending");

    const second = await deliver(post.messages, { attempts: 2 });
    expect(second.retryMessages.length).toBe(1); // item 3's 503
    expect((await readRow(rowId))!.error_message).toBe("Thread item 3: Service unavailable (503).");
    const third = await deliver(post.messages, { attempts: 3 });
    expect(third.explicitAcks).toEqual(["msg-0"]);

    // Each item exists once: the lost item 2 was found again, not posted again.
    expect(net.made.map((m) => [m.key, m.parent])).toEqual([
      [rowId, null],
      [`${rowId}:t1`, "id-1"],
      [`${rowId}:t2`, "id-2"],
      [`${rowId}:t3`, "id-3"],
      [`${rowId}:c`, "id-1"],
    ]);
    const row = (await ws.api("GET", `/api/posts/${post.postId}`)).body.platforms[0];
    expect([row.status, row.error_message, row.platform_post_id]).toEqual(["published", null, "id-1"]);
    expect(row.thread).toEqual([item("one", "id-2"), item("two", "id-3"), item("three", "id-4")]);
    expect(row.first_comment).toEqual(comment("comment", "id-5"));
    expect(await readPost(post.postId)).toMatchObject({ status: "published" });
  });

  it("an item the network refuses is marked failed with later items; the comment still goes; the row is published", async () => {
    const ws = await createTestWorkspace();
    const post = await threadsPost(ws, {
      thread: [{ content: "one" }, { content: "two" }, { content: "three" }],
      firstComment: "comment",
    });
    const rowId = post.rowIds[0]!;
    net.faults.set(`${rowId}:t2`, ["permanent"]);
    const result = await deliver(post.messages);
    expect(result.explicitAcks).toEqual(["msg-0"]);
    const row = (await ws.api("GET", `/api/posts/${post.postId}`)).body.platforms[0];
    expect([row.status, row.error_message]).toEqual(["published", null]);
    expect(row.thread).toEqual([
      item("one", "id-2"),
      {
        content: "two",
        media: [],
        status: "failed",
        platform_post_id: null,
        platform_url: null,
        error_message: "The network refused the reply.",
      },
      {
        content: "three",
        media: [],
        status: "failed",
        platform_post_id: null,
        platform_url: null,
        error_message: "Not published: thread item 2 failed.",
      },
    ]);
    expect(row.first_comment).toEqual(comment("comment", "id-3"));
    expect(net.made.map((m) => m.key)).toEqual([rowId, `${rowId}:t1`, `${rowId}:c`]);
  });

  it("a first comment that keeps failing does not fail the row: after the last attempt it is reported on it", async () => {
    const ws = await createTestWorkspace();
    const post = await threadsPost(ws, { firstComment: "comment" });
    const rowId = post.rowIds[0]!;
    net.faults.set(`${rowId}:c`, ["transient", "transient", "transient", "transient", "transient", "transient"]);
    for (let attempt = 1; attempt <= 5; attempt++) {
      const r = await deliver(post.messages, { attempts: attempt });
      expect(r.retryMessages.length).toBe(1);
      expect(await readRow(rowId)).toMatchObject({
        status: "publishing",
        error_message: "First comment: Service unavailable (503).",
      });
    }
    const last = await deliver(post.messages, { attempts: 6 });
    expect(last.explicitAcks).toEqual(["msg-0"]);
    const row = (await ws.api("GET", `/api/posts/${post.postId}`)).body.platforms[0];
    expect([row.status, row.error_message, row.platform_post_id]).toEqual(["published", null, "id-1"]);
    expect(row.first_comment).toEqual({
      content: "comment",
      status: "failed",
      platform_post_id: null,
      platform_url: null,
      error_message: "Service unavailable (503).",
    });
    expect(net.made.map((m) => m.key)).toEqual([rowId]);
  });

  it("posts the first comment with the network's comment call where it has one", async () => {
    const ws = await createTestWorkspace();
    const account = await seedAccount(ws, { platform: "facebook", credentials: { access_token: "t" } });
    const post = await seedPost(ws, {
      content: "Page post",
      rows: [{ accountId: account, platform: "facebook", contentType: "facebook_post" }],
    });
    const rowId = post.rowIds[0]!;
    await env.DB.prepare("UPDATE post_platforms SET first_comment = 'First!' WHERE id = ?").bind(rowId).run();
    await deliver(post.messages);
    expect(net.made).toEqual([
      { key: rowId, content: "Page post", media: [], root: null, parent: null, kind: "post" },
      { key: `${rowId}:c`, content: "First!", media: [], root: "id-1", parent: null, kind: "comment" },
    ]);
    const row = (await ws.api("GET", `/api/posts/${post.postId}`)).body.platforms[0];
    expect(row.first_comment).toEqual(comment("First!", "id-2"));
  });

  it("a row timed out part-way: its live items cannot be edited; an edited pending item goes out with its new text", async () => {
    const ws = await createTestWorkspace();
    const post = await threadsPost(ws, {
      thread: [{ content: "one" }, { content: "two" }, { content: "three" }],
      firstComment: "comment",
    });
    const rowId = post.rowIds[0]!;
    net.faults.set(`${rowId}:t3`, ["transient"]);
    expect((await deliver(post.messages, { attempts: 1 })).retryMessages.length).toBe(1);
    // The retry never comes: the sweeper fails the row and the post (its post and items 1–2 are live).
    await env.DB.batch([
      env.DB.prepare(
        "UPDATE post_platforms SET status = 'failed', error_message = 'Publishing timed out.' WHERE id = ?",
      ).bind(rowId),
      env.DB.prepare("UPDATE posts SET status = 'failed' WHERE id = ?").bind(post.postId),
    ]);
    const refused = await ws.api("PUT", `/api/posts/${post.postId}`, {
      platforms: [{ id: rowId, thread: [{ content: "one" }, { content: "two, fixed" }] }],
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({
      "platforms.0.thread.1": ["Thread item 2 is already published and cannot be changed or removed."],
    });
    // Item 3 (not yet out) can change.
    const edited = await ws.api("PUT", `/api/posts/${post.postId}`, {
      status: "draft",
      platforms: [{ id: rowId, thread: [{ content: "one" }, { content: "two" }, { content: "three, fixed" }] }],
    });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.platforms[0].thread.map((t: { status: string }) => t.status)).toEqual([
      "published",
      "published",
      "pending",
    ]);
    await env.DB.batch([
      env.DB.prepare("UPDATE post_platforms SET status = 'pending', error_message = NULL WHERE id = ?").bind(rowId),
      env.DB.prepare("UPDATE posts SET status = 'publishing' WHERE id = ?").bind(post.postId),
    ]);
    expect((await deliver(post.messages, { attempts: 1 })).explicitAcks).toEqual(["msg-0"]);
    expect(net.made.map((m) => [m.key, m.content, m.parent])).toEqual([
      [rowId, "The post for every network", null],
      [`${rowId}:t1`, "one", "id-1"],
      [`${rowId}:t2`, "two", "id-2"],
      [`${rowId}:t3`, "three, fixed", "id-3"],
      [`${rowId}:c`, "comment", "id-1"],
    ]);
    const row = (await ws.api("GET", `/api/posts/${post.postId}`)).body.platforms[0];
    expect(row.thread).toEqual([item("one", "id-2"), item("two", "id-3"), item("three, fixed", "id-4")]);
    expect([row.status, row.platform_post_id, row.first_comment.status]).toEqual(["published", "id-1", "published"]);
  });

  it("a row whose thread item is too long fails before anything is posted", async () => {
    const ws = await createTestWorkspace();
    const post = await threadsPost(ws, { thread: [{ content: "fine" }, { content: "x".repeat(501) }] });
    await deliver(post.messages);
    expect(await readRow(post.rowIds[0]!)).toMatchObject({
      status: "failed",
      platform_post_id: null,
      error_message: "Thread item 2: Content exceeds Threads limit of 500 characters (501 provided).",
    });
    expect(net.made).toEqual([]);
  });
});
