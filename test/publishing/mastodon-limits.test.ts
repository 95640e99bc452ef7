import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MASTODON } from "../support/fakes/mastodon";
import type { TestWorkspace } from "../support/harness";
import { accountMeta, connectMastodon, scheduleMastodonPost } from "./mastodon-support";
import { installFakesEachTest } from "./platforms";
import { createTestWorkspace, deliver, readRow, seedMedia, seedPost } from "./support";

const fakes = installFakesEachTest();
// Tests that fake Date (to age the stored limits) get real timers back.
afterEach(() => vi.useRealTimers());

const schedule = (ws: TestWorkspace, accountId: string, content: string) =>
  scheduleMastodonPost(ws, accountId, { content });

describe("Mastodon: the instance's character limit", () => {
  it("is read when the account connects and used when scheduling (graphemes, URLs as the instance says)", async () => {
    fakes.mastodon.maxCharacters = 1000;
    fakes.mastodon.charactersReservedPerUrl = 30;
    const ws = await createTestWorkspace();
    const id = await connectMastodon(ws);
    expect(await accountMeta(id)).toEqual({
      instance: MASTODON,
      max_characters: 1000,
      characters_reserved_per_url: 30,
      max_media_attachments: 4,
      image_size_limit: 16 * 1024 * 1024,
      image_matrix_limit: 33_177_600,
      video_size_limit: 99 * 1024 * 1024,
      video_matrix_limit: 8_294_400,
      description_limit: 1500,
      instance_checked_at: expect.any(Number),
    });

    // 950 emoji with skin tone (1,900 code points) are 950 graphemes: fits this instance.
    expect((await schedule(ws, id, "👍🏽".repeat(950))).status).toBe(200);
    const tooLong = await schedule(ws, id, `${"a".repeat(980)} https://example.com/${"p".repeat(40)}`);
    expect([tooLong.status, tooLong.body]).toEqual([
      422,
      {
        message: "Mastodon: too long by 11 characters (max 1000).",
        errors: { content: ["Mastodon: too long by 11 characters (max 1000)."] },
      },
    ]);
    // The catalog keeps the contract's 500 (GET /api/content-types).
    const types = await ws.api("GET", "/api/content-types");
    expect(types.body.platforms.find((p: { platform: string }) => p.platform === "mastodon").max_content_length).toBe(
      500,
    );
  });

  it("an instance that cannot be read leaves the default 500 and does not block the connection", async () => {
    fakes.mastodon.inject("GET /api/v2/instance", fakes.mastodon.unavailable(503));
    const ws = await createTestWorkspace();
    const id = await connectMastodon(ws);
    expect(await accountMeta(id)).toEqual({ instance: MASTODON });
    const res = await schedule(ws, id, "x".repeat(501));
    expect([res.status, res.body.errors]).toEqual([422, { content: ["Mastodon: too long by 1 character (max 500)."] }]);
  });

  it("is kept current: a day later, publishing reads the instance again and counts against the new limit", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.now();
    vi.setSystemTime(t0);
    fakes.mastodon.maxCharacters = 1000;
    const ws = await createTestWorkspace();
    const id = await connectMastodon(ws);
    const text = "y".repeat(700);

    const first = await seedPost(ws, {
      content: text,
      rows: [{ accountId: id, platform: "mastodon", contentType: "mastodon_post" }],
    });
    await deliver(first.messages);
    expect((await readRow(first.rowIds[0]!))!.status).toBe("published");
    expect(fakes.mastodon.count("GET /api/v2/instance")).toBe(1);

    // The instance lowers its limit; within a day the stored one is used, after a day it is read again.
    fakes.mastodon.maxCharacters = 600;
    vi.setSystemTime(t0 + 25 * 3_600_000);
    const second = await seedPost(ws, {
      content: text,
      rows: [{ accountId: id, platform: "mastodon", contentType: "mastodon_post" }],
    });
    await deliver(second.messages);
    expect(await readRow(second.rowIds[0]!)).toMatchObject({
      status: "failed",
      error_message: "Content exceeds Mastodon limit of 600 characters (700 provided).",
    });
    expect(fakes.mastodon.count("GET /api/v2/instance")).toBe(2);
    expect(await accountMeta(id)).toMatchObject({ max_characters: 600, instance_checked_at: t0 + 25 * 3_600_000 });
    expect(fakes.mastodon.statuses.size).toBe(1);
  });
});

describe("Mastodon: the instance's description_limit for alt text (issue 29)", () => {
  /** A stored image with this alt text. */
  async function imageWithAlt(ws: TestWorkspace, alt: string) {
    const id = await seedMedia(ws, "image");
    await env.DB.prepare("UPDATE media SET alt = ? WHERE id = ?").bind(alt, id).run();
    return id;
  }

  it("is read at connect (configuration.media_attachments.description_limit) and checked when scheduling", async () => {
    fakes.mastodon.descriptionLimit = 1000;
    const ws = await createTestWorkspace();
    const id = await connectMastodon(ws);
    expect(await accountMeta(id)).toMatchObject({ description_limit: 1000 });

    const over = await scheduleMastodonPost(ws, id, { mediaIds: [await imageWithAlt(ws, "a".repeat(1001))] });
    const message = "Mastodon: the alt text of media item 1 is too long by 1 character (max 1,000).";
    expect([over.status, over.body]).toEqual([422, { message, errors: { media: [message] } }]);
    const at = await scheduleMastodonPost(ws, id, { mediaIds: [await imageWithAlt(ws, "a".repeat(1000))] });
    expect(at.status, at.text).toBe(200);
  });
});
