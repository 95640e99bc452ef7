import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { connectAccount, DAY, isoIn } from "../routes/posts-fixtures";
import { fakeOrigin } from "../support/fake-fetch";
import { call, createTestWorkspace, type TestWorkspace } from "../support/harness";
import { callTool, connectMcp } from "../support/mcp-client";
import { GIF_1X1, makePng } from "./fixtures";

/**
 * Issue 29: a media item's `alt` text — set at upload (multipart field `alt`, before or after the file; from-URL
 * `alts`; the signed upload's form or the attach tool), changed afterwards (`PATCH /api/media/{media}`, MCP
 * `update-media-tool`), shown on Media in the Post resource, and checked at schedule time against each network's own
 * limit.
 */

const ALT = "Bar chart: sign-ups doubled from March to April.";
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function draftFor(ws: TestWorkspace, platform = "x", contentType = "x_post") {
  const acc = await connectAccount(ws, platform);
  const res = await ws.api("POST", "/api/posts", {
    content: "Hello",
    platforms: [{ social_account_id: acc.id, content_type: contentType }],
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string };
}

const form = (parts: [string, string | File][]) => {
  const f = new FormData();
  for (const [k, v] of parts) f.append(k, v);
  return f;
};
const upload = (ws: TestWorkspace, postId: string, body: FormData) =>
  call("POST", `/api/posts/${postId}/media`, { key: ws.key, rawBody: body });
const png = async () => new File([await makePng(4, 3)], "chart.png", { type: "image/png" });

describe("alt text at upload", () => {
  it("direct upload: the `alt` field before or after the file is kept (trimmed); blank means none", async () => {
    const ws = await createTestWorkspace();
    const post = await draftFor(ws);
    const before = await upload(
      ws,
      post.id,
      form([
        ["alt", `  ${ALT} `],
        ["media", await png()],
      ]),
    );
    expect(before.status, before.text).toBe(200);
    const after = await upload(
      ws,
      post.id,
      form([
        ["media", await png()],
        ["alt", "After the file"],
      ]),
    );
    const blank = await upload(
      ws,
      post.id,
      form([
        ["media", await png()],
        ["alt", "   "],
      ]),
    );
    expect(blank.body.media.map((m: { alt: string | null }) => m.alt)).toEqual([ALT, "After the file", null]);
    expect(after.status).toBe(200);
  });

  it("direct upload: an alt text over 1,500 characters is a 422 naming `alt`, and nothing is stored", async () => {
    const ws = await createTestWorkspace();
    const post = await draftFor(ws);
    const res = await upload(
      ws,
      post.id,
      form([
        ["media", await png()],
        ["alt", "a".repeat(1501)],
      ]),
    );
    expect([res.status, res.body]).toEqual([
      422,
      {
        message: "The alt field must not be greater than 1500 characters.",
        errors: { alt: ["The alt field must not be greater than 1500 characters."] },
      },
    ]);
    expect((await ws.api("GET", `/api/posts/${post.id}`)).body.media).toEqual([]);
  });

  it("from URL: `alts` in the order of `urls`", async () => {
    cleanups.push(
      fakeOrigin("https://cdn.fake", () => new Response(GIF_1X1, { headers: { "content-type": "image/gif" } })),
    );
    const ws = await createTestWorkspace();
    const post = await draftFor(ws);
    const res = await ws.api("POST", `/api/posts/${post.id}/media/from-url`, {
      urls: ["https://cdn.fake/a.gif", "https://cdn.fake/b.gif"],
      alts: [ALT, null],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.post.media.map((m: { alt: string | null }) => m.alt)).toEqual([ALT, null]);
    const tooMany = await ws.api("POST", `/api/posts/${post.id}/media/from-url`, {
      urls: ["https://cdn.fake/a.gif"],
      alts: ["one", "two"],
    });
    expect([tooMany.status, tooMany.body.errors]).toEqual([
      422,
      { alts: ["The alts field must not have more items than urls."] },
    ]);
  });

  it("signed upload: the form's `alt`, replaced by the attach tool's when it gives one", async () => {
    const ws = await createTestWorkspace();
    const post = await draftFor(ws);
    const client = await connectMcp(ws.key);
    const upload = await callTool(client, "request-media-upload-tool");
    const res = await exports.default.fetch(
      new Request(upload.upload_url, {
        method: "POST",
        body: form([
          ["alt", ALT],
          ["media", await png()],
        ]),
        headers: { "CF-Connecting-IP": "203.0.113.91" },
      }),
    );
    expect(res.status).toBe(201);
    const attached = await callTool(client, "attach-media-from-upload-tool", {
      post_id: post.id,
      upload_token: upload.upload_token,
    });
    expect(attached.post.media.map((m: { alt: string | null }) => m.alt)).toEqual([ALT]);
    const relabelled = await callTool(client, "attach-media-from-upload-tool", {
      post_id: post.id,
      upload_token: upload.upload_token,
      alt: "A new description",
    });
    expect(relabelled.post.media.map((m: { alt: string | null }) => m.alt)).toEqual(["A new description"]);
    await client.close();
  });
});

describe("PATCH /api/media/{media} and update-media-tool", () => {
  it("sets and clears the alt text; the post shows it; 404 outside the workspace; 422 past 1,500", async () => {
    const ws = await createTestWorkspace();
    const post = await draftFor(ws);
    const up = await upload(ws, post.id, form([["media", await png()]]));
    const media = up.body.media[0];
    expect(media.alt).toBeNull();

    const set = await ws.api("PATCH", `/api/media/${media.id}`, { alt: ALT });
    expect([set.status, set.body]).toEqual([200, { ...media, alt: ALT }]);
    expect((await ws.api("GET", `/api/posts/${post.id}`)).body.media).toEqual([{ ...media, alt: ALT }]);

    const client = await connectMcp(ws.key);
    expect(await callTool(client, "update-media-tool", { media_id: media.id, alt: null })).toEqual({
      ...media,
      alt: null,
    });
    await client.close();
    expect((await ws.api("GET", `/api/posts/${post.id}`)).body.media).toEqual([media]);

    const other = await createTestWorkspace();
    expect((await other.api("PATCH", `/api/media/${media.id}`, { alt: "x" })).status).toBe(404);
    const tooLong = await ws.api("PATCH", `/api/media/${media.id}`, { alt: "a".repeat(1501) });
    expect([tooLong.status, Object.keys(tooLong.body.errors)]).toEqual([422, ["alt"]]);
  });
});

describe("a thread item's media", () => {
  it("shows a changed alt text at once (the post's revision follows media named only by a thread item)", async () => {
    const ws = await createTestWorkspace();
    const post = await draftFor(ws);
    const up = await upload(ws, post.id, form([["media", await png()]]));
    const mediaId = up.body.media[0].id;
    const rowId = up.body.platforms[0].id;
    // The item names the media; the post itself no longer does.
    const put = await ws.api("PUT", `/api/posts/${post.id}`, {
      media: [],
      platforms: [{ id: rowId, thread: [{ content: "Item", media: [{ id: mediaId }] }] }],
    });
    expect(put.status, put.text).toBe(200);
    expect((await ws.api("GET", `/api/posts/${post.id}`)).body.platforms[0].thread[0].media[0].alt).toBeNull();
    await ws.api("PATCH", `/api/media/${mediaId}`, { alt: ALT });
    expect((await ws.api("GET", `/api/posts/${post.id}`)).body.platforms[0].thread[0].media[0].alt).toBe(ALT);
  });
});

describe("alt text against each network's limit at schedule time", () => {
  it("X takes 1,000 characters, Pinterest 500: longer is a 422 naming the media item", async () => {
    const ws = await createTestWorkspace();
    const x = await connectAccount(ws, "x");
    const pin = await connectAccount(ws, "pinterest");
    const created = await ws.api("POST", "/api/posts", {
      content: "Hello",
      platforms: [
        { social_account_id: x.id, content_type: "x_post" },
        { social_account_id: pin.id, content_type: "pinterest_pin" },
      ],
    });
    const up = await upload(ws, created.body.id, form([["media", await png()]]));
    await ws.api("PATCH", `/api/media/${up.body.media[0].id}`, { alt: "a".repeat(1001) });
    const res = await ws.api("PUT", `/api/posts/${created.body.id}`, {
      status: "scheduled",
      scheduled_at: isoIn(DAY),
      platforms: [{ id: created.body.platforms[1].id, meta: { board_id: "b1" } }],
    });
    expect([res.status, res.body.errors]).toEqual([
      422,
      {
        media: [
          "X: the alt text of media item 1 is too long by 1 character (max 1,000).",
          "Pinterest: the alt text of media item 1 is too long by 501 characters (max 500).",
        ],
      },
    ]);
    await ws.api("PATCH", `/api/media/${up.body.media[0].id}`, { alt: "a".repeat(500) });
    const ok = await ws.api("PUT", `/api/posts/${created.body.id}`, { status: "scheduled", scheduled_at: isoIn(DAY) });
    expect([ok.status, ok.body.status]).toEqual([200, "scheduled"]);
  });
});
