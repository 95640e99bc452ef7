import { describe, expect, it } from "vitest";
import {
  MEDIA_URLS_MAX,
  POST_LABELS_MAX,
  POST_MEDIA_MAX,
  POST_PLATFORM_UPDATES_MAX,
  POST_TARGETS_MAX,
} from "../../src/lib/bounds";
import { API_KEY_SCOPES } from "../../src/services/api-keys/scopes";
import { WEBHOOK_EVENT_TYPES } from "../../src/services/webhooks/event-types";
import { GIF_1X1 } from "../media/fixtures";
import { seedAccounts, seedLabels, seedMedia } from "../routes/bounds-fixtures";
import { fakeOrigin } from "../support/fake-fetch";
import { createTestWorkspace, type TestWorkspace } from "../support/harness";
import { callTool, connectMcp } from "../support/mcp-client";

/**
 * Issue 15: every MCP tool that takes an array answers one past its bound with the same validation error as REST —
 * `{message, errors.<field>}` in `structuredContent`, word for word the REST 422 body — not the SDK's own
 * "Input validation error" text; and takes the bound itself. The REST side of each is asserted in the same test.
 */

type Client = Awaited<ReturnType<typeof connectMcp>>;

/** The tool's error, which must be the REST 422 body of the same request. */
async function toolError(client: Client, name: string, args: Record<string, unknown>) {
  const res = await client.callTool({ name, arguments: args });
  expect(res.isError, JSON.stringify(res.content)).toBe(true);
  return res.structuredContent;
}

async function rest422(ws: TestWorkspace, method: string, path: string, body: unknown) {
  const res = await ws.api(method, path, body);
  expect(res.status, res.text).toBe(422);
  return res.body;
}

const tooMany = (field: string, max: number) => {
  const message = `The ${field.replaceAll("_", " ")} field must not have more than ${max} items.`;
  return { message, errors: { [field]: [message] } };
};

async function workspace() {
  const ws = await createTestWorkspace();
  const accounts = await seedAccounts(ws, POST_TARGETS_MAX + 1);
  const labels = await seedLabels(ws, POST_LABELS_MAX + 1);
  const media = await seedMedia(ws, POST_MEDIA_MAX + 1);
  const targets = (n: number, from = 0) =>
    accounts.slice(from, from + n).map((a) => ({ social_account_id: a.id, content_type: a.contentType }));
  return { ws, accounts, labels, media, targets, client: await connectMcp(ws.key) };
}

describe("MCP tools: one past an array bound is the REST validation error", () => {
  it("create-post-tool: platforms 100/101, label_ids 50/51, media 35/36", async () => {
    const { ws, labels, media, targets, client } = await workspace();
    const cases = [
      { field: "platforms", max: POST_TARGETS_MAX, over: { platforms: targets(POST_TARGETS_MAX + 1) } },
      {
        field: "label_ids",
        max: POST_LABELS_MAX,
        over: { platforms: targets(1), label_ids: labels.map((l) => l.id) },
      },
      { field: "media", max: POST_MEDIA_MAX, over: { platforms: targets(1), media: media.map((id) => ({ id })) } },
    ];
    for (const c of cases) {
      const mcp = await toolError(client, "create-post-tool", c.over);
      expect(mcp).toEqual(tooMany(c.field, c.max));
      expect(mcp).toEqual(await rest422(ws, "POST", "/api/posts", c.over));
    }
    // The bounds themselves: one post at all three maxima.
    const created = await callTool(client, "create-post-tool", {
      platforms: targets(POST_TARGETS_MAX),
      label_ids: labels.slice(0, POST_LABELS_MAX).map((l) => l.id),
      media: media.slice(0, POST_MEDIA_MAX).map((id) => ({ id })),
    });
    expect([created.platforms.length, created.labels.length, created.media.length]).toEqual([
      POST_TARGETS_MAX,
      POST_LABELS_MAX,
      POST_MEDIA_MAX,
    ]);
    expect(created).toEqual((await ws.api("GET", `/api/posts/${created.id}`)).body);
    await client.close();
  });

  it("update-post-tool: platforms 100/101 entries, label_ids 50/51, media 35/36", async () => {
    const { ws, labels, media, targets, client } = await workspace();
    const post = await callTool(client, "create-post-tool", { platforms: targets(POST_TARGETS_MAX) });
    const rowIds = post.platforms.map((p: { id: string }) => p.id) as string[];
    const cases = [
      {
        field: "platforms",
        max: POST_PLATFORM_UPDATES_MAX,
        over: { platforms: [...rowIds, rowIds[0]].map((id) => ({ id, enabled: true })) },
      },
      { field: "label_ids", max: POST_LABELS_MAX, over: { label_ids: labels.map((l) => l.id) } },
      { field: "media", max: POST_MEDIA_MAX, over: { media: media.map((id) => ({ id })) } },
    ];
    for (const c of cases) {
      const mcp = await toolError(client, "update-post-tool", { post_id: post.id, ...c.over });
      expect(mcp).toEqual(tooMany(c.field, c.max));
      expect(mcp).toEqual(await rest422(ws, "PUT", `/api/posts/${post.id}`, c.over));
    }
    const updated = await callTool(client, "update-post-tool", {
      post_id: post.id,
      platforms: rowIds.map((id) => ({ id, enabled: false })),
      label_ids: labels.slice(0, POST_LABELS_MAX).map((l) => l.id),
      media: media.slice(0, POST_MEDIA_MAX).map((id) => ({ id })),
    });
    expect(updated.platforms.map((p: { enabled: boolean }) => p.enabled)).toEqual(rowIds.map(() => false));
    expect([updated.labels.length, updated.media.length]).toEqual([POST_LABELS_MAX, POST_MEDIA_MAX]);
    expect(updated).toEqual((await ws.api("GET", `/api/posts/${post.id}`)).body);
    await client.close();
  });

  it("attach-media-from-url-tool: urls 10/11", async () => {
    const ws = await createTestWorkspace();
    const [account] = await seedAccounts(ws, 1); // linkedin: a carousel takes 10 images
    const client = await connectMcp(ws.key);
    const post = await callTool(client, "create-post-tool", {
      platforms: [{ social_account_id: account!.id, content_type: "linkedin_carousel" }],
    });
    const CDN = "https://cdn-mcp-bounds.fake";
    const urls = Array.from({ length: MEDIA_URLS_MAX + 1 }, (_, i) => `${CDN}/${i}.gif`);
    const over = { urls };
    const mcp = await toolError(client, "attach-media-from-url-tool", { post_id: post.id, ...over });
    expect(mcp).toEqual(tooMany("urls", MEDIA_URLS_MAX));
    expect(mcp).toEqual(await rest422(ws, "POST", `/api/posts/${post.id}/media/from-url`, over));
    const stop = fakeOrigin(CDN, () => new Response(GIF_1X1));
    const attached = await callTool(client, "attach-media-from-url-tool", {
      post_id: post.id,
      urls: urls.slice(0, MEDIA_URLS_MAX),
    });
    stop();
    expect([attached.attached_count, attached.failed_urls]).toEqual([MEDIA_URLS_MAX, []]);
    expect(attached.post).toEqual((await ws.api("GET", `/api/posts/${post.id}`)).body);
    await client.close();
  });

  it("create-webhook-tool and update-webhook-tool: events at all types, and one more", async () => {
    const ws = await createTestWorkspace();
    const client = await connectMcp(ws.key);
    const max = WEBHOOK_EVENT_TYPES.length;
    const all = [...WEBHOOK_EVENT_TYPES];
    const url = "https://hooks.example.com/in";
    const over = { url, events: [...all, all[0]] };
    const mcp = await toolError(client, "create-webhook-tool", over);
    expect(mcp).toEqual(tooMany("events", max));
    expect(mcp).toEqual(await rest422(ws, "POST", "/api/webhooks", over));
    const created = await callTool(client, "create-webhook-tool", { url, events: all });
    expect(created.events).toEqual(all);

    const update = { events: [...all, all[0]] };
    const mcpUpdate = await toolError(client, "update-webhook-tool", { webhook_id: created.id, ...update });
    expect(mcpUpdate).toEqual(tooMany("events", max));
    expect(mcpUpdate).toEqual(await rest422(ws, "PUT", `/api/webhooks/${created.id}`, update));
    await client.close();
  });

  it("create-api-key-tool: scopes at all three, and one more", async () => {
    const ws = await createTestWorkspace();
    const client = await connectMcp(ws.key);
    const max = API_KEY_SCOPES.length;
    const over = { name: "Too many scopes", scopes: [...API_KEY_SCOPES, API_KEY_SCOPES[0]] };
    const mcp = await toolError(client, "create-api-key-tool", over);
    expect(mcp).toEqual(tooMany("scopes", max));
    expect(mcp).toEqual(await rest422(ws, "POST", "/api/api-keys", over));
    const created = await callTool(client, "create-api-key-tool", { name: "All scopes", scopes: [...API_KEY_SCOPES] });
    expect(created.token.name).toBe("All scopes");
    await client.close();
  });

  it("a missing required field is the REST error too (not the SDK's text)", async () => {
    const ws = await createTestWorkspace();
    const client = await connectMcp(ws.key);
    const mcp = await toolError(client, "create-post-tool", { content: "No targets" });
    expect(mcp).toEqual(await rest422(ws, "POST", "/api/posts", { content: "No targets" }));
    expect(mcp).toEqual({
      message: "The platforms field is required.",
      errors: { platforms: ["The platforms field is required."] },
    });
    await client.close();
  });
});
