import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { PublishMessage } from "../../src/publishing/messages";
import { createTestWorkspace, type TestWorkspace } from "../support/harness";
import { connectAccount, createLabel, DAY, HOUR, insertAccount, insertMedia, isoIn, ymdHis } from "./posts-fixtures";

let sent: PublishMessage[] = [];
beforeEach(() => {
  sent = [];
  vi.spyOn(env.PUBLISH_QUEUE, "sendBatch").mockImplementation(async (messages) => {
    for (const m of messages) sent.push(m.body as PublishMessage);
    return {} as QueueSendBatchResponse;
  });
});
afterEach(() => vi.restoreAllMocks());

async function setup(
  platforms: [string, string][] = [
    ["x", "x_post"],
    ["linkedin", "linkedin_post"],
  ],
  body: Record<string, unknown> = {},
) {
  const ws = await createTestWorkspace();
  const accounts: Awaited<ReturnType<typeof connectAccount>>[] = [];
  for (const [platform] of platforms) accounts.push(await connectAccount(ws, platform));
  const res = await ws.api("POST", "/api/posts", {
    platforms: platforms.map(([, contentType], i) => ({
      social_account_id: accounts[i]!.id,
      content_type: contentType,
    })),
    content: "Hello",
    scheduled_at: isoIn(DAY),
    ...body,
  });
  expect(res.status, res.text).toBe(201);
  return { ws, accounts, post: res.body, rows: res.body.platforms.map((p: { id: string }) => p.id) as string[] };
}

const put = (ws: TestWorkspace, id: string, body: unknown) => ws.api("PUT", `/api/posts/${id}`, body);
const setStatus = (table: "posts" | "post_platforms", id: string, status: string, extra = "") =>
  env.DB.prepare(`UPDATE ${table} SET status = ?${extra} WHERE id = ?`).bind(status, id).run();

describe("PUT /api/posts/{post}: fields", () => {
  it("edits content, scheduled_at, labels and media and returns the full post", async () => {
    const { ws, post } = await setup();
    const a = await createLabel(ws, "A");
    const b = await createLabel(ws, "B");
    const img = await insertMedia(ws, "image");
    const vid = await insertMedia(ws, "video");
    const when = Date.now() + 3 * DAY;
    const res = await put(ws, post.id, {
      content: "Edited",
      scheduled_at: new Date(when).toISOString(),
      label_ids: [b.id, a.id],
      media: [{ id: vid.id }, { id: img.id }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...post,
      content: "Edited",
      scheduled_at: ymdHis(Math.floor(when / 1000) * 1000),
      labels: [a, b],
      media: [vid, img],
      updated_at: expect.any(String),
    });
    expect(await ws.api("GET", `/api/posts/${post.id}`).then((r) => r.body)).toEqual(res.body);
  });

  it("replaces media and releases the ones nothing uses any more", async () => {
    const ws0 = await createTestWorkspace();
    const acc = await connectAccount(ws0, "facebook");
    const first = await insertMedia(ws0, "image");
    const second = await insertMedia(ws0, "image");
    const post = (
      await ws0.api("POST", "/api/posts", {
        platforms: [{ social_account_id: acc.id, content_type: "facebook_post" }],
        media: [{ id: first.id }],
      })
    ).body;
    const res = await put(ws0, post.id, { media: [{ id: second.id }] });
    expect(res.body.media).toEqual([second]);
    expect(await env.DB.prepare("SELECT id FROM media WHERE id = ?").bind(first.id).first()).toBeNull();
    expect(await env.MEDIA_BUCKET.head(first.path)).toBeNull();
    const cleared = await put(ws0, post.id, { media: [], label_ids: [] });
    expect(cleared.body.media).toEqual([]);
    expect(await env.DB.prepare("SELECT id FROM media WHERE id = ?").bind(second.id).first()).toBeNull();
  });

  it("clears scheduled_at with null on a draft", async () => {
    const { ws, post } = await setup();
    const res = await put(ws, post.id, { scheduled_at: null });
    expect(res.body.scheduled_at).toBeNull();
    expect(res.body.status).toBe("draft");
  });

  it("enables, disables, changes content type and merges meta by row id", async () => {
    const { ws, post, rows } = await setup([
      ["pinterest", "pinterest_pin"],
      ["tiktok", "tiktok_video"],
      ["x", "x_post"],
    ]);
    const res = await put(ws, post.id, {
      platforms: [
        { id: rows[0], content_type: "pinterest_video_pin", meta: { board_id: "123", note: "n" } },
        { id: rows[1], enabled: false, meta: { privacy_level: "SELF_ONLY" } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.platforms).toEqual([
      { ...post.platforms[0], content_type: "pinterest_video_pin", meta: { board_id: "123", note: "n" } },
      { ...post.platforms[1], enabled: false, meta: { privacy_level: "SELF_ONLY" } },
      post.platforms[2],
    ]);
    const again = await put(ws, post.id, {
      platforms: [{ id: rows[0], meta: { note: null, board_id: "456" } }, { id: rows[1] }],
    });
    expect(again.body.platforms[0].meta).toEqual({ board_id: "456" });
    expect(again.body.platforms[1].enabled).toBe(true);
  });

  it("adds a target without id", async () => {
    const { ws, post } = await setup([["x", "x_post"]]);
    const th = await connectAccount(ws, "threads");
    const res = await put(ws, post.id, {
      platforms: [{ social_account_id: th.id, content_type: "threads_post", meta: { topic: "news" } }],
    });
    expect(res.status).toBe(200);
    expect(res.body.platforms).toHaveLength(2);
    expect(res.body.platforms[1]).toEqual({
      id: expect.any(String),
      platform: "threads",
      content_type: "threads_post",
      status: "pending",
      enabled: true,
      platform_url: null,
      published_at: null,
      error_message: null,
      display_name: th.display_name,
      display_username: th.username,
      display_avatar: th.avatar_url,
      social_account: {
        id: th.id,
        platform: "threads",
        display_name: th.display_name,
        username: th.username,
        is_active: true,
        status: "connected",
      },
      meta: { topic: "news" },
      platform_post_id: null,
    });
  });

  it("validates platform entries, labels and media", async () => {
    const { ws, post, rows, accounts } = await setup([["x", "x_post"]]);
    const inactive = await insertAccount(ws, "facebook", { isActive: false });
    const res = await put(ws, post.id, {
      platforms: [
        { id: "0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a" },
        { id: rows[0], content_type: "linkedin_post" },
        {},
        { social_account_id: accounts[0]!.id, content_type: "x_post" },
        { social_account_id: inactive, content_type: "facebook_post" },
        { id: rows[0] },
      ],
      label_ids: ["0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a"],
      media: [{ id: "0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a" }],
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: "The platforms.5.id field has a duplicate value. (and 8 more errors)",
      errors: {
        "platforms.5.id": ["The platforms.5.id field has a duplicate value."],
        "platforms.0.id": ["The selected platforms.0.id is invalid."],
        "platforms.1.content_type": ["The platforms.1.content type linkedin_post is not available for x accounts."],
        "platforms.2.social_account_id": [
          "The platforms.2.social account id field is required when platforms.2.id is not present.",
        ],
        "platforms.2.content_type": [
          "The platforms.2.content type field is required when platforms.2.id is not present.",
        ],
        "platforms.3.social_account_id": ["The platforms.3.social account id field has a duplicate value."],
        "platforms.4.social_account_id": ["The selected platforms.4.social account id is inactive."],
        "label_ids.0": ["The selected label ids.0 is invalid."],
        "media.0.id": ["The selected media.0.id is invalid."],
      },
    });
    expect((await ws.api("GET", `/api/posts/${post.id}`)).body).toEqual(post);
  });

  it("validates field types", async () => {
    const { ws, post } = await setup();
    const res = await put(ws, post.id, {
      status: "published",
      content: 3,
      scheduled_at: "31/12/2099",
      platforms: [{ enabled: "yes", meta: [] }],
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: "The selected status is invalid. (and 4 more errors)",
      errors: {
        status: ["The selected status is invalid."],
        content: ["The content field must be a string."],
        "platforms.0.enabled": ["The platforms.0.enabled field must be true or false."],
        "platforms.0.meta": ["The platforms.0.meta field must be an object."],
        // One round (issue 15): the date is checked although other fields are malformed.
        scheduled_at: ["The scheduled at field must be a valid date."],
      },
    });
    const date = await put(ws, post.id, { scheduled_at: "31/12/2099" });
    expect(date.body).toEqual({
      message: "The scheduled at field must be a valid date.",
      errors: { scheduled_at: ["The scheduled at field must be a valid date."] },
    });
  });
});

describe("PUT /api/posts/{post}: status=scheduled", () => {
  it("schedules a draft with a future time, and takes it back to draft", async () => {
    const { ws, post } = await setup();
    const res = await put(ws, post.id, { status: "scheduled" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...post, status: "scheduled", updated_at: expect.any(String) });
    const back = await put(ws, post.id, { status: "draft" });
    expect(back.status).toBe(200);
    expect(back.body.status).toBe("draft");
    expect(sent).toEqual([]);
  });

  it("needs scheduled_at in the future", async () => {
    const { ws, post } = await setup([["x", "x_post"]], { scheduled_at: null });
    expect((await put(ws, post.id, { status: "scheduled" })).body).toEqual({
      message: "The scheduled at field is required when status is scheduled.",
      errors: { scheduled_at: ["The scheduled at field is required when status is scheduled."] },
    });
    await env.DB.prepare("UPDATE posts SET scheduled_at = ? WHERE id = ?")
      .bind(Date.now() - HOUR, post.id)
      .run();
    expect((await put(ws, post.id, { status: "scheduled" })).body).toEqual({
      message: "The scheduled at field must be a date after now.",
      errors: { scheduled_at: ["The scheduled at field must be a date after now."] },
    });
    expect((await put(ws, post.id, { status: "scheduled", scheduled_at: isoIn(-60_000) })).status).toBe(422);
    const ok = await put(ws, post.id, { status: "scheduled", scheduled_at: isoIn(HOUR) });
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe("scheduled");
  });

  it("checks every enabled platform's length cap, counted as the platform counts", async () => {
    const { ws, post, rows } = await setup([
      ["x", "x_post"],
      ["threads", "threads_post"],
      ["linkedin", "linkedin_post"],
    ]);
    const content = `${"日".repeat(145)} https://example.com/${"a".repeat(400)}`; // X: 290 + 1 + 23 = 314; code points 566
    const res = await put(ws, post.id, { status: "scheduled", content });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: "X: too long by 34 characters (max 280). (and 1 more error)",
      errors: { content: ["X: too long by 34 characters (max 280).", "Threads: too long by 66 characters (max 500)."] },
    });
    expect((await ws.api("GET", `/api/posts/${post.id}`)).body).toEqual(post);
    // Disabled rows do not count.
    const ok = await put(ws, post.id, {
      status: "scheduled",
      content,
      platforms: [
        { id: rows[0], enabled: false },
        { id: rows[1], enabled: false },
      ],
    });
    expect(ok.status).toBe(200);
    expect(ok.body.content).toBe(content);
  });

  it("checks media count, required media and media kinds", async () => {
    const { ws, post } = await setup([
      ["x", "x_post"],
      ["tiktok", "tiktok_video"],
      ["instagram", "instagram_reel"],
    ]);
    const images = [];
    for (let i = 0; i < 5; i++) images.push(await insertMedia(ws, "image"));
    const none = await put(ws, post.id, { status: "scheduled" });
    expect(none.body).toEqual({
      message: "TikTok: Video requires at least one media item. (and 1 more error)",
      errors: {
        media: ["TikTok: Video requires at least one media item.", "Instagram: Reel requires at least one media item."],
      },
    });
    const many = await put(ws, post.id, { status: "scheduled", media: images.map((m) => ({ id: m.id })) });
    expect(many.body).toEqual({
      message: "X: Post allows at most 4 media items (5 attached). (and 4 more errors)",
      errors: {
        media: [
          "X: Post allows at most 4 media items (5 attached).",
          "TikTok: Video allows at most 1 media item (5 attached).",
          "TikTok: Video accepts only video media (image attached).",
          "Instagram: Reel allows at most 1 media item (5 attached).",
          "Instagram: Reel accepts only video media (image attached).",
        ],
      },
    });
  });

  it("needs at least one enabled platform", async () => {
    const { ws, post, rows } = await setup([["x", "x_post"]]);
    const res = await put(ws, post.id, { status: "scheduled", platforms: [{ id: rows[0], enabled: false }] });
    expect(res.body).toEqual({
      message: "At least one platform must be enabled.",
      errors: { platforms: ["At least one platform must be enabled."] },
    });
  });

  it("re-checks a scheduled post when its content changes", async () => {
    const { ws, post } = await setup([["x", "x_post"]]);
    expect((await put(ws, post.id, { status: "scheduled" })).status).toBe(200);
    const res = await put(ws, post.id, { content: "a".repeat(300) });
    expect(res.body).toEqual({
      message: "X: too long by 20 characters (max 280).",
      errors: { content: ["X: too long by 20 characters (max 280)."] },
    });
    expect((await put(ws, post.id, { label_ids: [] })).status).toBe(200);
  });
});

describe("PUT /api/posts/{post}: status=publishing", () => {
  it("marks the post publishing and enqueues one message per enabled row, rows kept pending", async () => {
    const { ws, post, rows } = await setup([
      ["x", "x_post"],
      ["linkedin", "linkedin_post"],
      ["facebook", "facebook_post"],
    ]);
    const res = await put(ws, post.id, { status: "publishing", platforms: [{ id: rows[2], enabled: false }] });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("publishing");
    expect(res.body.platforms.map((p: { status: string; enabled: boolean }) => [p.status, p.enabled])).toEqual([
      ["pending", true],
      ["pending", true],
      ["pending", false],
    ]);
    expect(sent).toEqual([
      { post_platform_id: rows[0], post_id: post.id, workspace_id: ws.workspaceId },
      { post_platform_id: rows[1], post_id: post.id, workspace_id: ws.workspaceId },
    ]);
  });

  it("does not check lengths (the job fails the platform)", async () => {
    const { ws, post } = await setup([["x", "x_post"]]);
    const res = await put(ws, post.id, { status: "publishing", content: "a".repeat(400) });
    expect(res.status).toBe(200);
    expect(sent).toHaveLength(1);
  });

  it("needs at least one enabled platform", async () => {
    const { ws, post, rows } = await setup([["x", "x_post"]]);
    const res = await put(ws, post.id, { status: "publishing", platforms: [{ id: rows[0], enabled: false }] });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: "At least one platform must be enabled.",
      errors: { platforms: ["At least one platform must be enabled."] },
    });
    expect(sent).toEqual([]);
  });

  it("retries failed rows (error cleared) and skips published ones", async () => {
    const { ws, post, rows } = await setup([
      ["x", "x_post"],
      ["linkedin", "linkedin_post"],
    ]);
    await setStatus("posts", post.id, "partially_published");
    await setStatus(
      "post_platforms",
      rows[0]!,
      "published",
      ", platform_url = 'https://x.test/1', platform_post_id = '1'",
    );
    await setStatus("post_platforms", rows[1]!, "failed", ", error_message = 'Boom.', attempts = 3");
    const res = await put(ws, post.id, { status: "publishing" });
    expect(res.status).toBe(200);
    expect(
      res.body.platforms.map((p: { status: string; error_message: string | null }) => [p.status, p.error_message]),
    ).toEqual([
      ["published", null],
      ["pending", null],
    ]);
    expect(sent).toEqual([{ post_platform_id: rows[1], post_id: post.id, workspace_id: ws.workspaceId }]);
    const row = await env.DB.prepare("SELECT attempts FROM post_platforms WHERE id = ?")
      .bind(rows[1])
      .first<{ attempts: number }>();
    expect(row?.attempts).toBe(0);
  });

  it("two concurrent requests enqueue each row once", async () => {
    const { ws, post, rows } = await setup([
      ["x", "x_post"],
      ["linkedin", "linkedin_post"],
      ["threads", "threads_post"],
    ]);
    const results = await Promise.all([
      put(ws, post.id, { status: "publishing" }),
      put(ws, post.id, { status: "publishing" }),
      put(ws, post.id, { status: "publishing" }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) {
      expect(r.body).toEqual({ message: "The post is being published and cannot be changed." });
    }
    expect(sent.map((m) => m.post_platform_id).sort()).toEqual([...rows].sort());
  });
});

describe("PUT /api/posts/{post}: refused states and transitions", () => {
  it("a published post: 422 Cannot edit a published post.", async () => {
    const { ws, post } = await setup();
    await setStatus("posts", post.id, "published");
    for (const body of [{ content: "x" }, { status: "draft" }, { status: "scheduled" }, { status: "publishing" }, {}]) {
      const res = await put(ws, post.id, body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        message: "Cannot edit a published post.",
        errors: { status: ["Cannot edit a published post."] },
      });
    }
  });

  it("a publishing post: 409", async () => {
    const { ws, post } = await setup();
    await setStatus("posts", post.id, "publishing");
    for (const body of [{ content: "x" }, { status: "draft" }, { status: "publishing" }]) {
      const res = await put(ws, post.id, body);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ message: "The post is being published and cannot be changed." });
    }
    expect(sent).toEqual([]);
  });

  it("scheduling a failed post again resets its failed rows to pending", async () => {
    const { ws, post, rows } = await setup([["x", "x_post"]]);
    await setStatus("posts", post.id, "failed");
    await setStatus("post_platforms", rows[0]!, "failed", ", error_message = 'Boom.'");
    const res = await put(ws, post.id, { status: "scheduled" });
    expect(res.status).toBe(200);
    expect(res.body.platforms[0]).toEqual({ ...post.platforms[0], status: "pending", error_message: null });
    expect(sent).toEqual([]);
  });

  it("failed → draft, failed → scheduled, failed → publishing are allowed", async () => {
    for (const target of ["draft", "scheduled", "publishing"]) {
      const { ws, post } = await setup([["x", "x_post"]]);
      await setStatus("posts", post.id, "failed");
      const res = await put(ws, post.id, { status: target });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(target);
    }
  });

  it("partially_published → draft is refused; → scheduled is allowed", async () => {
    const { ws, post } = await setup([["x", "x_post"]]);
    await setStatus("posts", post.id, "partially_published");
    const res = await put(ws, post.id, { status: "draft" });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: "A partially published post cannot be moved to draft.",
      errors: { status: ["A partially published post cannot be moved to draft."] },
    });
    expect((await put(ws, post.id, { status: "scheduled" })).body.status).toBe("scheduled");
  });

  it("scheduled → scheduled (reschedule) and draft → draft are allowed", async () => {
    const { ws, post } = await setup([["x", "x_post"]]);
    expect((await put(ws, post.id, { status: "draft" })).status).toBe(200);
    expect((await put(ws, post.id, { status: "scheduled" })).status).toBe(200);
    const later = await put(ws, post.id, { status: "scheduled", scheduled_at: "2099-06-01 10:00:00" });
    expect(later.body.scheduled_at).toBe("2099-06-01 10:00:00");
    expect(later.body.status).toBe("scheduled");
  });
});
