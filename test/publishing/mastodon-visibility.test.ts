import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { insertAccount } from "../routes/posts-fixtures";
import { createTestWorkspace } from "../support/harness";
import { type Fakes, installFakes, seedMastodonAccount } from "./platforms";
import { deliver, seedPost } from "./support";

/**
 * Issue 29: a Mastodon row's `meta.visibility` (public, unlisted, private, direct) is the visibility of its status,
 * of each thread item and of its first comment (docs.joinmastodon.org/methods/statuses/#create, `visibility`). Before,
 * every status was sent `public`: a followers-only post had public replies under it.
 */

let fakes: Fakes;
beforeEach(() => {
  fakes = installFakes();
});
afterEach(() => fakes.uninstall());

describe("Mastodon visibility", () => {
  it.each(["private", "unlisted", "direct"])(
    "a %s row posts its status, thread items and first comment with that visibility",
    async (visibility) => {
      const ws = await createTestWorkspace();
      const account = await seedMastodonAccount(ws);
      const post = await seedPost(ws, {
        content: "Main status",
        rows: [{ accountId: account, platform: "mastodon", contentType: "mastodon_post", meta: { visibility } }],
      });
      await env.DB.prepare("UPDATE post_platforms SET thread = ?, first_comment = ? WHERE id = ?")
        .bind(
          JSON.stringify([
            { content: "Item one", media: [] },
            { content: "Item two", media: [] },
          ]),
          "The comment",
          post.rowIds[0]!,
        )
        .run();
      expect((await deliver(post.messages)).explicitAcks).toEqual(["msg-0"]);
      expect([...fakes.mastodon.statuses.values()].map((s) => [s.text, s.visibility])).toEqual([
        ["Main status", visibility],
        ["Item one", visibility],
        ["Item two", visibility],
        ["The comment", visibility],
      ]);
    },
  );

  it("without meta.visibility every status stays public", async () => {
    const ws = await createTestWorkspace();
    const account = await seedMastodonAccount(ws);
    const post = await seedPost(ws, {
      content: "Main status",
      rows: [{ accountId: account, platform: "mastodon", contentType: "mastodon_post" }],
    });
    await env.DB.prepare("UPDATE post_platforms SET first_comment = ? WHERE id = ?")
      .bind("The comment", post.rowIds[0]!)
      .run();
    await deliver(post.messages);
    expect([...fakes.mastodon.statuses.values()].map((s) => s.visibility)).toEqual(["public", "public"]);
  });

  it("an unknown visibility is refused when the post is written (422 naming the field)", async () => {
    const ws = await createTestWorkspace();
    const acc = await insertAccount(ws, "mastodon");
    const created = await ws.api("POST", "/api/posts", {
      content: "Hello",
      platforms: [{ social_account_id: acc, content_type: "mastodon_post" }],
    });
    const rowId = created.body.platforms[0].id;
    const put = (visibility: string) =>
      ws.api("PUT", `/api/posts/${created.body.id}`, { platforms: [{ id: rowId, meta: { visibility } }] });
    const res = await put("followers");
    const message = "The platforms.0.meta.visibility field must be one of: public, unlisted, private, direct.";
    expect([res.status, res.body]).toEqual([422, { message, errors: { "platforms.0.meta.visibility": [message] } }]);
    const ok = await put("unlisted");
    expect([ok.status, ok.body.platforms[0].meta]).toEqual([200, { visibility: "unlisted" }]);
  });
});
