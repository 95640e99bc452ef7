import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PLATFORMS } from "../../src/catalog/platforms";
import {
  MEDIA_URLS_MAX,
  PLATFORM_META_MAX_BYTES,
  POST_LABELS_MAX,
  POST_MEDIA_MAX,
  POST_PLATFORM_UPDATES_MAX,
  POST_TARGETS_MAX,
} from "../../src/lib/bounds";
import { GIF_1X1 } from "../media/fixtures";
import { fakeOrigin } from "../support/fake-fetch";
import { createTestWorkspace, YMDHIS } from "../support/harness";
import { callTool, connectMcp } from "../support/mcp-client";
import {
  pendingPlatform,
  type SeededAccount,
  seedAccounts,
  seededLabel,
  seededMedia,
  seedLabels,
  seedMedia,
  statementsOf,
} from "./bounds-fixtures";

/**
 * Every array a client sends, at its bound (success with the full resource) and one past it (422 on the field).
 * Local D1 enforces D1's 100-parameters-per-statement and 100 KB-per-statement limits (first test), so running each
 * verb at its bounds here is the check that no statement the code builds can exceed them.
 */

const fullPost = (o: {
  accounts: SeededAccount[];
  labels?: { id: string; name: string; color: string }[];
  media?: string[];
  content?: string;
}) => ({
  id: expect.stringMatching(/^[0-9a-f-]{36}$/),
  content: o.content ?? "",
  media: (o.media ?? []).map(seededMedia),
  status: "draft",
  scheduled_at: expect.stringMatching(YMDHIS),
  published_at: null,
  queue_id: null,
  repeat: null,
  repeat_of: null,
  platforms: o.accounts.map((a) => pendingPlatform(a)),
  labels: (o.labels ?? []).map(seededLabel),
  created_at: expect.stringMatching(YMDHIS),
  updated_at: expect.stringMatching(YMDHIS),
});

const targets = (accounts: SeededAccount[]) =>
  accounts.map((a) => ({ social_account_id: a.id, content_type: a.contentType }));

const tooMany = (field: string, max: number) => `The ${field} field must not have more than ${max} items.`;
const uuids = (n: number) => Array.from({ length: n }, () => crypto.randomUUID());

async function workspaceAtTheBounds() {
  const ws = await createTestWorkspace();
  const accounts = await seedAccounts(ws, POST_TARGETS_MAX + 1);
  const labels = await seedLabels(ws, POST_LABELS_MAX + 1);
  const media = await seedMedia(ws, POST_MEDIA_MAX + 1);
  return { ws, accounts, labels, media };
}

describe("the D1 limits the statements are designed against", () => {
  it("local D1 refuses a statement with 101 bound parameters or over 100 KB of SQL, as D1 does", async () => {
    const select = (n: number) =>
      env.DB.prepare(`SELECT ${Array.from({ length: n }, () => "?").join(", ")}`)
        .bind(...Array.from({ length: n }, (_, i) => i))
        .all();
    expect((await select(100)).results).toHaveLength(1);
    await expect(select(101)).rejects.toThrow(/too many SQL variables/);
    await expect(env.DB.prepare(`SELECT '${"x".repeat(100_001)}'`).all()).rejects.toThrow(/too long|TOOBIG/i);
  });

  it("the bounds are the documented numbers; media fits the catalog's largest carousel (tiktok_photo, 35)", () => {
    expect({ POST_TARGETS_MAX, POST_PLATFORM_UPDATES_MAX, POST_LABELS_MAX, POST_MEDIA_MAX, MEDIA_URLS_MAX }).toEqual({
      POST_TARGETS_MAX: 100,
      POST_PLATFORM_UPDATES_MAX: 100,
      POST_LABELS_MAX: 50,
      POST_MEDIA_MAX: 35,
      MEDIA_URLS_MAX: 10,
    });
    expect(PLATFORM_META_MAX_BYTES).toBe(4096);
  });
});

describe("POST /api/posts at the bounds", () => {
  it("100 targets over all twelve platforms, 50 labels and 35 media: 201 with the full post, in as many statements as 1 target", async () => {
    const { ws, accounts, labels, media } = await workspaceAtTheBounds();
    const max = {
      accounts: accounts.slice(0, POST_TARGETS_MAX),
      labels: labels.slice(0, POST_LABELS_MAX),
      media: media.slice(0, POST_MEDIA_MAX),
    };
    expect(new Set(max.accounts.map((a) => a.platform)).size).toBe(PLATFORMS.length);

    const small = await ws.api("POST", "/api/posts", { platforms: targets(accounts.slice(0, 1)) });
    expect(small.status, small.text).toBe(201);

    const maxBody = {
      platforms: targets(max.accounts),
      label_ids: max.labels.map((l) => l.id),
      media: max.media.map((id) => ({ id })),
      content: "Everyone, everywhere",
    };
    const res = await ws.api("POST", "/api/posts", maxBody);
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual(fullPost({ ...max, content: "Everyone, everywhere" }));
    expect(new Set(res.body.platforms.map((p: { id: string }) => p.id)).size).toBe(POST_TARGETS_MAX);
    // Reading and writing do not grow with the request: same statements for 1 target as for 100 + 50 + 35 (rows no
    // create has read yet, so both read first).
    const bare = await ws.api("POST", "/api/posts", {
      platforms: targets(accounts.slice(POST_TARGETS_MAX, POST_TARGETS_MAX + 1)),
      label_ids: [labels[POST_LABELS_MAX]!.id],
      media: [{ id: media[POST_MEDIA_MAX] }],
    });
    expect(statementsOf(res)).toBe(statementsOf(bare));
    // Again, with all 185 rows remembered (src/services/posts/reference-memory.ts): the write batch alone, its guard
    // comparing 185 fingerprints in one bound list — as few statements as the smallest remembered create.
    const again = await ws.api("POST", "/api/posts", maxBody);
    expect(again.status, again.text).toBe(201);
    const bareAgain = await ws.api("POST", "/api/posts", {
      platforms: targets(accounts.slice(1, 2)),
      label_ids: [labels[0]!.id],
      media: [{ id: media[0] }],
    });
    expect(statementsOf(again)).toBe(4);
    expect(statementsOf(bareAgain)).toBe(4);
    expect((await ws.api("GET", `/api/posts/${again.body.id}`)).body).toEqual(again.body);
    expect(again.body).toEqual({
      ...res.body,
      id: again.body.id,
      platforms: again.body.platforms,
      created_at: again.body.created_at,
      updated_at: again.body.updated_at,
    });

    const shown = await ws.api("GET", `/api/posts/${res.body.id}`);
    expect(shown.body).toEqual(res.body);
    const list = await ws.api("GET", "/api/posts");
    expect(list.body.data.find((p: { id: string }) => p.id === res.body.id)).toEqual(res.body);
  });

  it("one past each bound answers 422 on that field, all of them in one answer", async () => {
    const { ws, accounts, labels, media } = await workspaceAtTheBounds();
    const over = {
      platforms: targets(accounts),
      label_ids: labels.map((l) => l.id),
      media: media.map((id) => ({ id })),
    };
    for (const field of ["platforms", "label_ids", "media"] as const) {
      const max = { platforms: POST_TARGETS_MAX, label_ids: POST_LABELS_MAX, media: POST_MEDIA_MAX }[field];
      const res = await ws.api("POST", "/api/posts", {
        platforms: targets(accounts.slice(0, 1)),
        [field]: over[field],
      });
      const message = tooMany(field.replace("_", " "), max);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message, errors: { [field]: [message] } });
    }
    const all = await ws.api("POST", "/api/posts", over);
    expect(all.status).toBe(422);
    expect(all.body).toEqual({
      message: `${tooMany("platforms", 100)} (and 2 more errors)`,
      errors: {
        platforms: [tooMany("platforms", 100)],
        media: [tooMany("media", 35)],
        label_ids: [tooMany("label ids", 50)],
      },
    });
    const count = await env.DB.prepare("SELECT COUNT(*) AS n FROM posts WHERE workspace_id = ?")
      .bind(ws.workspaceId)
      .first("n");
    expect(count).toBe(0);
  });
});

describe("PUT /api/posts/{post} at the bounds", () => {
  it("grows a post to 100 targets, changes all 100 rows in one request, replaces 50 labels and 35 media", async () => {
    const { ws, accounts, labels, media } = await workspaceAtTheBounds();
    const created = await ws.api("POST", "/api/posts", { platforms: targets(accounts.slice(0, 1)) });
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    const grown = await ws.api("PUT", `/api/posts/${id}`, {
      platforms: targets(accounts.slice(1, POST_TARGETS_MAX)),
    });
    expect(grown.status, grown.text).toBe(200);
    expect(grown.body).toEqual(fullPost({ accounts: accounts.slice(0, POST_TARGETS_MAX) }));

    const rows = grown.body.platforms as { id: string; platform: string }[];
    const edited = await ws.api("PUT", `/api/posts/${id}`, {
      platforms: rows.map((r, i) => ({
        id: r.id,
        enabled: i % 2 === 0,
        ...(r.platform === "pinterest" ? { meta: { board_id: `board-${i}` } } : {}),
      })),
      label_ids: labels.slice(0, POST_LABELS_MAX).map((l) => l.id),
      media: media.slice(0, POST_MEDIA_MAX).map((m) => ({ id: m })),
    });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toEqual({
      ...fullPost({
        accounts: [],
        labels: labels.slice(0, POST_LABELS_MAX),
        media: media.slice(0, POST_MEDIA_MAX),
      }),
      platforms: rows.map((r, i) =>
        pendingPlatform(accounts[i]!, {
          id: r.id,
          enabled: i % 2 === 0,
          meta: r.platform === "pinterest" ? { board_id: `board-${i}` } : {},
        }),
      ),
    });
    expect(statementsOf(edited)).toBe(statementsOf(grown) + 4); // the two list replacements: delete + insert each
  });

  it("one past each bound answers 422: 101 entries, a 101st target, 51 labels, 36 media, meta over 4096 bytes", async () => {
    const { ws, accounts, labels, media } = await workspaceAtTheBounds();
    const created = await ws.api("POST", "/api/posts", { platforms: targets(accounts.slice(0, POST_TARGETS_MAX)) });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const put = (body: unknown) => ws.api("PUT", `/api/posts/${id}`, body);
    const expect422 = async (body: unknown, errors: Record<string, string[]>) => {
      const res = await put(body);
      expect(res.status).toBe(422);
      const all = Object.values(errors).flat();
      const more = all.length - 1;
      expect(res.body).toEqual({
        message: more ? `${all[0]} (and ${more} more error${more === 1 ? "" : "s"})` : all[0],
        errors,
      });
    };

    await expect422(
      {
        platforms: Array.from({ length: POST_PLATFORM_UPDATES_MAX + 1 }, () => ({ id: created.body.platforms[0].id })),
      },
      { platforms: [tooMany("platforms", 100)] },
    );
    await expect422(
      { platforms: targets(accounts.slice(POST_TARGETS_MAX)) },
      { platforms: ["A post can target at most 100 accounts (101 after this update)."] },
    );
    await expect422({ label_ids: labels.map((l) => l.id) }, { label_ids: [tooMany("label ids", 50)] });
    await expect422({ media: media.map((m) => ({ id: m })) }, { media: [tooMany("media", 35)] });
    const big = "b".repeat(PLATFORM_META_MAX_BYTES);
    await expect422(
      { platforms: [{ id: created.body.platforms[9].id, meta: { board_id: big } }] },
      {
        "platforms.0.meta": [
          `The platforms.0.meta field must not be greater than 4096 bytes as JSON (${big.length + 15} after the merge).`,
        ],
      },
    );
    // Nothing changed.
    expect((await ws.api("GET", `/api/posts/${id}`)).body).toEqual(created.body);
  });
});

describe("reads and deletes at the bounds", () => {
  it("metrics of a 100-target post, and deleting a post with 35 media releases them", async () => {
    const { ws, accounts, media } = await workspaceAtTheBounds();
    const created = await ws.api("POST", "/api/posts", {
      platforms: targets(accounts.slice(0, POST_TARGETS_MAX)),
      media: media.slice(0, POST_MEDIA_MAX).map((m) => ({ id: m })),
    });
    expect(created.status).toBe(201);
    const metrics = await ws.api("GET", `/api/posts/${created.body.id}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.body).toEqual({
      post_id: created.body.id,
      platforms: created.body.platforms.map((p: { id: string; platform: string }) => ({
        post_platform_id: p.id,
        platform: p.platform,
        status: "pending",
        platform_post_id: null,
        platform_url: null,
        metrics: {
          unsupported: true,
          reason: ["tiktok", "linkedin"].includes(p.platform) ? "platform_not_supported" : "not_published",
        },
      })),
    });

    const deleted = await ws.api("DELETE", `/api/posts/${created.body.id}`);
    expect(deleted.status).toBe(204);
    const left = await env.DB.prepare("SELECT COUNT(*) AS n FROM media WHERE workspace_id = ?")
      .bind(ws.workspaceId)
      .first("n");
    expect(left).toBe(1); // the 36th, never attached
  });
});

describe("POST /api/posts/{post}/media/from-url at the bounds", () => {
  const CDN = "https://cdn-bounds.fake";

  it("10 URLs attach 10 media (200); 11 answer 422 on urls", async () => {
    const ws = await createTestWorkspace();
    const [account] = await seedAccounts(ws, 3); // linkedin, linkedin-page, x
    const created = await ws.api("POST", "/api/posts", {
      platforms: [{ social_account_id: account!.id, content_type: "linkedin_carousel" }],
    });
    const stop = fakeOrigin(CDN, () => new Response(GIF_1X1));
    const urls = Array.from({ length: MEDIA_URLS_MAX + 1 }, (_, i) => `${CDN}/${i}.gif`);
    const res = await ws.api("POST", `/api/posts/${created.body.id}/media/from-url`, { urls: urls.slice(0, 10) });
    stop();
    expect(res.status, res.text).toBe(200);
    expect(res.body.attached_count).toBe(10);
    expect(res.body.failed_urls).toEqual([]);
    expect(res.body.post.media.map((m: { original_filename: string }) => m.original_filename)).toEqual(
      urls.slice(0, 10).map((u) => u.slice(CDN.length + 1)),
    );
    expect(res.body.post).toEqual((await ws.api("GET", `/api/posts/${created.body.id}`)).body);

    const over = await ws.api("POST", `/api/posts/${created.body.id}/media/from-url`, { urls });
    expect(over.status).toBe(422);
    expect(over.body).toEqual({ message: tooMany("urls", 10), errors: { urls: [tooMany("urls", 10)] } });
  });
});

describe("MCP tools at the bounds", () => {
  it("create-post-tool and update-post-tool take the maxima and refuse one past them", async () => {
    const { ws, accounts, labels, media } = await workspaceAtTheBounds();
    const client = await connectMcp(ws.key);
    const created = await callTool(client, "create-post-tool", {
      platforms: targets(accounts.slice(0, POST_TARGETS_MAX)),
      label_ids: labels.slice(0, POST_LABELS_MAX).map((l) => l.id),
      media: media.slice(0, POST_MEDIA_MAX).map((id) => ({ id })),
    });
    expect(created).toEqual(
      fullPost({
        accounts: accounts.slice(0, POST_TARGETS_MAX),
        labels: labels.slice(0, POST_LABELS_MAX),
        media: media.slice(0, POST_MEDIA_MAX),
      }),
    );
    const refused = async (name: string, args: Record<string, unknown>, field: string) => {
      const res = await client.callTool({ name, arguments: args });
      expect(res.isError).toBe(true);
      expect(JSON.stringify(res.content)).toContain(field);
    };
    await refused("create-post-tool", { platforms: targets(accounts) }, "platforms");
    await refused("create-post-tool", { platforms: targets(accounts.slice(0, 1)), label_ids: uuids(51) }, "label_ids");
    await refused(
      "create-post-tool",
      { platforms: targets(accounts.slice(0, 1)), media: uuids(36).map((id) => ({ id })) },
      "media",
    );
    await refused("update-post-tool", { post_id: created.id, label_ids: labels.map((l) => l.id) }, "label_ids");
    await refused("update-post-tool", { post_id: created.id, media: media.map((id) => ({ id })) }, "media");
    await refused(
      "update-post-tool",
      { post_id: created.id, platforms: Array.from({ length: 101 }, () => ({ id: created.platforms[0].id })) },
      "platforms",
    );
    const more = await client.callTool({
      name: "update-post-tool",
      arguments: { post_id: created.id, platforms: targets(accounts.slice(POST_TARGETS_MAX)) },
    });
    expect(more.structuredContent).toEqual({
      message: "A post can target at most 100 accounts (101 after this update).",
      errors: { platforms: ["A post can target at most 100 accounts (101 after this update)."] },
    });
    await refused(
      "attach-media-from-url-tool",
      { post_id: created.id, urls: Array.from({ length: 11 }, (_, i) => `https://cdn.fake/${i}.gif`) },
      "urls",
    );
    expect(await callTool(client, "get-post-tool", { post_id: created.id })).toEqual(created);
    await client.close();
  });
});
