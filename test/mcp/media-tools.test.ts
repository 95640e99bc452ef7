import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { GIF_1X1, makePng, mediaForm } from "../media/fixtures";
import { connectAccount } from "../routes/posts-fixtures";
import { fakeOrigin } from "../support/fake-fetch";
import { call, createTestWorkspace, ISO_OFFSET, UUID } from "../support/harness";
import { callTool, connectMcp } from "../support/mcp-client";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe("MCP tool server: the agent upload flow", () => {
  it("request-media-upload-tool → POST the file to upload_url → attach-media-from-upload-tool", async () => {
    const ws = await createTestWorkspace();
    const x = await connectAccount(ws, "x");
    const client = await connectMcp(ws.key);
    const post = await callTool(client, "create-post-tool", {
      content: "With a picture",
      platforms: [{ social_account_id: x.id, content_type: "x_post" }],
    });

    const upload = await callTool(client, "request-media-upload-tool");
    expect(upload).toEqual({
      upload_token: expect.stringMatching(UUID),
      upload_url: expect.stringMatching(
        new RegExp(
          `^https://api\\.test/api/uploads/${upload.upload_token}\\?expires=\\d+&workspace_id=${ws.workspaceId}&signature=[0-9a-f]{64}$`,
        ),
      ),
      expires_at: expect.stringMatching(ISO_OFFSET),
      max_bytes: 52_428_800,
      field_name: "media",
    });

    // The agent (or its user) POSTs the file with no bearer token: the signed URL is the credential.
    const png = await makePng(4, 3);
    const res = await exports.default.fetch(
      new Request(upload.upload_url, {
        method: "POST",
        body: mediaForm(png, "chart.png", "image/png"),
        headers: { "CF-Connecting-IP": "203.0.113.77" },
      }),
    );
    expect(res.status).toBe(201);
    const stored = (await res.json()) as Record<string, string>;
    expect(stored).toEqual({
      upload_token: upload.upload_token,
      media_id: expect.stringMatching(UUID),
      type: "image",
      mime_type: "image/jpeg",
      original_filename: "chart.png",
    });

    const attached = await callTool(client, "attach-media-from-upload-tool", {
      post_id: post.id,
      upload_token: upload.upload_token,
    });
    expect(attached.post.media).toEqual([
      expect.objectContaining({
        id: stored.media_id,
        type: "image",
        mime_type: "image/jpeg",
        original_filename: "chart.png",
      }),
    ]);
    expect(attached.post.media[0].path).toMatch(/^medias\/[0-9a-f-]{36}\.jpg$/);

    // Attaching twice changes nothing.
    const again = await callTool(client, "attach-media-from-upload-tool", {
      post_id: post.id,
      upload_token: upload.upload_token,
    });
    expect(again.post.media).toEqual(attached.post.media);
    expect((await ws.api("GET", `/api/posts/${post.id}`)).body.media).toEqual(attached.post.media);
    await client.close();
  });

  it("reports the three tool errors of decisions §10", async () => {
    const ws = await createTestWorkspace();
    const yt = await connectAccount(ws, "youtube");
    const client = await connectMcp(ws.key);
    const post = await callTool(client, "create-post-tool", {
      content: "Short",
      platforms: [{ social_account_id: yt.id, content_type: "youtube_short" }],
    });
    const missingPost = await client.callTool({
      name: "attach-media-from-upload-tool",
      arguments: {
        post_id: "0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a",
        upload_token: "0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a",
      },
    });
    expect(missingPost.isError).toBe(true);
    expect(missingPost.structuredContent).toEqual({ message: "Post not found." });

    const missingUpload = await client.callTool({
      name: "attach-media-from-upload-tool",
      arguments: { post_id: post.id, upload_token: "0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a" },
    });
    expect(missingUpload.structuredContent).toEqual({ message: "Upload not found." });

    const upload = await callTool(client, "request-media-upload-tool");
    const res = await exports.default.fetch(
      new Request(upload.upload_url, { method: "POST", body: mediaForm(await makePng(2, 2), "a.png", "image/png") }),
    );
    expect(res.status).toBe(201);
    const notAccepted = await client.callTool({
      name: "attach-media-from-upload-tool",
      arguments: { post_id: post.id, upload_token: upload.upload_token },
    });
    expect(notAccepted.isError).toBe(true);
    expect(notAccepted.structuredContent).toEqual({
      message: "No enabled platform on this post accepts this media type.",
      errors: { media: ["No enabled platform on this post accepts this media type."] },
    });
    await client.close();
  });

  it("attaching a signed upload runs the direct upload's per-file media rules (issue 16), keeping the asset", async () => {
    const ws = await createTestWorkspace();
    const threads = await connectAccount(ws, "threads");
    const x = await connectAccount(ws, "x");
    const client = await connectMcp(ws.key);
    const post = await callTool(client, "create-post-tool", {
      content: "A GIF",
      platforms: [{ social_account_id: threads.id, content_type: "threads_post" }],
    });
    const upload = await callTool(client, "request-media-upload-tool");
    const res = await exports.default.fetch(
      new Request(upload.upload_url, { method: "POST", body: mediaForm(GIF_1X1, "party.gif", "image/gif") }),
    );
    expect(res.status).toBe(201);
    const refused = await client.callTool({
      name: "attach-media-from-upload-tool",
      arguments: { post_id: post.id, upload_token: upload.upload_token },
    });
    expect(refused.isError).toBe(true);
    const expected = {
      message: "Threads: Post does not accept GIF images (party.gif).",
      errors: { media: ["Threads: Post does not accept GIF images (party.gif)."] },
    };
    expect(refused.structuredContent).toEqual(expected);
    // Exactly what the direct upload answers for the same file on the same post.
    const direct = await call("POST", `/api/posts/${post.id}/media`, {
      key: ws.key,
      rawBody: mediaForm(GIF_1X1, "party.gif", "image/gif"),
    });
    expect({ status: direct.status, body: direct.body }).toEqual({ status: 422, body: expected });
    expect((await ws.api("GET", `/api/posts/${post.id}`)).body.media).toEqual([]);
    // The upload is still there for a post that can take it (X takes a GIF).
    const other = await callTool(client, "create-post-tool", {
      content: "On X",
      platforms: [{ social_account_id: x.id, content_type: "x_post" }],
    });
    const attached = await callTool(client, "attach-media-from-upload-tool", {
      post_id: other.id,
      upload_token: upload.upload_token,
    });
    expect(attached.post.media).toEqual([
      expect.objectContaining({ mime_type: "image/gif", original_filename: "party.gif" }),
    ]);
    await client.close();
  });

  it("attach-media-from-url-tool downloads and attaches, listing failures", async () => {
    const png = await makePng(3, 3);
    cleanups.push(
      fakeOrigin("https://files.example", (req) =>
        new URL(req.url).pathname === "/ok.png"
          ? new Response(png, { headers: { "Content-Type": "image/png" } })
          : new Response("nope", { status: 404 }),
      ),
    );
    const ws = await createTestWorkspace();
    const x = await connectAccount(ws, "x");
    const client = await connectMcp(ws.key);
    const post = await callTool(client, "create-post-tool", {
      content: "From the web",
      platforms: [{ social_account_id: x.id, content_type: "x_post" }],
    });
    const result = await callTool(client, "attach-media-from-url-tool", {
      post_id: post.id,
      urls: ["https://files.example/ok.png", "https://files.example/missing.png"],
    });
    expect(result.attached_count).toBe(1);
    expect(result.failed_urls).toEqual(["https://files.example/missing.png"]);
    expect(result.post.media).toHaveLength(1);
    expect(result.post.media[0].mime_type).toBe("image/jpeg");
    await client.close();
  });
});
