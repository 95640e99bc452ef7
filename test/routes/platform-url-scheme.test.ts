// Issue 35 (review 4, Low): a tenant picks its Mastodon server, and so what that server answers as a status's `url`.
// Only an http(s) link is shown as `platform_url` (src/lib/web-link.ts); the dashboard renders none other.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { webLink } from "../../src/lib/web-link";
import { insertPost } from "../media/fixtures";
import { call, createTestWorkspace } from "../support/harness";

describe("platform_url is an http(s) link or null (issue 35)", () => {
  it("a stored javascript:, data: or unparsable URL is answered as null; http(s) links as they are", async () => {
    const ws = await createTestWorkspace();
    const urls = [
      "javascript:alert(document.cookie)",
      "data:text/html,<script>alert(1)</script>",
      "not a url",
      "https://social.example/@me/1",
      "http://social.example/@me/2",
    ];
    const { postId, rowIds } = await insertPost(
      ws,
      urls.map(() => ({ platform: "mastodon", contentType: "mastodon_post" })),
    );
    await env.DB.batch(
      rowIds.map((id, i) =>
        env.DB.prepare("UPDATE post_platforms SET status = 'published', platform_url = ? WHERE id = ?").bind(
          urls[i],
          id,
        ),
      ),
    );
    const res = await call("GET", `/api/posts/${postId}`, { key: ws.key });
    expect(res.status).toBe(200);
    const byId = new Map(
      res.body.platforms.map((p: { id: string; platform_url: string | null }) => [p.id, p.platform_url]),
    );
    expect(rowIds.map((id) => byId.get(id))).toEqual([
      null,
      null,
      null,
      "https://social.example/@me/1",
      "http://social.example/@me/2",
    ]);
  });

  it("webLink keeps http and https only", () => {
    expect(
      ["https://a.example/x", "HTTP://a.example/", "ftp://a.example/", "vbscript:x", "", null].map(webLink),
    ).toEqual(["https://a.example/x", "HTTP://a.example/", null, null, null, null]);
  });
});
