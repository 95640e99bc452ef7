import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DAY, insertAccount, isoIn } from "../routes/posts-fixtures";
import { createTestWorkspace } from "../support/harness";
import { type Fakes, installFakes, seedBlueskyAccount } from "./platforms";
import { deliver, readRow, seedPost } from "./support";

/**
 * Issue 29: a Bluesky post's text is capped at 300 graphemes AND 3,000 UTF-8 bytes (`app.bsky.feed.post` lexicon,
 * `maxGraphemes` / `maxLength`); only the first was checked, so a PDS refused at publish what the API had scheduled
 * (`string too big (maximum 3000, got 3761) at $.record.text`). Both are checked now, for the post, each thread item
 * and the first comment, at schedule time (422 naming the field) and again at publish.
 */

/** 👨‍👩‍👧‍👦: one grapheme, 25 UTF-8 bytes (four 4-byte people joined by three 3-byte ZWJ). */
const FAMILY = "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}";
const families = (n: number) => FAMILY.repeat(n);

let fakes: Fakes;
beforeEach(() => {
  fakes = installFakes();
});
afterEach(() => fakes.uninstall());

describe("Bluesky's 3,000-byte cap", () => {
  it("refuses at schedule time a post, a thread item and a first comment over 3,000 bytes, naming each", async () => {
    const ws = await createTestWorkspace();
    const bsky = await insertAccount(ws, "bluesky");
    const created = await ws.api("POST", "/api/posts", {
      // 151 graphemes (under 300), 3,775 bytes.
      content: families(151),
      platforms: [
        {
          social_account_id: bsky,
          content_type: "bluesky_post",
          thread: [{ content: "fine" }, { content: families(121) }],
          first_comment: families(200),
        },
      ],
    });
    expect(created.status, created.text).toBe(201);
    const res = await ws.api("PUT", `/api/posts/${created.body.id}`, {
      status: "scheduled",
      scheduled_at: isoIn(DAY),
    });
    expect([res.status, res.body]).toEqual([
      422,
      {
        message:
          "Bluesky: 3,775 bytes exceed Bluesky's 3,000-byte limit (UTF-8; too long by 775 bytes). (and 2 more errors)",
        errors: {
          content: ["Bluesky: 3,775 bytes exceed Bluesky's 3,000-byte limit (UTF-8; too long by 775 bytes)."],
          "platforms.0.thread.1.content": [
            "Thread item 2: Bluesky: 3,025 bytes exceed Bluesky's 3,000-byte limit (UTF-8; too long by 25 bytes).",
          ],
          "platforms.0.first_comment": [
            "First comment: Bluesky: 5,000 bytes exceed Bluesky's 3,000-byte limit (UTF-8; too long by 2,000 bytes).",
          ],
        },
      },
    ]);

    // Exactly 3,000 bytes (120 graphemes) everywhere: it schedules.
    const fixed = await ws.api("PUT", `/api/posts/${created.body.id}`, {
      content: families(120),
      status: "scheduled",
      scheduled_at: isoIn(DAY),
      platforms: [
        {
          id: created.body.platforms[0].id,
          thread: [{ content: "fine" }, { content: families(120) }],
          first_comment: families(120),
        },
      ],
    });
    expect([fixed.status, fixed.body.status]).toEqual([200, "scheduled"]);
  });

  it("a post, thread item and comment of exactly 3,000 bytes publish; the network holds them whole", async () => {
    const ws = await createTestWorkspace();
    const account = await seedBlueskyAccount(ws, fakes.bluesky);
    const post = await seedPost(ws, {
      content: families(120),
      rows: [{ accountId: account, platform: "bluesky", contentType: "bluesky_post" }],
    });
    // 100 families (2,500 bytes) + 166 × 日 (3 bytes) + "ok" = 3,000 bytes in 268 graphemes.
    const mixed = `${families(100)}${"日".repeat(166)}ok`;
    expect(new TextEncoder().encode(mixed).byteLength).toBe(3000);
    await env.DB.prepare("UPDATE post_platforms SET thread = ?, first_comment = ? WHERE id = ?")
      .bind(JSON.stringify([{ content: mixed, media: [] }]), families(120), post.rowIds[0]!)
      .run();
    expect((await deliver(post.messages)).explicitAcks).toEqual(["msg-0"]);
    expect(await readRow(post.rowIds[0]!)).toMatchObject({ status: "published", error_message: null });
    expect([...fakes.bluesky.records.values()].map((r) => r.value.text)).toEqual([families(120), mixed, families(120)]);
  });

  it("a row stored over the cap fails at publish with the rule, and nothing reaches the network", async () => {
    const ws = await createTestWorkspace();
    const account = await seedBlueskyAccount(ws, fakes.bluesky);
    const post = await seedPost(ws, {
      content: families(151),
      rows: [{ accountId: account, platform: "bluesky", contentType: "bluesky_post" }],
    });
    await deliver(post.messages);
    expect(await readRow(post.rowIds[0]!)).toMatchObject({
      status: "failed",
      error_message: "Content exceeds Bluesky's 3,000-byte limit (3,775 bytes as UTF-8).",
    });
    expect(fakes.bluesky.records.size).toBe(0);
  });
});
