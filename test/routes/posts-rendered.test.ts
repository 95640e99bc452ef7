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

/** Rows D1 returned for statements that select post resources, as [id, post column] pairs. */
function captureResourceRows() {
  const seen: { id: string | null; post: unknown }[][] = [];
  const prepare = env.DB.prepare.bind(env.DB);
  vi.spyOn(env.DB, "prepare").mockImplementation((query) => {
    const stmt = prepare(query);
    if (!query.includes("AS revision")) return stmt;
    const wrap = (s: D1PreparedStatement): D1PreparedStatement =>
      new Proxy(s, {
        get(target, prop) {
          const value = Reflect.get(target, prop);
          if (prop === "bind") return (...args: unknown[]) => wrap(value.apply(target, args));
          if (prop === "all")
            return async (...args: unknown[]) => {
              const result = (await value.apply(target, args)) as D1Result<Record<string, unknown>>;
              seen.push(result.results.map((r) => ({ id: r.id as string | null, post: r.post })));
              return result;
            };
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    return wrap(stmt);
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

describe("rendered post reuse", () => {
  it("a second read of a page leaves unchanged posts to the Worker, and a change shows at once", async () => {
    const ws = await createTestWorkspace();
    const { post, label } = await postWithEverything(ws);
    const seen = captureResourceRows();

    const first = await ws.api("GET", "/api/posts");
    const second = await ws.api("GET", "/api/posts");
    expect(second.body).toEqual(first.body);
    expect(first.body.data).toEqual([post]);
    // The first read rendered the post in SQLite; the second named it at its revision and got it back unrendered.
    expect(seen.map((rows) => rows.map((r) => [r.id, typeof r.post]))).toEqual([
      [[post.id, "string"]],
      [[post.id, "object"]],
    ]);

    // A label renamed through the API: the next read renders the post again and shows the new name.
    const renamed = await ws.api("PUT", `/api/labels/${label.id}`, { name: "renamed", color: "#445566" });
    expect(renamed.status, renamed.text).toBe(200);
    const third = await ws.api("GET", "/api/posts");
    expect(third.body.data[0].labels).toEqual([renamed.body]);
    expect(seen[2]?.map((r) => typeof r.post)).toEqual(["string"]);

    // A publisher's write straight to D1 (no app code to forget a cache): the next single read shows it.
    await env.DB.prepare(
      "UPDATE post_platforms SET status = 'published', platform_url = 'https://x.test/1' WHERE post_id = ?",
    )
      .bind(post.id)
      .run();
    const detail = await ws.api("GET", `/api/posts/${post.id}`);
    expect(detail.body).toEqual({
      ...third.body.data[0],
      platforms: [{ ...third.body.data[0].platforms[0], status: "published", platform_url: "https://x.test/1" }],
    });
    const again = await ws.api("GET", `/api/posts/${post.id}`);
    expect(again.body).toEqual(detail.body);
    expect(seen.slice(3).map((rows) => rows.map((r) => typeof r.post))).toEqual([["string"], ["object"]]);
  });

  it("renders a post again once its rendering is older than the TTL", async () => {
    const ws = await createTestWorkspace();
    const { post } = await postWithEverything(ws);
    await ws.api("GET", `/api/posts/${post.id}`);
    const seen = captureResourceRows();
    const now = Date.now();
    vi.spyOn(Date, "now").mockReturnValue(now + RENDERED_POST_TTL_MS + 1);
    const res = await ws.api("GET", `/api/posts/${post.id}`);
    expect(res.body).toEqual(post);
    expect(seen.map((rows) => rows.map((r) => typeof r.post))).toEqual([["string"]]);
  });

  it("a page whose posts changed order or membership still comes back whole", async () => {
    const ws = await createTestWorkspace();
    const { post: older, account } = await postWithEverything(ws);
    await ws.api("GET", "/api/posts");
    const newer = await ws.api("POST", "/api/posts", {
      content: "newer",
      platforms: [{ social_account_id: account.id, content_type: "x_post" }],
    });
    expect(newer.status, newer.text).toBe(201);
    const seen = captureResourceRows();
    const list = await ws.api("GET", "/api/posts");
    const ids = list.body.data.map((p: { id: string }) => p.id);
    expect(ids.sort()).toEqual([older.id, newer.body.id].sort());
    expect(list.body.data.find((p: { id: string }) => p.id === older.id)).toEqual(older);
    // Only the post this isolate had not rendered was built by SQLite.
    expect(Object.fromEntries((seen[0] ?? []).map((r) => [r.id, typeof r.post]))).toEqual({
      [older.id]: "object",
      [newer.body.id]: "string",
    });
    await ws.api("DELETE", `/api/posts/${newer.body.id}`);
    expect((await ws.api("GET", "/api/posts")).body.data).toEqual([older]);
  });
});
