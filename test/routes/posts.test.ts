import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { describeAuth } from "../support/auth-cases";
import { createTestWorkspace, type TestWorkspace, UUID, YMDHIS } from "../support/harness";
import { connectAccount, createLabel, DAY, HOUR, insertAccount, insertMedia, isoIn, ymdHis } from "./posts-fixtures";

const MISSING = "0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a";

function expectedPlatform(
  id: string,
  account: { id: string; platform: string; display_name: string; username: string; avatar_url?: string | null },
  contentType: string,
  extra: Record<string, unknown> = {},
) {
  return {
    id,
    platform: account.platform,
    content_type: contentType,
    status: "pending",
    enabled: true,
    platform_url: null,
    published_at: null,
    error_message: null,
    display_name: account.display_name,
    display_username: account.username,
    display_avatar: account.avatar_url ?? "",
    social_account: {
      id: account.id,
      platform: account.platform,
      display_name: account.display_name,
      username: account.username,
      is_active: true,
      status: "connected",
    },
    meta: {},
    platform_post_id: null,
    ...extra,
  };
}

async function newPost(ws: TestWorkspace, body: Record<string, unknown> = {}) {
  const account = await connectAccount(ws, "linkedin");
  const res = await ws.api("POST", "/api/posts", {
    platforms: [{ social_account_id: account.id, content_type: "linkedin_post" }],
    content: "Hello",
    ...body,
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describeAuth("POST", "/api/posts", { platforms: [] });
describeAuth("GET", "/api/posts");
describeAuth("GET", `/api/posts/${MISSING}`);
describeAuth("PUT", `/api/posts/${MISSING}`, { content: "x" });
describeAuth("DELETE", `/api/posts/${MISSING}`);
describeAuth("GET", `/api/posts/${MISSING}/preview`);

describe("POST /api/posts", () => {
  it("creates a draft with one pending row per target, labels and media (201, full Post)", async () => {
    const ws = await createTestWorkspace();
    const x = await connectAccount(ws, "x");
    const li = await connectAccount(ws, "linkedin-page");
    const ig = await connectAccount(ws, "instagram-facebook");
    const label = await createLabel(ws, "Launch");
    const img = await insertMedia(ws, "image");
    const when = Date.now() + 2 * DAY;
    const res = await ws.api("POST", "/api/posts", {
      platforms: [
        { social_account_id: x.id, content_type: "x_post" },
        { social_account_id: li.id, content_type: "linkedin_page_post" },
        { social_account_id: ig.id, content_type: "instagram_feed" },
      ],
      content: "Launch day 🚀",
      media: [{ id: img.id, path: "ignored", url: "https://elsewhere.test/x.jpg" }],
      scheduled_at: new Date(when).toISOString(),
      label_ids: [label.id],
    });
    expect(res.status).toBe(201);
    const p = res.body;
    expect(p).toEqual({
      id: expect.stringMatching(UUID),
      content: "Launch day 🚀",
      media: [img],
      status: "draft",
      scheduled_at: ymdHis(Math.floor(when / 1000) * 1000),
      published_at: null,
      queue_id: null,
      repeat: null,
      repeat_of: null,
      platforms: [
        expectedPlatform(p.platforms[0].id, x, "x_post"),
        expectedPlatform(p.platforms[1].id, li, "linkedin_page_post"),
        expectedPlatform(p.platforms[2].id, ig, "instagram_feed"),
      ],
      labels: [label],
      created_at: expect.stringMatching(YMDHIS),
      updated_at: expect.stringMatching(YMDHIS),
    });
    const get = await ws.api("GET", `/api/posts/${p.id}`);
    expect(get.status).toBe(200);
    expect(get.body).toEqual(p);
  });

  it("defaults content to an empty string and scheduled_at to today 09:00 UTC", async () => {
    const ws = await createTestWorkspace();
    const acc = await connectAccount(ws, "facebook");
    const dayBefore = new Date().toISOString().slice(0, 10);
    const res = await ws.api("POST", "/api/posts", {
      platforms: [{ social_account_id: acc.id, content_type: "facebook_post" }],
    });
    expect(res.status).toBe(201);
    const dayAfter = new Date().toISOString().slice(0, 10); // the request may run across midnight UTC
    expect(res.body.content).toBe("");
    expect([`${dayBefore} 09:00:00`, `${dayAfter} 09:00:00`]).toContain(res.body.scheduled_at);
    expect(res.body.media).toEqual([]);
    expect(res.body.labels).toEqual([]);
  });

  it("accepts a bare Y-m-d H:i:s as UTC and null for an unscheduled draft", async () => {
    const ws = await createTestWorkspace();
    const acc = await connectAccount(ws, "threads");
    const bare = await ws.api("POST", "/api/posts", {
      platforms: [{ social_account_id: acc.id, content_type: "threads_post" }],
      scheduled_at: "2099-01-02 03:04:05",
    });
    expect(bare.status).toBe(201);
    expect(bare.body.scheduled_at).toBe("2099-01-02 03:04:05");
    const offset = await ws.api("POST", "/api/posts", {
      platforms: [{ social_account_id: acc.id, content_type: "threads_post" }],
      scheduled_at: "2099-01-02T05:04:05+02:00",
    });
    expect(offset.body.scheduled_at).toBe("2099-01-02 03:04:05");
    const none = await ws.api("POST", "/api/posts", {
      platforms: [{ social_account_id: acc.id, content_type: "threads_post" }],
      scheduled_at: null,
    });
    expect(none.status).toBe(201);
    expect(none.body.scheduled_at).toBeNull();
  });

  it("accepts instagram_* content types for both Instagram routes", async () => {
    const ws = await createTestWorkspace();
    const ig = await connectAccount(ws, "instagram");
    const igf = await connectAccount(ws, "instagram-facebook");
    const res = await ws.api("POST", "/api/posts", {
      platforms: [
        { social_account_id: ig.id, content_type: "instagram_story" },
        { social_account_id: igf.id, content_type: "instagram_reel" },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.platforms.map((p: { content_type: string }) => p.content_type)).toEqual([
      "instagram_story",
      "instagram_reel",
    ]);
  });

  it("requires platforms", async () => {
    const ws = await createTestWorkspace();
    expect((await ws.api("POST", "/api/posts", {})).body).toEqual({
      message: "The platforms field is required.",
      errors: { platforms: ["The platforms field is required."] },
    });
    const empty = await ws.api("POST", "/api/posts", { platforms: [] });
    expect(empty.status).toBe(422);
    expect(empty.body).toEqual({
      message: "The platforms field is required.",
      errors: { platforms: ["The platforms field is required."] },
    });
  });

  it("validates the shape of every field at once", async () => {
    const ws = await createTestWorkspace();
    const res = await ws.api("POST", "/api/posts", {
      platforms: [{ social_account_id: "nope", content_type: "myspace_post", meta: { board_id: "1" } }, {}],
      content: "a".repeat(10001),
      media: [{}],
      label_ids: ["x"],
      scheduled_at: 5,
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: "The platforms.0.social account id field must be a valid UUID. (and 8 more errors)",
      errors: {
        "platforms.0.social_account_id": ["The platforms.0.social account id field must be a valid UUID."],
        "platforms.0.content_type": ["The selected platforms.0.content type is invalid."],
        "platforms.0.meta": ["The platforms.0.meta field is not accepted here; set it with PUT /api/posts/{post}."],
        "platforms.1.social_account_id": ["The platforms.1.social account id field is required."],
        "platforms.1.content_type": ["The platforms.1.content type field is required."],
        content: ["The content field must not be greater than 10000 characters."],
        "media.0.id": ["The media.0.id field is required."],
        "label_ids.0": ["The label ids.0 field must be a valid UUID."],
        scheduled_at: ["The scheduled at field must be a string."],
      },
    });
  });

  it("counts the 10000-character limit in code points", async () => {
    const ws = await createTestWorkspace();
    const acc = await connectAccount(ws, "facebook");
    const res = await ws.api("POST", "/api/posts", {
      platforms: [{ social_account_id: acc.id, content_type: "facebook_post" }],
      content: "😀".repeat(10000),
    });
    expect(res.status).toBe(201);
  });

  it("rejects a scheduled_at that is not a date or not in the future", async () => {
    const ws = await createTestWorkspace();
    const acc = await connectAccount(ws, "x");
    const platforms = [{ social_account_id: acc.id, content_type: "x_post" }];
    expect((await ws.api("POST", "/api/posts", { platforms, scheduled_at: "tomorrow" })).body).toEqual({
      message: "The scheduled at field must be a valid date.",
      errors: { scheduled_at: ["The scheduled at field must be a valid date."] },
    });
    expect((await ws.api("POST", "/api/posts", { platforms, scheduled_at: isoIn(-HOUR) })).body).toEqual({
      message: "The scheduled at field must be a date after now.",
      errors: { scheduled_at: ["The scheduled at field must be a date after now."] },
    });
  });

  it("rejects inactive, disconnected, expired, foreign and unknown accounts, and mismatched content types", async () => {
    const ws = await createTestWorkspace();
    const other = await createTestWorkspace();
    const inactive = await connectAccount(ws, "x");
    expect((await ws.api("PUT", `/api/social-accounts/${inactive.id}/toggle`)).body.is_active).toBe(false);
    const disconnected = await connectAccount(ws, "facebook");
    expect((await ws.api("DELETE", `/api/social-accounts/${disconnected.id}`)).status).toBe(204);
    const expired = await insertAccount(ws, "bluesky", { status: "token_expired" });
    const foreign = await connectAccount(other, "x");
    const linkedin = await connectAccount(ws, "linkedin");
    const res = await ws.api("POST", "/api/posts", {
      platforms: [
        { social_account_id: inactive.id, content_type: "x_post" },
        { social_account_id: disconnected.id, content_type: "facebook_post" },
        { social_account_id: expired, content_type: "bluesky_post" },
        { social_account_id: foreign.id, content_type: "x_post" },
        { social_account_id: MISSING, content_type: "x_post" },
        { social_account_id: linkedin.id, content_type: "x_post" },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: "The selected platforms.0.social account id is inactive. (and 5 more errors)",
      errors: {
        "platforms.0.social_account_id": ["The selected platforms.0.social account id is inactive."],
        "platforms.1.social_account_id": ["The selected platforms.1.social account id is inactive."],
        "platforms.2.social_account_id": [
          "The selected platforms.2.social account id needs to be reconnected (its session expired).",
        ],
        "platforms.3.social_account_id": ["The selected platforms.3.social account id is invalid."],
        "platforms.4.social_account_id": ["The selected platforms.4.social account id is invalid."],
        "platforms.5.content_type": ["The platforms.5.content type x_post is not available for linkedin accounts."],
      },
    });
  });

  it("reports a disconnected account that is still active", async () => {
    const ws = await createTestWorkspace();
    const acc = await insertAccount(ws, "mastodon", { status: "disconnected" });
    const res = await ws.api("POST", "/api/posts", {
      platforms: [{ social_account_id: acc, content_type: "mastodon_post" }],
    });
    expect(res.body).toEqual({
      message: "The selected platforms.0.social account id is disconnected.",
      errors: { "platforms.0.social_account_id": ["The selected platforms.0.social account id is disconnected."] },
    });
  });

  it("rejects the same account twice", async () => {
    const ws = await createTestWorkspace();
    const acc = await connectAccount(ws, "x");
    const res = await ws.api("POST", "/api/posts", {
      platforms: [
        { social_account_id: acc.id, content_type: "x_post" },
        { social_account_id: acc.id, content_type: "x_post" },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: "The platforms.1.social account id field has a duplicate value.",
      errors: { "platforms.1.social_account_id": ["The platforms.1.social account id field has a duplicate value."] },
    });
  });

  it("rejects labels and media of another workspace or unknown", async () => {
    const ws = await createTestWorkspace();
    const other = await createTestWorkspace();
    const acc = await connectAccount(ws, "x");
    const foreignLabel = await createLabel(other, "Theirs");
    const foreignMedia = await insertMedia(other, "image");
    const mine = await insertMedia(ws, "image");
    const res = await ws.api("POST", "/api/posts", {
      platforms: [{ social_account_id: acc.id, content_type: "x_post" }],
      label_ids: [foreignLabel.id, MISSING],
      media: [{ id: mine.id }, { id: foreignMedia.id }, { id: mine.id }],
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: "The selected label ids.0 is invalid. (and 3 more errors)",
      errors: {
        "label_ids.0": ["The selected label ids.0 is invalid."],
        "label_ids.1": ["The selected label ids.1 is invalid."],
        "media.2.id": ["The media.2.id field has a duplicate value."],
        "media.1.id": ["The selected media.1.id is invalid."],
      },
    });
    const list = await ws.api("GET", "/api/posts");
    expect(list.body.meta.total).toBe(0);
  });
});

describe("GET /api/posts/{post}", () => {
  it("answers 404 for another workspace's post, an unknown id and a non-UUID", async () => {
    const ws = await createTestWorkspace();
    const other = await createTestWorkspace();
    const post = await newPost(other);
    for (const path of [`/api/posts/${post.id}`, `/api/posts/${MISSING}`, "/api/posts/not-a-uuid"]) {
      const res = await ws.api("GET", path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: "Not found." });
    }
    for (const [method, path] of [
      ["PUT", `/api/posts/${post.id}`],
      ["DELETE", `/api/posts/${post.id}`],
      ["GET", `/api/posts/${post.id}/preview`],
    ] as const) {
      const res = await ws.api(method, path, method === "PUT" ? { content: "mine now" } : undefined);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: "Not found." });
    }
    expect((await other.api("GET", `/api/posts/${post.id}`)).body).toEqual(post);
  });

  it("keeps the account snapshot after the account is disconnected", async () => {
    const ws = await createTestWorkspace();
    const post = await newPost(ws);
    const accountId = post.platforms[0].social_account.id;
    await ws.api("DELETE", `/api/social-accounts/${accountId}`);
    const res = await ws.api("GET", `/api/posts/${post.id}`);
    expect(res.body.platforms[0]).toEqual({
      ...post.platforms[0],
      social_account: { ...post.platforms[0].social_account, is_active: false, status: "disconnected" },
    });
  });
});

describe("DELETE /api/posts/{post}", () => {
  it("deletes the post (204), then 404; media no one uses are released, shared and upload assets kept", async () => {
    const ws = await createTestWorkspace();
    const only = await insertMedia(ws, "image");
    const shared = await insertMedia(ws, "image");
    const asset = await insertMedia(ws, "image", { uploadToken: crypto.randomUUID() });
    const post = await newPost(ws, { media: [{ id: only.id }, { id: shared.id }, { id: asset.id }] });
    const keeper = await newPost(ws, { media: [{ id: shared.id }] });
    const res = await ws.api("DELETE", `/api/posts/${post.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await ws.api("GET", `/api/posts/${post.id}`)).status).toBe(404);
    expect((await ws.api("DELETE", `/api/posts/${post.id}`)).status).toBe(404);
    const rows = await env.DB.prepare("SELECT id FROM media WHERE workspace_id = ? ORDER BY id")
      .bind(ws.workspaceId)
      .all<{ id: string }>();
    expect(rows.results.map((r) => r.id).sort()).toEqual([shared.id, asset.id].sort());
    expect(await env.MEDIA_BUCKET.head(only.path)).toBeNull();
    expect(await env.MEDIA_BUCKET.head(shared.path)).not.toBeNull();
    expect((await ws.api("GET", `/api/posts/${keeper.id}`)).body.media).toEqual([shared]);
    const platformRows = await env.DB.prepare("SELECT COUNT(*) AS n FROM post_platforms WHERE post_id = ?")
      .bind(post.id)
      .first<{ n: number }>();
    expect(platformRows?.n).toBe(0);
  });

  it("answers 409 while publishing and deletes a published post", async () => {
    const ws = await createTestWorkspace();
    const post = await newPost(ws);
    await env.DB.prepare("UPDATE posts SET status = 'publishing' WHERE id = ?").bind(post.id).run();
    const res = await ws.api("DELETE", `/api/posts/${post.id}`);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ message: "The post is being published and cannot be deleted." });
    await env.DB.prepare("UPDATE posts SET status = 'published' WHERE id = ?").bind(post.id).run();
    expect((await ws.api("DELETE", `/api/posts/${post.id}`)).status).toBe(204);
  });
});

describe("GET /api/posts/{post}/preview", () => {
  it("lists each enabled row with platform-counted length, caps and problems", async () => {
    const ws = await createTestWorkspace();
    const x = await connectAccount(ws, "x");
    const bsky = await insertAccount(ws, "bluesky");
    const pin = await connectAccount(ws, "pinterest");
    const yt = await connectAccount(ws, "youtube");
    const li = await connectAccount(ws, "linkedin");
    const img = await insertMedia(ws, "image");
    const content = `${"日".repeat(140)} https://example.com/${"p".repeat(50)}`;
    const post = (
      await ws.api("POST", "/api/posts", {
        platforms: [
          { social_account_id: x.id, content_type: "x_post" },
          { social_account_id: bsky, content_type: "bluesky_post" },
          { social_account_id: pin.id, content_type: "pinterest_pin" },
          { social_account_id: yt.id, content_type: "youtube_short" },
          { social_account_id: li.id, content_type: "linkedin_post" },
        ],
        content,
        media: [{ id: img.id }],
      })
    ).body;
    const liRow = post.platforms[4].id;
    await ws.api("PUT", `/api/posts/${post.id}`, { platforms: [{ id: liRow, enabled: false }] });
    await ws.api("PUT", `/api/social-accounts/${yt.id}/toggle`);
    const res = await ws.api("GET", `/api/posts/${post.id}/preview`);
    expect(res.status).toBe(200);
    const codePoints = [...content].length;
    expect(res.body).toEqual([
      {
        post_platform_id: post.platforms[0].id,
        platform: "x",
        content_type: "x_post",
        content_length: 280 + 1 + 23,
        max_content_length: 280,
        media_count: 1,
        max_media_count: 4,
        problems: ["Content exceeds X limit of 280 characters (304 provided)."],
      },
      {
        post_platform_id: post.platforms[1].id,
        platform: "bluesky",
        content_type: "bluesky_post",
        content_length: codePoints,
        max_content_length: 300,
        media_count: 1,
        max_media_count: 4,
        problems: [],
      },
      {
        post_platform_id: post.platforms[2].id,
        platform: "pinterest",
        content_type: "pinterest_pin",
        content_length: codePoints,
        max_content_length: 800,
        media_count: 1,
        max_media_count: 1,
        problems: ["Pinterest board_id is required."],
      },
      {
        post_platform_id: post.platforms[3].id,
        platform: "youtube",
        content_type: "youtube_short",
        content_length: codePoints,
        max_content_length: 100,
        media_count: 1,
        max_media_count: 1,
        problems: [
          "Social account is deactivated.",
          `Content exceeds YouTube Shorts limit of 100 characters (${codePoints} provided).`,
          "YouTube Shorts: Short accepts only video media (image attached).",
        ],
      },
    ]);
    await ws.api("PUT", `/api/posts/${post.id}`, {
      platforms: [{ id: post.platforms[2].id, meta: { board_id: "b1" } }],
    });
    const again = await ws.api("GET", `/api/posts/${post.id}/preview`);
    expect(again.body[2].problems).toEqual([]);
  });
});

describe("OpenAPI document", () => {
  it("describes every post operation", async () => {
    const res = await createTestWorkspace().then((ws) => ws.api("GET", "/api/openapi.json"));
    expect(res.status).toBe(200);
    const ops = Object.entries(res.body.paths as Record<string, Record<string, { operationId: string }>>)
      .filter(([path]) => path.startsWith("/api/posts"))
      .flatMap(([, methods]) => Object.values(methods).map((m) => m.operationId))
      .sort();
    expect(ops).toEqual([
      "attachMediaFromUrl",
      "createPost",
      "deletePost",
      "duplicatePost",
      "getPost",
      "getPostMetrics",
      "listPosts",
      "previewPost",
      "updatePost",
      "uploadPostMedia",
    ]);
  });
});
