import { describe, expect, it } from "vitest";
import type { PublishResult } from "../../../src/platforms/types";
import { xAdapter } from "../../../src/platforms/x/adapter";
import { installFakesEachTest } from "../../publishing/platforms";
import {
  memoryCheckpoint,
  publishRequests,
  replyTo,
  storeTestMedia,
  testAccount,
  testAdapterContext,
} from "../../support/adapter-context";
import { failAfterHandling } from "../../support/fake-fetch";
import { platformRejection } from "../../support/fakes/fake-kit";

/** Issue 20: thread items and first comments as X replies (`reply.in_reply_to_tweet_id`). */

const fakes = installFakesEachTest();

const request = publishRequests("x_post", () =>
  testAccount("x", { username: "alice_x", credentials: { access_token: "x-access", refresh_token: "x-refresh" } }),
);
const url = (id: string) => `https://x.com/alice_x/status/${id}`;

describe("X replies", () => {
  it("publishes a three-post thread: each reply answers the post before, in one conversation", async () => {
    const row = crypto.randomUUID();
    const ctx = testAdapterContext();
    const main = await xAdapter.publish(ctx, request("1/3 Launch", row));
    const t1 = await xAdapter.publish(ctx, request("2/3 Details", `${row}:t1`, replyTo(main)));
    const t2 = await xAdapter.publish(ctx, request("3/3 Thanks", `${row}:t2`, replyTo(main, t1)));
    expect([main, t1, t2]).toEqual([
      { platformPostId: main.platformPostId, platformUrl: url(main.platformPostId) },
      { platformPostId: t1.platformPostId, platformUrl: url(t1.platformPostId) },
      { platformPostId: t2.platformPostId, platformUrl: url(t2.platformPostId) },
    ]);
    expect(
      [...fakes.x.tweets.values()].map((t) => ({
        id: t.id,
        text: t.text,
        in_reply_to: t.in_reply_to,
        conversation_id: t.conversation_id,
      })),
    ).toEqual([
      { id: main.platformPostId, text: "1/3 Launch", in_reply_to: null, conversation_id: main.platformPostId },
      {
        id: t1.platformPostId,
        text: "2/3 Details",
        in_reply_to: main.platformPostId,
        conversation_id: main.platformPostId,
      },
      {
        id: t2.platformPostId,
        text: "3/3 Thanks",
        in_reply_to: t1.platformPostId,
        conversation_id: main.platformPostId,
      },
    ]);
    expect(fakes.x.count("POST /2/tweets")).toBe(3);
  });

  it("a thread item uploads and attaches its own image", async () => {
    const row = crypto.randomUUID();
    const main = await xAdapter.publish(testAdapterContext(), request("main", row));
    const image = await storeTestMedia("image");
    const item = await xAdapter.publish(
      testAdapterContext(),
      request("with image", `${row}:t1`, replyTo(main), [image]),
    );
    expect(fakes.x.tweets.get(item.platformPostId)).toMatchObject({
      in_reply_to: main.platformPostId,
      media_ids: [expect.any(String)],
    });
  });

  it("a reply whose create answer was lost is found among the account's replies to the same parent", async () => {
    const row = crypto.randomUUID();
    const main = await xAdapter.publish(testAdapterContext(), request("main post", row));
    // An older reply with the same text under another post must not be taken for ours.
    const other = await xAdapter.publish(testAdapterContext(), request("other post", crypto.randomUUID()));
    const checkpoint = memoryCheckpoint();
    const item = request("Read more https://example.com/a", `${row}:c`, { ...replyTo(main), checkpoint });
    failAfterHandling("POST", "/2/tweets", { kind: "timeout" });
    expect(await platformRejection(xAdapter.publish(testAdapterContext(), item))).toMatchObject({
      kind: "transient",
      message: "X timed out.",
    });
    expect(checkpoint.saves).toEqual([{ create_sent_at: expect.any(Number) }]);
    const [, , lost] = [...fakes.x.tweets.values()];
    lost!.text = "Read more https://t.co/Zz9";
    fakes.x.tweets.set("1", { ...lost!, id: "1", in_reply_to: other.platformPostId });

    expect(await xAdapter.publish(testAdapterContext(), item)).toEqual({
      platformPostId: lost!.id,
      platformUrl: url(lost!.id),
    });
    expect(fakes.x.count("POST /2/tweets")).toBe(3);
    const lookup = fakes.x.calls.find((c) => c.path === "/2/users/1234567890/tweets")!;
    expect(Object.fromEntries(lookup.url.searchParams)).toMatchObject({
      max_results: "5",
      exclude: "retweets",
      "tweet.fields": "created_at,referenced_tweets",
    });
  });

  it("a lost reply that X will not let the app look for fails as could-not-confirm, never posting twice", async () => {
    const row = crypto.randomUUID();
    const main = await xAdapter.publish(testAdapterContext(), request("main post", row));
    const checkpoint = memoryCheckpoint({ create_sent_at: Date.now() - 1000 });
    fakes.x.readAccess = false;
    expect(
      await platformRejection(
        xAdapter.publish(testAdapterContext(), request("the reply", `${row}:t1`, { ...replyTo(main), checkpoint })),
      ),
    ).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message:
        "Could not confirm whether the reply was published: the answer from X was lost. Check X before retrying.",
      retryAfterSeconds: undefined,
      status: undefined,
    });
    expect(fakes.x.count("POST /2/tweets")).toBe(1);
  });

  it("a reply to a deleted post is refused permanently in X's words", async () => {
    const gone: PublishResult = { platformPostId: "1799999999999999999", platformUrl: null };
    expect(
      await platformRejection(xAdapter.publish(testAdapterContext(), request("orphan", "row:t1", replyTo(gone)))),
    ).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message: "X refused the post: You attempted to reply to a Tweet that is deleted or not visible to you.",
      retryAfterSeconds: undefined,
      status: 403,
    });
    expect(fakes.x.tweets.size).toBe(0);
  });

  it("classifies a throttled reply as transient until x-rate-limit-reset and a rejected token as auth", async () => {
    const row = crypto.randomUUID();
    const main = await xAdapter.publish(testAdapterContext(), request("main post", row));
    const item = request("reply", `${row}:t1`, replyTo(main));
    fakes.x.inject("POST /2/tweets", fakes.x.rateLimited(600));
    const throttled = await platformRejection(xAdapter.publish(testAdapterContext(), item));
    expect(throttled).toMatchObject({ kind: "transient", status: 429, message: "X rate limit exceeded." });
    expect(throttled.retryAfterSeconds).toBeGreaterThanOrEqual(599);
    fakes.x.accessTokens.clear();
    expect(await platformRejection(xAdapter.publish(testAdapterContext(), item))).toMatchObject({
      kind: "auth",
      status: 401,
    });
    expect(fakes.x.tweets.size).toBe(1);
  });
});
