// fresh storage: our OAuth app is registered once per Mastodon instance and kept in D1; this file fakes its own.
import { afterEach, describe, expect, it } from "vitest";
import { accountMeta, MB, scheduleMastodonPost } from "../publishing/mastodon-support";
import { createTestWorkspace } from "../publishing/support";
import { FakeMastodon, MASTODON } from "../support/fakes/mastodon";
import type { TestWorkspace } from "../support/harness";
import { connectThroughApi } from "../support/oauth/browser";
import { fakeMastodonOAuth } from "../support/oauth/fake-oauth";
import { installOAuthNetwork } from "../support/oauth/install";

/**
 * Issue 17: a Mastodon account connected through OAuth knows its instance's status limits (GET /api/v2/instance →
 * configuration.statuses) from the start, exactly as one connected with a token does (test/publishing/
 * mastodon-limits.test.ts); an instance that does not answer leaves the catalog's 500 / 23.
 */

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const off of cleanups.splice(0).reverse()) off();
});

// One OAuth network for the file: our app's registration on the instance is cached in D1 across the tests.
const net = fakeMastodonOAuth({ instance: MASTODON });
net.oauth.nextAccessToken = () => "masto-connected-token";

async function connectWithOAuth(ws: TestWorkspace, masto: FakeMastodon): Promise<string> {
  cleanups.push(masto.install());
  masto.tokens.add("masto-connected-token");
  cleanups.push(installOAuthNetwork(net));
  const { callback } = await connectThroughApi(ws, { platform: "mastodon", instance: "mastodon.fake" });
  expect(callback.status).toBe(200);
  const listed = await ws.api("GET", "/api/social-accounts");
  expect(listed.body.map((a: { platform: string }) => a.platform)).toEqual(["mastodon"]);
  return listed.body[0].id;
}

const schedule = (ws: TestWorkspace, accountId: string, content: string) =>
  scheduleMastodonPost(ws, accountId, { content });

describe("Mastodon OAuth connect: the instance's limits", () => {
  it("are read at connect and used when scheduling", async () => {
    const masto = new FakeMastodon();
    masto.maxCharacters = 1000;
    masto.charactersReservedPerUrl = 30;
    masto.imageSizeLimit = 2 * MB;
    masto.videoSizeLimit = 5 * MB;
    const ws = await createTestWorkspace();
    const id = await connectWithOAuth(ws, masto);
    expect(await accountMeta(id)).toEqual({
      instance: MASTODON,
      max_characters: 1000,
      characters_reserved_per_url: 30,
      max_media_attachments: 4,
      image_size_limit: 2 * MB,
      image_matrix_limit: 33_177_600,
      video_size_limit: 5 * MB,
      video_matrix_limit: 8_294_400,
      description_limit: 1500,
      instance_checked_at: expect.any(Number),
    });
    expect(masto.count("GET /api/v2/instance")).toBe(1);
    // 900 characters: over the catalog's 500, within this instance's 1000.
    expect((await schedule(ws, id, "a".repeat(900))).status).toBe(200);
    const over = await schedule(ws, id, "a".repeat(1001));
    expect(over.status).toBe(422);
  });

  it("an instance that does not say leaves the defaults, and the connect still succeeds", async () => {
    const masto = new FakeMastodon();
    masto.inject("GET /api/v2/instance", () => new Response("upstream error", { status: 502 }));
    const ws = await createTestWorkspace();
    const id = await connectWithOAuth(ws, masto);
    expect(await accountMeta(id)).toEqual({ instance: MASTODON });
    expect((await schedule(ws, id, "a".repeat(501))).status).toBe(422);
  });
});
