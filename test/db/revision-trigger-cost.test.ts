// fresh storage: drops the post revision triggers for one measure (restored after it), counting rows written.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { connectAccount, createLabel } from "../routes/posts-fixtures";
import { createTestWorkspace } from "../support/harness";

/**
 * Issue 28: what the 15 `posts.revision` triggers (migrations/0001_post_revisions.sql) cost a write, in the rows D1
 * reports written (`meta.rows_written`, what it bills; Server-Timing `d1rows`): the same create and the same edit
 * with and without the triggers on the post tables. docs/decisions.md records the decision this measures.
 */
const POST_TABLE_TRIGGERS = [
  "posts_revision_insert",
  "posts_revision_update",
  "post_platforms_revision_insert",
  "post_platforms_revision_update",
  "post_platforms_revision_delete",
  "post_media_revision_insert",
  "post_media_revision_update",
  "post_media_revision_delete",
  "post_labels_revision_insert",
  "post_labels_revision_update",
  "post_labels_revision_delete",
];

const rowsOf = (res: { headers: Headers }) => {
  const m = /d1rows;desc="(\d+) read, (\d+) written"/.exec(res.headers.get("Server-Timing") ?? "");
  if (!m) throw new Error("no Server-Timing d1rows entry");
  return { read: Number(m[1]), written: Number(m[2]) };
};

/** Runs `work` with the post tables' revision triggers dropped, and puts them back, as they were, after it. */
async function withoutPostTableTriggers<T>(work: () => Promise<T>): Promise<T> {
  const { results } = await env.DB.prepare(
    `SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name IN (${POST_TABLE_TRIGGERS.map(() => "?").join(", ")})`,
  )
    .bind(...POST_TABLE_TRIGGERS)
    .all<{ sql: string }>();
  expect(results).toHaveLength(POST_TABLE_TRIGGERS.length);
  await env.DB.batch(POST_TABLE_TRIGGERS.map((t) => env.DB.prepare(`DROP TRIGGER ${t}`)));
  try {
    return await work();
  } finally {
    await env.DB.batch(results.map(({ sql }) => env.DB.prepare(sql)));
  }
}

describe("the revision triggers' cost per write", () => {
  it("a create with 3 targets and 2 labels, and an edit of its content and labels", async () => {
    const ws = await createTestWorkspace();
    await ws.api("GET", "/api/workspace");
    const accounts = [];
    for (const platform of ["x", "linkedin", "facebook"]) accounts.push(await connectAccount(ws, platform));
    const labels = [await createLabel(ws, "one"), await createLabel(ws, "two")];
    const body = {
      content: "Bench create",
      platforms: accounts.map((a, i) => ({
        social_account_id: a.id,
        content_type: ["x_post", "linkedin_post", "facebook_post"][i],
      })),
      label_ids: labels.map((l) => l.id),
    };
    const measure = async () => {
      const created = await ws.api("POST", "/api/posts", body);
      expect(created.status).toBe(201);
      const edited = await ws.api("PUT", `/api/posts/${created.body.id}`, {
        content: "Bench edit",
        label_ids: [labels[1]!.id],
      });
      expect(edited.status).toBe(200);
      return { create: rowsOf(created).written, edit: rowsOf(edited).written };
    };
    const withTriggers = await measure();
    const without = await withoutPostTableTriggers(measure);
    // The create writes 26 rows (the post, 3 platform rows and 2 label links, with their index entries); the
    // triggers add one posts UPDATE per row inserted: 6 more (+23 %). The edit (the claim, 2 label links deleted and
    // 1 inserted) writes 8; the triggers add one per statement row they follow: 4 more.
    expect({ withTriggers, without }).toEqual({
      withTriggers: { create: 32, edit: 12 },
      without: { create: 26, edit: 8 },
    });
  });
});
