import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { PublishMessage } from "../../src/publishing/messages";
import { connectAccount, insertMedia } from "../routes/posts-fixtures";
import { createTestWorkspace, UUID } from "../support/harness";
import { callTool, connectMcp } from "../support/mcp-client";

afterEach(() => vi.restoreAllMocks());

describe("MCP tool server: post tools", () => {
  it("drafts, previews, schedules, lists, reads and deletes a post through tools, same as REST", async () => {
    const ws = await createTestWorkspace();
    const x = await connectAccount(ws, "x");
    const media = await insertMedia(ws, "image");
    const client = await connectMcp(ws.key);

    const post = await callTool(client, "create-post-tool", {
      content: "Hello from an agent",
      platforms: [{ social_account_id: x.id, content_type: "x_post" }],
      media: [{ id: media.id }],
    });
    expect(post).toMatchObject({ id: expect.stringMatching(UUID), status: "draft", content: "Hello from an agent" });
    expect(post.media.map((m: { id: string }) => m.id)).toEqual([media.id]);
    expect((await ws.api("GET", `/api/posts/${post.id}`)).body).toEqual(post);

    const preview = await callTool(client, "preview-post-tool", { post_id: post.id });
    expect(preview.items).toEqual([
      expect.objectContaining({
        platform: "x",
        content_type: "x_post",
        content_length: 19,
        max_content_length: 280,
        problems: [],
      }),
    ]);

    const metrics = await callTool(client, "get-post-metrics-tool", { post_id: post.id });
    expect(metrics).toEqual({
      post_id: post.id,
      platforms: [
        {
          post_platform_id: post.platforms[0].id,
          platform: "x",
          status: "pending",
          platform_post_id: null,
          platform_url: null,
          metrics: { unsupported: true, reason: "not_published" },
        },
      ],
    });

    const when = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await callTool(client, "update-post-tool", {
      post_id: post.id,
      status: "scheduled",
      scheduled_at: when,
    });
    expect(scheduled.status).toBe("scheduled");

    const page = await callTool(client, "list-posts-tool", { status: "scheduled" });
    expect(page.data.map((p: { id: string }) => p.id)).toEqual([post.id]);
    expect(page.meta).toMatchObject({ current_page: 1, total: 1, per_page: 15 });
    // The REST list's account and scheduled_at window filters (issue 27).
    const around = (ms: number) => new Date(Date.parse(when) + ms).toISOString();
    const window = { scheduled_from: around(-1000), scheduled_to: around(1000) };
    const inWindow = await callTool(client, "list-posts-tool", { social_account_id: x.id, ...window });
    expect(inWindow.data.map((p: { id: string }) => p.id)).toEqual([post.id]);
    const after = await callTool(client, "list-posts-tool", { scheduled_from: window.scheduled_to });
    expect(after.meta.total).toBe(0);
    const otherAccount = await callTool(client, "list-posts-tool", { social_account_id: crypto.randomUUID() });
    expect(otherAccount.meta.total).toBe(0);
    expect(await callTool(client, "get-post-tool", { post_id: post.id })).toEqual(scheduled);

    // Issue 40: a duplicate is a new draft with the same text, targets and media, as REST answers it.
    const copy = await callTool(client, "duplicate-post-tool", { post_id: post.id });
    expect(copy).toMatchObject({ status: "draft", scheduled_at: null, content: "Hello from an agent" });
    expect(copy.id).not.toBe(post.id);
    expect(copy.media.map((m: { id: string }) => m.id)).toEqual([media.id]);
    expect((await ws.api("GET", `/api/posts/${copy.id}`)).body).toEqual(copy);

    expect(await callTool(client, "delete-post-tool", { post_id: post.id })).toEqual({ deleted: true, id: post.id });
    expect((await ws.api("GET", `/api/posts/${post.id}`)).status).toBe(404);
    await client.close();
  });

  it("publish-post-tool queues the post; validation failures come back as tool errors with field errors", async () => {
    const ws = await createTestWorkspace();
    const x = await connectAccount(ws, "x");
    const client = await connectMcp(ws.key);
    const post = await callTool(client, "create-post-tool", {
      content: "x".repeat(300),
      platforms: [{ social_account_id: x.id, content_type: "x_post" }],
    });
    const tooLong = await client.callTool({
      name: "update-post-tool",
      arguments: {
        post_id: post.id,
        status: "scheduled",
        scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    expect(tooLong.isError).toBe(true);
    expect(tooLong.structuredContent).toEqual({
      message: "X: too long by 20 characters (max 280).",
      errors: { content: ["X: too long by 20 characters (max 280)."] },
    });

    // Recorded, not handed to the local queue: its consumer would fail the too-long row a second later, in the
    // background of this test (the "being published" answer below raced it) and after it.
    const sent: PublishMessage[] = [];
    vi.spyOn(env.PUBLISH_QUEUE, "sendBatch").mockImplementation(async (messages) => {
      for (const m of messages) sent.push(m.body as PublishMessage);
      return {} as QueueSendBatchResponse;
    });
    const published = await callTool(client, "publish-post-tool", { post_id: post.id });
    expect(published.status).toBe("publishing");
    expect(sent).toEqual([
      { post_platform_id: published.platforms[0].id, post_id: post.id, workspace_id: ws.workspaceId },
    ]);
    const busy = await client.callTool({ name: "delete-post-tool", arguments: { post_id: post.id } });
    expect(busy.isError).toBe(true);
    expect(busy.structuredContent).toEqual({ message: "The post is being published and cannot be deleted." });

    const other = await createTestWorkspace();
    const otherClient = await connectMcp(other.key);
    const hidden = await otherClient.callTool({ name: "get-post-tool", arguments: { post_id: post.id } });
    expect(hidden.structuredContent).toEqual({ message: "Not found." });
    await client.close();
    await otherClient.close();
  });
});
