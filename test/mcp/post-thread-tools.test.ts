import { describe, expect, it } from "vitest";
import { connectAccount } from "../routes/posts-fixtures";
import { createTestWorkspace } from "../support/harness";
import { callTool, connectMcp } from "../support/mcp-client";

/** Issue 20 through the tool server and the OpenAPI document: the same fields as REST. */
describe("per-row texts in MCP tools and OpenAPI", () => {
  it("create-post-tool and update-post-tool take content, thread, first_comment and signatures", async () => {
    const ws = await createTestWorkspace();
    const x = await connectAccount(ws, "x");
    const client = await connectMcp(ws.key);
    const post = await callTool(client, "create-post-tool", {
      content: "Shared",
      platforms: [
        {
          social_account_id: x.id,
          content_type: "x_post",
          content: "For X",
          thread: [{ content: "Second" }],
          first_comment: "Comment",
        },
      ],
    });
    const pending = { status: "pending", platform_post_id: null, platform_url: null, error_message: null };
    expect(post.platforms[0]).toMatchObject({
      content: "For X",
      thread: [{ content: "Second", media: [], ...pending }],
      first_comment: { content: "Comment", ...pending },
    });
    const sig = await ws.api("POST", "/api/signatures", { name: "Sig", content: "— team" });
    const updated = await callTool(client, "update-post-tool", {
      post_id: post.id,
      signature_id: sig.body.id,
      platforms: [{ id: post.platforms[0].id, signature_id: sig.body.id }],
    });
    expect([updated.content, updated.platforms[0].content]).toEqual(["Shared\n\n— team", "For X\n\n— team"]);
    expect((await ws.api("GET", `/api/posts/${post.id}`)).body).toEqual(updated);
  });

  it("the OpenAPI document describes the new fields", async () => {
    const ws = await createTestWorkspace();
    const doc = (await ws.api("GET", "/api/openapi.json")).body;
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas.PostPlatform.properties)).toEqual(
      expect.arrayContaining(["content", "thread", "first_comment"]),
    );
    expect(schemas.PostPlatform.required).not.toContain("thread");
    expect(Object.keys(schemas.ThreadItem.properties).sort()).toEqual(
      ["content", "media", "status", "platform_post_id", "platform_url", "error_message"].sort(),
    );
    const updateRow = schemas.UpdatePostRequest.properties.platforms.items.properties;
    expect(Object.keys(updateRow)).toEqual(
      expect.arrayContaining(["content", "thread", "first_comment", "signature_id"]),
    );
    expect(updateRow.thread.maxItems).toBe(25);
    expect(schemas.UpdatePostRequest.properties.signature_id.format).toBe("uuid");
    expect(Object.keys(schemas.PlatformCatalogEntry.properties)).toEqual(
      expect.arrayContaining(["thread_max_items", "first_comment_max_length", "meta_fields"]),
    );
  });
});
