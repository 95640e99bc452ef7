import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { MASTODON } from "../support/fakes/mastodon";
import type { TestWorkspace } from "../support/harness";

/**
 * What the Mastodon instance-limit tests share (test/publishing/mastodon-*.test.ts, test/connect/mastodon-*):
 * connecting an account with a token (which reads GET /api/v2/instance), reading the account's stored meta, and
 * creating or scheduling a post for one Mastodon row.
 */

export const MB = 1024 * 1024;

/** POST /api/social-accounts with a token for alice on the fake instance (again = a reconnect). */
export async function connectMastodon(ws: TestWorkspace): Promise<string> {
  const res = await ws.api("POST", "/api/social-accounts", {
    platform: "mastodon",
    display_name: "Alice on Mastodon",
    username: "alice",
    credentials: { access_token: "masto-token" },
    meta: { instance: MASTODON },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

export const accountMeta = async (id: string) =>
  JSON.parse(
    (await env.DB.prepare("SELECT meta FROM social_accounts WHERE id = ?").bind(id).first<{ meta: string }>())!.meta,
  );

/** A draft post with one enabled Mastodon row; returns its id. */
export async function createMastodonPost(
  ws: TestWorkspace,
  accountId: string,
  body: { content?: string; mediaIds?: string[] } = {},
): Promise<string> {
  const created = await ws.api("POST", "/api/posts", {
    content: body.content ?? "Clip",
    platforms: [{ social_account_id: accountId, content_type: "mastodon_post" }],
    ...(body.mediaIds ? { media: body.mediaIds.map((id) => ({ id })) } : {}),
  });
  expect(created.status).toBe(201);
  return created.body.id;
}

/** Creates the post and answers `PUT status=scheduled` an hour ahead, with the post's id. */
export async function scheduleMastodonPost(
  ws: TestWorkspace,
  accountId: string,
  body: { content?: string; mediaIds?: string[] } = {},
) {
  const postId = await createMastodonPost(ws, accountId, body);
  const res = await ws.api("PUT", `/api/posts/${postId}`, {
    status: "scheduled",
    scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
  });
  return Object.assign(res, { postId });
}
