import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mastodonAdapter } from "../../../src/platforms/mastodon/adapter";
import type { PublishRequest, PublishResult } from "../../../src/platforms/types";
import { type Fakes, installFakes } from "../../publishing/platforms";
import { storeTestMedia, testAccount, testAdapterContext } from "../../support/adapter-context";
import { failAfterHandling } from "../../support/fake-fetch";
import { platformRejection } from "../../support/fakes/fake-kit";
import { MASTODON } from "../../support/fakes/mastodon";

/** Issue 20: thread items and first comments as Mastodon replies (`in_reply_to_id`, an Idempotency-Key per item). */

let fakes: Fakes;
beforeEach(() => {
  fakes = installFakes();
});
afterEach(() => fakes.uninstall());

const request = (
  content: string,
  postPlatformId: string,
  extra: Partial<PublishRequest> = {},
  media: PublishRequest["media"] = [],
): PublishRequest => ({
  postPlatformId,
  contentType: "mastodon_post",
  content,
  media,
  meta: {},
  account: testAccount("mastodon", {
    username: "alice",
    meta: { instance: MASTODON },
    credentials: { access_token: "masto-token" },
  }),
  ...extra,
});

const statusUrl = (r: PublishResult) => `${MASTODON}/@alice/${r.platformPostId}`;

describe("Mastodon replies", () => {
  it("publishes a three-status thread, each answering the one before, keyed per item", async () => {
    const row = crypto.randomUUID();
    const ctx = testAdapterContext();
    const main = await mastodonAdapter.publish(ctx, request("1/3 hello", row));
    const t1 = await mastodonAdapter.publish(
      ctx,
      request("2/3 more", `${row}:t1`, { replyTo: { root: main, parent: main } }),
    );
    const t2 = await mastodonAdapter.publish(
      ctx,
      request("3/3 end", `${row}:t2`, { replyTo: { root: main, parent: t1 } }),
    );
    for (const r of [main, t1, t2]) expect(r).toEqual({ platformPostId: r.platformPostId, platformUrl: statusUrl(r) });
    expect(
      [...fakes.mastodon.statuses.values()].map((s) => ({ id: s.id, text: s.text, in_reply_to_id: s.in_reply_to_id })),
    ).toEqual([
      { id: main.platformPostId, text: "1/3 hello", in_reply_to_id: null },
      { id: t1.platformPostId, text: "2/3 more", in_reply_to_id: main.platformPostId },
      { id: t2.platformPostId, text: "3/3 end", in_reply_to_id: t1.platformPostId },
    ]);
    const keys = fakes.mastodon.calls
      .filter((c) => c.path === "/api/v1/statuses")
      .map((c) => c.headers.get("idempotency-key"));
    expect(keys).toEqual([row, `${row}:t1`, `${row}:t2`]);
  });

  it("a thread item carries its own media", async () => {
    const row = crypto.randomUUID();
    const main = await mastodonAdapter.publish(testAdapterContext(), request("main", row));
    const image = await storeTestMedia("image");
    const item = await mastodonAdapter.publish(
      testAdapterContext(),
      request("picture", `${row}:t1`, { replyTo: { root: main, parent: main } }, [image]),
    );
    expect(fakes.mastodon.statuses.get(item.platformPostId)).toMatchObject({
      in_reply_to_id: main.platformPostId,
      media_ids: [expect.any(String)],
    });
  });

  it("a reply whose answer was lost returns the same status on retry (Idempotency-Key): no duplicate", async () => {
    const row = crypto.randomUUID();
    const main = await mastodonAdapter.publish(testAdapterContext(), request("main", row));
    const comment = request("first comment", `${row}:c`, { replyTo: { root: main, parent: main } });
    failAfterHandling("POST", "/api/v1/statuses", { kind: "timeout" });
    expect(await platformRejection(mastodonAdapter.publish(testAdapterContext(), comment))).toMatchObject({
      kind: "transient",
    });
    expect(fakes.mastodon.statuses.size).toBe(2);
    const retried = await mastodonAdapter.publish(testAdapterContext(), comment);
    expect(fakes.mastodon.statuses.size).toBe(2);
    expect(fakes.mastodon.statuses.get(retried.platformPostId)).toMatchObject({
      text: "first comment",
      in_reply_to_id: main.platformPostId,
    });
    expect(fakes.mastodon.statuses.get(main.platformPostId)!.replies_count).toBe(1);
  });

  it("a reply to a status that is gone fails permanently with Mastodon's reason", async () => {
    const gone: PublishResult = { platformPostId: "999", platformUrl: null };
    expect(
      await platformRejection(
        mastodonAdapter.publish(
          testAdapterContext(),
          request("orphan", "row:t1", { replyTo: { root: gone, parent: gone } }),
        ),
      ),
    ).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message: "Mastodon refused the post: The post you are trying to reply to does not appear to exist.",
      retryAfterSeconds: undefined,
      status: 404,
    });
    expect(fakes.mastodon.statuses.size).toBe(0);
  });

  it("classifies a throttled reply as transient (until X-RateLimit-Reset) and a revoked token as auth", async () => {
    const row = crypto.randomUUID();
    const main = await mastodonAdapter.publish(testAdapterContext(), request("main", row));
    const item = request("item", `${row}:t1`, { replyTo: { root: main, parent: main } });
    fakes.mastodon.inject("POST /api/v1/statuses", fakes.mastodon.rateLimited(120));
    const throttled = await platformRejection(mastodonAdapter.publish(testAdapterContext(), item));
    expect(throttled).toMatchObject({ kind: "transient", status: 429, message: "Mastodon rate limit exceeded." });
    expect(throttled.retryAfterSeconds).toBeGreaterThanOrEqual(119);
    fakes.mastodon.tokens.clear();
    expect(await platformRejection(mastodonAdapter.publish(testAdapterContext(), item))).toMatchObject({
      kind: "auth",
      status: 401,
    });
    expect(fakes.mastodon.statuses.size).toBe(1);
  });
});
