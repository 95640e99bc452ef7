import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createTestWorkspace, type TestWorkspace } from "../support/harness";
import { connectAccount, DAY, insertAccount, insertMedia, isoIn } from "./posts-fixtures";

/**
 * Issue 20 (docs/threads.md): per-row `content`, `thread` and `first_comment` on POST and PUT /api/posts, their
 * checks (where written, and against each network's limits when scheduled, naming row and item), signatures on PUT,
 * per-row meta fields and the preview.
 */

const pending = { status: "pending", platform_post_id: null, platform_url: null, error_message: null };

async function accounts(ws: TestWorkspace) {
  const x = await connectAccount(ws, "x");
  const li = await connectAccount(ws, "linkedin");
  const bsky = await insertAccount(ws, "bluesky");
  const ig = await connectAccount(ws, "instagram");
  return { x: x.id, li: li.id, bsky, ig: ig.id };
}

describe("per-row texts on POST /api/posts", () => {
  it("stores each row's own text, thread and first comment and shows them on the row only when set", async () => {
    const ws = await createTestWorkspace();
    const a = await accounts(ws);
    const img = await insertMedia(ws, "image");
    const res = await ws.api("POST", "/api/posts", {
      content: "Shared text",
      platforms: [
        {
          social_account_id: a.x,
          content_type: "x_post",
          content: "Short for X",
          thread: [
            { content: "Item one" },
            { content: "Item two", media: [{ id: img.id }] },
            { content: "Item three" },
          ],
          first_comment: "Link: https://example.com",
        },
        { social_account_id: a.li, content_type: "linkedin_post", first_comment: "More below" },
        { social_account_id: a.bsky, content_type: "bluesky_post" },
      ],
    });
    expect(res.status, res.text).toBe(201);
    const [x, li, bsky] = res.body.platforms;
    expect({ content: x.content, thread: x.thread, first_comment: x.first_comment }).toEqual({
      content: "Short for X",
      thread: [
        { content: "Item one", media: [], ...pending },
        { content: "Item two", media: [img], ...pending },
        { content: "Item three", media: [], ...pending },
      ],
      first_comment: { content: "Link: https://example.com", ...pending },
    });
    expect(li.first_comment).toEqual({ content: "More below", ...pending });
    // A row that sets none of them is the PostPlatform exactly as before: no new keys at all.
    expect(Object.keys(li)).not.toContain("thread");
    expect(Object.keys(li)).not.toContain("content");
    expect(Object.keys(bsky).sort()).toEqual(
      [
        "id",
        "platform",
        "content_type",
        "status",
        "enabled",
        "platform_url",
        "published_at",
        "error_message",
        "display_name",
        "display_username",
        "display_avatar",
        "social_account",
        "meta",
        "platform_post_id",
      ].sort(),
    );
    const get = await ws.api("GET", `/api/posts/${res.body.id}`);
    expect(get.body).toEqual(res.body);
    const list = await ws.api("GET", "/api/posts");
    expect(list.body.data[0]).toEqual(res.body);
  });

  it("refuses a thread or a first comment a network does not take, and unknown item media, in one round", async () => {
    const ws = await createTestWorkspace();
    const a = await accounts(ws);
    const pin = await connectAccount(ws, "pinterest");
    const res = await ws.api("POST", "/api/posts", {
      content: "Hi",
      platforms: [
        { social_account_id: a.li, content_type: "linkedin_post", thread: [{ content: "no threads here" }] },
        { social_account_id: pin.id, content_type: "pinterest_pin", first_comment: "no comments here" },
        {
          social_account_id: a.x,
          content_type: "x_post",
          thread: [{ content: "ok", media: [{ id: crypto.randomUUID() }] }],
        },
        { social_account_id: a.bsky, content_type: "bluesky_post", thread: [{ content: " " }] },
      ],
      label_ids: [crypto.randomUUID()],
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: "Threads are published only on X, Bluesky, Threads and Mastodon. (and 4 more errors)",
      errors: {
        "platforms.0.thread": ["Threads are published only on X, Bluesky, Threads and Mastodon."],
        "platforms.1.first_comment": [
          "A first comment is posted only on Facebook, Instagram, LinkedIn, YouTube, X, Bluesky, Threads and Mastodon.",
        ],
        "platforms.2.thread.0.media.0.id": ["The selected platforms.2.thread.0.media.0.id is invalid."],
        "platforms.3.thread.0.content": ["Thread item 1 needs text or media."],
        "label_ids.0": ["The selected label ids.0 is invalid."],
      },
    });
  });

  it("bounds the thread (25 items) and each item's media (10), with shape and reference errors together", async () => {
    const ws = await createTestWorkspace();
    const a = await accounts(ws);
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ content: `item ${i + 1}` }));
    const tooMany = await ws.api("POST", "/api/posts", {
      platforms: [
        { social_account_id: a.x, content_type: "x_post", thread: items(26) },
        {
          social_account_id: a.bsky,
          content_type: "bluesky_post",
          thread: [{ content: "m", media: Array.from({ length: 11 }, () => ({ id: crypto.randomUUID() })) }],
        },
        { social_account_id: crypto.randomUUID(), content_type: "x_post" },
      ],
    });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors).toEqual({
      "platforms.0.thread": ["The platforms.0.thread field must not have more than 25 items."],
      "platforms.1.thread.0.media": ["The platforms.1.thread.0.media field must not have more than 10 items."],
      "platforms.2.social_account_id": ["The selected platforms.2.social account id is invalid."],
    });

    // At the bound: 25 items on each of four rows, every item with media, in one create.
    const media = await Promise.all(Array.from({ length: 4 }, () => insertMedia(ws, "image")));
    const full = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ content: `item ${i + 1}`, media: media.map((m) => ({ id: m.id })) }));
    const mast = await insertAccount(ws, "mastodon");
    const ok = await ws.api("POST", "/api/posts", {
      content: "Root",
      platforms: [
        { social_account_id: a.x, content_type: "x_post", thread: full(25) },
        { social_account_id: a.bsky, content_type: "bluesky_post", thread: full(25) },
        { social_account_id: mast, content_type: "mastodon_post", thread: full(25) },
      ],
    });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.platforms.map((p: { thread: unknown[] }) => p.thread.length)).toEqual([25, 25, 25]);
    expect(ok.body.platforms[2].thread[24]).toEqual({ content: "item 25", media, ...pending });
  });
});

describe("per-row texts on PUT /api/posts/{post}", () => {
  async function draft(ws: TestWorkspace, a: Awaited<ReturnType<typeof accounts>>) {
    const res = await ws.api("POST", "/api/posts", {
      content: "Shared",
      scheduled_at: isoIn(DAY),
      platforms: [
        { social_account_id: a.li, content_type: "linkedin_post" },
        { social_account_id: a.x, content_type: "x_post" },
        { social_account_id: a.bsky, content_type: "bluesky_post" },
      ],
    });
    expect(res.status, res.text).toBe(201);
    return res.body;
  }

  it("refuses at schedule time every over-long text, naming the row and the item, in one 422", async () => {
    const ws = await createTestWorkspace();
    const a = await accounts(ws);
    const post = await draft(ws, a);
    const [li, x, bsky] = post.platforms;
    const set = await ws.api("PUT", `/api/posts/${post.id}`, {
      platforms: [
        { id: x.id, content: "x".repeat(281), thread: [{ content: "fine" }, { content: "y".repeat(290) }] },
        { id: bsky.id, thread: [{ content: "ok" }, { content: "ok" }, { content: "b".repeat(301) }] },
        { id: li.id, first_comment: "c".repeat(1251) },
      ],
    });
    expect(set.status, set.text).toBe(200);
    const res = await ws.api("PUT", `/api/posts/${post.id}`, { status: "scheduled" });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: "First comment: LinkedIn: too long by 1 character (max 1250). (and 3 more errors)",
      errors: {
        "platforms.0.first_comment": ["First comment: LinkedIn: too long by 1 character (max 1250)."],
        "platforms.1.content": ["X: too long by 1 character (max 280)."],
        "platforms.1.thread.1.content": ["Thread item 2: X: too long by 10 characters (max 280)."],
        "platforms.2.thread.2.content": ["Thread item 3: Bluesky: too long by 1 character (max 300)."],
      },
    });

    // Fixed: the override replaces the post's text (which alone would be too long for X), and it schedules.
    const fixed = await ws.api("PUT", `/api/posts/${post.id}`, {
      content: "s".repeat(500),
      status: "scheduled",
      platforms: [
        { id: x.id, content: "Short", thread: [{ content: "fine" }, { content: "also fine" }] },
        { id: bsky.id, content: "Short too", thread: null },
        { id: li.id, first_comment: null },
      ],
    });
    expect(fixed.status, fixed.text).toBe(200);
    expect(fixed.body.status).toBe("scheduled");
    expect(fixed.body.platforms[1].thread.map((t: { content: string }) => t.content)).toEqual(["fine", "also fine"]);
    expect(Object.keys(fixed.body.platforms[2])).not.toContain("thread");
    expect(Object.keys(fixed.body.platforms[0])).not.toContain("first_comment");
  });

  it("refuses over-long items and first comments on every network that takes them, naming row and item", async () => {
    const ws = await createTestWorkspace();
    const rows = [
      ["x", "x_post", 281, 281],
      ["bluesky", "bluesky_post", 301, 301],
      ["threads", "threads_post", 501, 501],
      ["mastodon", "mastodon_post", 501, 501],
      ["facebook", "facebook_post", 0, 8001],
      ["instagram", "instagram_feed", 0, 2201],
      ["linkedin-page", "linkedin_page_post", 0, 1251],
      ["youtube", "youtube_short", 0, 10001],
    ] as const;
    const video = await insertMedia(ws, "video");
    const platforms = [];
    for (const [platform, contentType, itemLength, commentLength] of rows) {
      const id = ["bluesky", "mastodon"].includes(platform)
        ? await insertAccount(ws, platform)
        : (await connectAccount(ws, platform)).id;
      platforms.push({
        social_account_id: id,
        content_type: contentType,
        ...(itemLength ? { thread: [{ content: "fine" }, { content: "i".repeat(itemLength) }] } : {}),
        first_comment: "c".repeat(Math.min(commentLength, 10000)),
      });
    }
    const created = await ws.api("POST", "/api/posts", { content: "", media: [], platforms });
    expect(created.status, created.text).toBe(201);
    const res = await ws.api("PUT", `/api/posts/${created.body.id}`, {
      status: "scheduled",
      scheduled_at: isoIn(DAY),
      media: [{ id: video.id }],
    });
    expect(res.status).toBe(422);
    const itemErrors = (i: number, label: string, max: number) => ({
      [`platforms.${i}.thread.1.content`]: [`Thread item 2: ${label}: too long by 1 character (max ${max}).`],
      [`platforms.${i}.first_comment`]: [`First comment: ${label}: too long by 1 character (max ${max}).`],
    });
    const { errors } = res.body as { errors: Record<string, string[]> };
    expect(Object.fromEntries(Object.entries(errors).filter(([k]) => k.startsWith("platforms.")))).toEqual({
      ...itemErrors(0, "X", 280),
      ...itemErrors(1, "Bluesky", 300),
      ...itemErrors(2, "Threads", 500),
      ...itemErrors(3, "Mastodon", 500),
      "platforms.4.first_comment": ["First comment: Facebook Page: too long by 1 character (max 8000)."],
      "platforms.5.first_comment": ["First comment: Instagram: too long by 1 character (max 2200)."],
      "platforms.6.first_comment": ["First comment: LinkedIn Page: too long by 1 character (max 1250)."],
    });
    // YouTube's 10000 equals the API's own cap on the field: 10001 cannot even be sent.
    const tooLong = await ws.api("PUT", `/api/posts/${created.body.id}`, {
      platforms: [{ id: created.body.platforms[7].id, first_comment: "c".repeat(10001) }],
    });
    expect(tooLong.body.errors).toEqual({
      "platforms.0.first_comment": ["The platforms.0.first comment field must not be greater than 10000 characters."],
    });
  });

  it("checks item media against the network's media rules at schedule time", async () => {
    const ws = await createTestWorkspace();
    const a = await accounts(ws);
    const post = await draft(ws, a);
    const imgs = await Promise.all(Array.from({ length: 5 }, () => insertMedia(ws, "image")));
    const res = await ws.api("PUT", `/api/posts/${post.id}`, {
      status: "scheduled",
      platforms: [
        { id: post.platforms[1].id, thread: [{ content: "five images", media: imgs.map((m) => ({ id: m.id })) }] },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      "platforms.1.thread.0.media": ["Thread item 1: X: Post allows at most 4 media items (5 attached)."],
    });
  });

  it("applies a signature to the post or to one row, checked against the limits like any text", async () => {
    const ws = await createTestWorkspace();
    const a = await accounts(ws);
    const post = await draft(ws, a);
    const sig = await ws.api("POST", "/api/signatures", { name: "Tags", content: "#launch #news" });
    expect(sig.status).toBe(201);
    const onPost = await ws.api("PUT", `/api/posts/${post.id}`, { signature_id: sig.body.id });
    expect(onPost.status, onPost.text).toBe(200);
    expect(onPost.body.content).toBe("Shared\n\n#launch #news");

    const onRow = await ws.api("PUT", `/api/posts/${post.id}`, {
      platforms: [{ id: post.platforms[1].id, content: "Only X", signature_id: sig.body.id }],
    });
    expect(onRow.status, onRow.text).toBe(200);
    expect(onRow.body.platforms[1].content).toBe("Only X\n\n#launch #news");
    // A row without its own text starts from the post's.
    const third = await ws.api("PUT", `/api/posts/${post.id}`, {
      platforms: [{ id: post.platforms[2].id, signature_id: sig.body.id }],
    });
    expect(third.body.platforms[2].content).toBe("Shared\n\n#launch #news\n\n#launch #news");

    // Too long for X with the signature: refused when scheduling, naming the row.
    const long = await ws.api("POST", "/api/signatures", { name: "Long", content: "z".repeat(270) });
    const res = await ws.api("PUT", `/api/posts/${post.id}`, {
      status: "scheduled",
      signature_id: crypto.randomUUID(),
      platforms: [{ id: post.platforms[1].id, signature_id: long.body.id }],
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      signature_id: ["The selected signature id is invalid."],
      "platforms.1.content": ["X: too long by 13 characters (max 280)."],
    });
    // Nothing was written.
    expect((await ws.api("GET", `/api/posts/${post.id}`)).body).toEqual(third.body);
  });

  it("checks the meta fields a network reads, and keeps accepting other keys", async () => {
    const ws = await createTestWorkspace();
    const yt = await connectAccount(ws, "youtube");
    const pin = await connectAccount(ws, "pinterest");
    const tt = await connectAccount(ws, "tiktok");
    const created = await ws.api("POST", "/api/posts", {
      platforms: [
        { social_account_id: yt.id, content_type: "youtube_short" },
        { social_account_id: pin.id, content_type: "pinterest_pin" },
        { social_account_id: tt.id, content_type: "tiktok_video" },
      ],
    });
    const [y, p, t] = created.body.platforms;
    const bad = await ws.api("PUT", `/api/posts/${created.body.id}`, {
      platforms: [
        { id: y.id, meta: { title: "t".repeat(101), privacy_status: "secret", tags: ["a", 3] } },
        { id: p.id, meta: { board_id: "b1", link: "ftp://example.com" } },
        { id: t.id, meta: { privacy_level: "EVERYONE", photo_cover_index: 1, note: { any: "thing" } } },
      ],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({
      "platforms.0.meta.title": ["The platforms.0.meta.title field must not be greater than 100 characters."],
      "platforms.0.meta.privacy_status": [
        "The platforms.0.meta.privacy status field must be one of: public, unlisted, private.",
      ],
      "platforms.0.meta.tags": ["The platforms.0.meta.tags field must be a list of strings."],
      "platforms.1.meta.link": ["The platforms.1.meta.link field must be an http or https URL."],
      "platforms.2.meta.privacy_level": [
        "The platforms.2.meta.privacy level field must be one of: PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS, FOLLOWER_OF_CREATOR, SELF_ONLY.",
      ],
      "platforms.2.meta.photo_cover_index": [
        "The platforms.2.meta.photo cover index field applies only to tiktok_photo.",
      ],
    });
    const good = await ws.api("PUT", `/api/posts/${created.body.id}`, {
      platforms: [
        { id: y.id, meta: { title: "My short", privacy_status: "unlisted", tags: ["a", "b"] } },
        { id: p.id, meta: { board_id: "b1", link: "https://example.com/x", title: "Pin" } },
        { id: t.id, meta: { privacy_level: "SELF_ONLY", note: { any: "thing" } } },
      ],
    });
    expect(good.status, good.text).toBe(200);
    expect(good.body.platforms.map((r: { meta: unknown }) => r.meta)).toEqual([
      { title: "My short", privacy_status: "unlisted", tags: ["a", "b"] },
      { board_id: "b1", link: "https://example.com/x", title: "Pin" },
      { privacy_level: "SELF_ONLY", note: { any: "thing" } },
    ]);
  });
});

describe("GET /api/posts/{post}/preview with per-row texts", () => {
  it("measures the row's own text, each item and the first comment, and lists their problems", async () => {
    const ws = await createTestWorkspace();
    const a = await accounts(ws);
    const img = await insertMedia(ws, "image");
    const created = await ws.api("POST", "/api/posts", {
      content: "c".repeat(400),
      platforms: [
        {
          social_account_id: a.x,
          content_type: "x_post",
          content: "Own text",
          thread: [{ content: "one", media: [{ id: img.id }] }, { content: "t".repeat(300) }],
          first_comment: "f".repeat(290),
        },
        { social_account_id: a.li, content_type: "linkedin_post" },
      ],
    });
    expect(created.status, created.text).toBe(201);
    const res = await ws.api("GET", `/api/posts/${created.body.id}/preview`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        post_platform_id: created.body.platforms[0].id,
        platform: "x",
        content_type: "x_post",
        content_length: 8,
        max_content_length: 280,
        media_count: 0,
        max_media_count: 4,
        problems: [
          "Thread item 2: Content exceeds X limit of 280 characters (300 provided).",
          "First comment: Content exceeds X limit of 280 characters (290 provided).",
        ],
        thread: [
          { content_length: 3, max_content_length: 280, media_count: 1, max_media_count: 4 },
          { content_length: 300, max_content_length: 280, media_count: 0, max_media_count: 4 },
        ],
        first_comment: { content_length: 290, max_content_length: 280 },
      },
      {
        post_platform_id: created.body.platforms[1].id,
        platform: "linkedin",
        content_type: "linkedin_post",
        content_length: 400,
        max_content_length: 3000,
        media_count: 0,
        max_media_count: 1,
        problems: [],
      },
    ]);
  });
});

describe("media named by thread items", () => {
  it("stay while a thread names them and are released with the thread or the post", async () => {
    const ws = await createTestWorkspace();
    const a = await accounts(ws);
    const shared = await insertMedia(ws, "image");
    const own = await insertMedia(ws, "image");
    const created = await ws.api("POST", "/api/posts", {
      media: [{ id: shared.id }],
      platforms: [
        {
          social_account_id: a.x,
          content_type: "x_post",
          thread: [{ content: "t", media: [{ id: shared.id }, { id: own.id }] }],
        },
      ],
    });
    expect(created.status, created.text).toBe(201);
    const exists = async (m: { id: string; path: string }) => [
      (await env.DB.prepare("SELECT count(*) AS n FROM media WHERE id = ?").bind(m.id).first<number>("n")) === 1,
      (await env.MEDIA_BUCKET.head(m.path)) !== null,
    ];
    // The post's media list emptied: the thread still names `shared`, so it stays.
    const emptied = await ws.api("PUT", `/api/posts/${created.body.id}`, { media: [] });
    expect(emptied.status, emptied.text).toBe(200);
    expect(emptied.body.platforms[0].thread[0].media).toEqual([shared, own]);
    expect(await exists(shared)).toEqual([true, true]);
    // The thread replaced: `own` is named nowhere any more and goes; `shared` is still in the new thread.
    const replaced = await ws.api("PUT", `/api/posts/${created.body.id}`, {
      platforms: [{ id: created.body.platforms[0].id, thread: [{ content: "t2", media: [{ id: shared.id }] }] }],
    });
    expect(replaced.status, replaced.text).toBe(200);
    expect(await exists(own)).toEqual([false, false]);
    expect(await exists(shared)).toEqual([true, true]);
    // The post deleted: its thread's media go with it.
    expect((await ws.api("DELETE", `/api/posts/${created.body.id}`)).status).toBe(204);
    expect(await exists(shared)).toEqual([false, false]);
  });
});
