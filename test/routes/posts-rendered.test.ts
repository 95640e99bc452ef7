import { env } from "cloudflare:workers";
import { type Column, getTableColumns, getTableName, type Table } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { labels, media, postPlatforms, posts, socialAccounts } from "../../src/db/schema";
import {
  ACCOUNT_FIELDS,
  LABEL_FIELDS,
  MEDIA_FIELDS,
  POST_FIELDS,
  POST_PLATFORM_FIELDS,
} from "../../src/presenters/post";
import { RENDERED_POST_TTL_MS } from "../../src/services/posts/rendered-posts";
import { spyOnPrepare } from "../support/d1-spy";
import { createTestWorkspace, type TestWorkspace } from "../support/harness";
import { connectAccount, createLabel, insertMedia } from "./posts-fixtures";

/**
 * Rendered post resources are reused while `posts.revision` is unchanged (src/services/posts/rendered-posts.ts), and
 * database triggers move the revision on every change to what a resource shows (migrations/0001_post_revisions.sql).
 */

afterEach(() => vi.restoreAllMocks());

async function postWithEverything(ws: TestWorkspace) {
  const account = await connectAccount(ws, "x");
  const label = await createLabel(ws, "launch");
  const image = await insertMedia(ws, "image");
  const res = await ws.api("POST", "/api/posts", {
    content: "Hello",
    platforms: [{ social_account_id: account.id, content_type: "x_post" }],
    media: [{ id: image.id }],
    label_ids: [label.id],
  });
  expect(res.status, res.text).toBe(201);
  return { post: res.body, account, label, image };
}

const revisionOf = async (postId: string) =>
  (await env.DB.prepare("SELECT revision FROM posts WHERE id = ?").bind(postId).first<number>("revision")) as number;

const columnNames = (table: Table, keys: readonly string[]) =>
  keys.map((key) => ((getTableColumns(table) as Record<string, Column>)[key] as Column).name);

/**
 * The post statements D1 is asked to run: `render` for one that builds resources (with the post ids it binds),
 * `ids` for a page read of ids and revisions only.
 */
function capturePostStatements(postIds: string[]) {
  const seen: { kind: "render" | "ids"; posts: string[] }[] = [];
  spyOnPrepare((query, prepare) => {
    const stmt = prepare(query);
    const kind = query.includes("AS platforms") ? "render" : query.includes("page.revision AS revision") ? "ids" : null;
    if (!kind) return stmt;
    return new Proxy(stmt, {
      get(target, prop) {
        const value = Reflect.get(target, prop);
        if (prop === "bind")
          return (...args: unknown[]) => {
            // Ids are bound one by one or as one JSON array (src/db/json-params.ts).
            const bound = args.filter((a): a is string => typeof a === "string");
            seen.push({ kind, posts: postIds.filter((id) => bound.some((a) => a === id || a.includes(`"${id}"`))) });
            return value.apply(target, args);
          };
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  });
  return seen;
}

describe("post revisions", () => {
  it("move forward on every change to a field the resource shows, from any table, and only then", async () => {
    const ws = await createTestWorkspace();
    const { post, account, label, image } = await postWithEverything(ws);
    const platformId = post.platforms[0].id;
    const touch = [
      { table: posts, keys: POST_FIELDS, id: post.id },
      { table: postPlatforms, keys: [...POST_PLATFORM_FIELDS, "position", "createdAt"], id: platformId },
      { table: socialAccounts, keys: ACCOUNT_FIELDS, id: account.id },
      { table: media, keys: MEDIA_FIELDS, id: image.id },
      { table: labels, keys: LABEL_FIELDS, id: label.id },
    ] as const;
    for (const { table, keys, id } of touch) {
      for (const column of columnNames(table, keys)) {
        const before = await revisionOf(post.id);
        // A trigger with `UPDATE OF` fires whenever the column is assigned, changed or not.
        await env.DB.prepare(`UPDATE "${getTableName(table)}" SET "${column}" = "${column}" WHERE id = ?`)
          .bind(id)
          .run();
        expect({ column, moved: (await revisionOf(post.id)) > before }).toEqual({ column, moved: true });
      }
    }

    // Columns the resource does not show leave it alone (token refreshes and claims would otherwise churn it).
    const before = await revisionOf(post.id);
    await env.DB.prepare("UPDATE social_accounts SET credentials = 'rotated', token_expires_at = 1 WHERE id = ?")
      .bind(account.id)
      .run();
    await env.DB.prepare("UPDATE post_platforms SET claimed_at = 1, attempts = attempts + 1 WHERE id = ?")
      .bind(platformId)
      .run();
    await env.DB.prepare("UPDATE media SET upload_token = 'x' WHERE id = ?").bind(image.id).run();
    expect(await revisionOf(post.id)).toBe(before);
  });

  it("move forward when platforms, media or labels are attached or detached, and when a label or medium is deleted", async () => {
    const ws = await createTestWorkspace();
    const { post, label, image } = await postWithEverything(ws);
    const steps: [string, () => Promise<unknown>][] = [
      ["label detached", () => env.DB.prepare("DELETE FROM post_labels WHERE post_id = ?").bind(post.id).run()],
      [
        "label attached",
        () => env.DB.prepare("INSERT INTO post_labels (post_id, label_id) VALUES (?, ?)").bind(post.id, label.id).run(),
      ],
      ["label deleted (cascade)", () => ws.api("DELETE", `/api/labels/${label.id}`)],
      [
        "medium repositioned",
        () => env.DB.prepare("UPDATE post_media SET position = 5 WHERE post_id = ?").bind(post.id).run(),
      ],
      ["medium deleted (cascade)", () => env.DB.prepare("DELETE FROM media WHERE id = ?").bind(image.id).run()],
      ["platform detached", () => env.DB.prepare("DELETE FROM post_platforms WHERE post_id = ?").bind(post.id).run()],
    ];
    for (const [step, run] of steps) {
      const before = await revisionOf(post.id);
      await run();
      expect({ step, moved: (await revisionOf(post.id)) > before }).toEqual({ step, moved: true });
    }
  });

  it("never repeat: a new post starts at the current time in milliseconds", async () => {
    const ws = await createTestWorkspace();
    const started = Date.now();
    const { post } = await postWithEverything(ws);
    expect(await revisionOf(post.id)).toBeGreaterThanOrEqual(started);
  });
});

describe("rendered post reuse (GET /api/posts)", () => {
  it("reads only ids and revisions while a page is unchanged, and renders exactly the posts that changed", async () => {
    const ws = await createTestWorkspace();
    const { post: rich, account, label } = await postWithEverything(ws);
    const plainRes = await ws.api("POST", "/api/posts", {
      content: "plain",
      platforms: [{ social_account_id: account.id, content_type: "x_post" }],
    });
    expect(plainRes.status, plainRes.text).toBe(201);
    const plain = plainRes.body;
    const seen = capturePostStatements([rich.id, plain.id]);
    const byId = (page: { data: { id: string }[] }) => Object.fromEntries(page.data.map((p) => [p.id, p]));

    // First read of the page in this isolate: one statement renders both (no post ids bound: it selects by page).
    const first = await ws.api("GET", "/api/posts");
    expect(byId(first.body)).toEqual({ [rich.id]: rich, [plain.id]: plain });
    // Read again, unchanged: one statement of ids and revisions, the same body.
    const second = await ws.api("GET", "/api/posts");
    expect(second.body).toEqual(first.body);
    expect(seen).toEqual([
      { kind: "render", posts: [] },
      { kind: "ids", posts: [] },
    ]);

    // A label renamed through the API: only the post carrying it is rendered again, and shows the new name.
    seen.length = 0;
    const renamed = await ws.api("PUT", `/api/labels/${label.id}`, { name: "renamed", color: "#445566" });
    expect(renamed.status, renamed.text).toBe(200);
    const third = await ws.api("GET", "/api/posts");
    expect(byId(third.body)).toEqual({ [rich.id]: { ...rich, labels: [renamed.body] }, [plain.id]: plain });
    expect(seen).toEqual([
      { kind: "ids", posts: [] },
      { kind: "render", posts: [rich.id] },
    ]);

    // A publisher's write straight to D1 (no app code to remember a cache): the next read shows it.
    seen.length = 0;
    await env.DB.prepare(
      "UPDATE post_platforms SET status = 'published', platform_url = 'https://x.test/1' WHERE post_id = ?",
    )
      .bind(plain.id)
      .run();
    const fourth = await ws.api("GET", "/api/posts");
    expect(byId(fourth.body)[plain.id]).toEqual({
      ...plain,
      platforms: [{ ...plain.platforms[0], status: "published", platform_url: "https://x.test/1" }],
    });
    expect(byId(fourth.body)[rich.id]).toEqual(byId(third.body)[rich.id]);
    expect(seen).toEqual([
      { kind: "ids", posts: [] },
      { kind: "render", posts: [plain.id] },
    ]);
  });

  it("renders the whole page again once the renderings are older than the TTL", async () => {
    const ws = await createTestWorkspace();
    const { post } = await postWithEverything(ws);
    await ws.api("GET", "/api/posts");
    const seen = capturePostStatements([post.id]);
    vi.spyOn(Date, "now").mockReturnValue(Date.now() + RENDERED_POST_TTL_MS + 1);
    const res = await ws.api("GET", "/api/posts");
    expect(res.body.data).toEqual([post]);
    expect(seen).toEqual([{ kind: "render", posts: [] }]);
  });

  it("a page whose membership changed renders only the newcomer, and drops a deleted post", async () => {
    const ws = await createTestWorkspace();
    const { post: older, account } = await postWithEverything(ws);
    await ws.api("GET", "/api/posts");
    const newer = await ws.api("POST", "/api/posts", {
      content: "newer",
      platforms: [{ social_account_id: account.id, content_type: "x_post" }],
    });
    expect(newer.status, newer.text).toBe(201);
    const seen = capturePostStatements([older.id, newer.body.id]);
    const list = await ws.api("GET", "/api/posts");
    expect(Object.fromEntries(list.body.data.map((p: { id: string }) => [p.id, p]))).toEqual({
      [older.id]: older,
      [newer.body.id]: newer.body,
    });
    expect(list.body.meta.total).toBe(2);
    expect(seen).toEqual([
      { kind: "ids", posts: [] },
      { kind: "render", posts: [newer.body.id] },
    ]);
    await ws.api("DELETE", `/api/posts/${newer.body.id}`);
    const after = await ws.api("GET", "/api/posts");
    expect(after.body.data).toEqual([older]);
    expect(after.body.meta.total).toBe(1);
  });
});
