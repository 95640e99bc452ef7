import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adapterFor } from "../../../src/platforms";
import type { CommentRequest, PublishRequest, PublishResult } from "../../../src/platforms/types";
import { memoryCheckpoint, testAccount, testAdapterContext } from "../../support/adapter-context";
import { failAfterHandling } from "../../support/fake-fetch";
import { platformRejection } from "../../support/fakes/fake-kit";
import { fakeFacebookGraph, type MetaGraphFake, metaServerError, metaThrottle } from "../../support/fakes/meta";

/** Issue 20: a first comment under a Facebook Page post (`POST /{post-id}/comments`, as the Page). */

const adapter = adapterFor("facebook")!;
const PAGE = "1234567890";
const account = () => testAccount("facebook", { platformUserId: PAGE });

let fake: MetaGraphFake;
beforeEach(() => {
  fake = fakeFacebookGraph();
});
afterEach(() => fake.uninstall());

const post = (content: string): PublishRequest => ({
  postPlatformId: crypto.randomUUID(),
  contentType: "facebook_post",
  content,
  media: [],
  meta: {},
  account: account(),
});
const comment = (on: PublishResult, content: string, extra: Partial<CommentRequest> = {}): CommentRequest => ({
  key: `${crypto.randomUUID()}:c`,
  on,
  contentType: "facebook_post",
  content,
  meta: {},
  account: account(),
  ...extra,
});

describe("Facebook first comments", () => {
  it("comments under the published post as the Page and returns the comment's URL", async () => {
    const main = await adapter.publish(testAdapterContext(), post("Big news"));
    const result = await adapter.comment!(testAdapterContext(), comment(main, "Details: https://example.com/news"));
    const [stored] = fake.comments;
    expect(result).toEqual({
      platformPostId: stored!.id,
      platformUrl: `${main.platformUrl}&comment_id=${stored!.id.split("_")[1]}`,
    });
    expect(fake.comments).toEqual([
      {
        id: stored!.id,
        on: main.platformPostId,
        message: "Details: https://example.com/news",
        fromId: PAGE,
        username: "",
        at: expect.any(Number),
      },
    ]);
    const call = fake.calls.at(-1)!;
    expect(call).toMatchObject({
      method: "POST",
      path: `/v26.0/${main.platformPostId}/comments`,
      body: { message: "Details: https://example.com/news" },
    });
  });

  it("a comment whose answer was lost is found among the post's comments since the call: no duplicate", async () => {
    const main = await adapter.publish(testAdapterContext(), post("Big news"));
    // Someone else's comment with the same words is not ours.
    fake.comments.push({
      id: "x_1",
      on: main.platformPostId,
      message: "Link below",
      fromId: "999",
      username: "",
      at: Date.now(),
    });
    const checkpoint = memoryCheckpoint();
    const req = comment(main, "Link below", { checkpoint });
    failAfterHandling("POST", `/v26.0/${main.platformPostId}/comments`, { kind: "timeout" });
    expect(await platformRejection(adapter.comment!(testAdapterContext(), req))).toMatchObject({ kind: "transient" });
    expect(checkpoint.saves).toEqual([{ create_sent_at: expect.any(Number) }]);
    const ours = fake.comments[1]!;
    expect(await adapter.comment!(testAdapterContext(), req)).toEqual({
      platformPostId: ours.id,
      platformUrl: `${main.platformUrl}&comment_id=${ours.id.split("_")[1]}`,
    });
    expect(fake.comments).toHaveLength(2);
    const lookup = fake.calls.find((c) => c.method === "GET" && c.path.endsWith("/comments"))!;
    expect(lookup.query).toMatchObject({ order: "reverse_chronological", filter: "stream", limit: "25" });
  });

  it("a post that is gone makes the comment fail permanently in Graph's words", async () => {
    const gone: PublishResult = { platformPostId: `${PAGE}_999`, platformUrl: null };
    const err = await platformRejection(adapter.comment!(testAdapterContext(), comment(gone, "hello")));
    expect(err).toMatchObject({ kind: "permanent", status: 400 });
    expect(err.message).toContain(`Object with ID '${PAGE}_999' does not exist`);
    expect(fake.comments).toEqual([]);
  });

  it("classifies throttles and 5xx as transient and an expired token as auth", async () => {
    const main = await adapter.publish(testAdapterContext(), post("Big news"));
    const path = `/v26.0/${main.platformPostId}/comments`;
    fake.failNext({ path }, () => metaThrottle({ code: 32 }));
    expect(await platformRejection(adapter.comment!(testAdapterContext(), comment(main, "a")))).toMatchObject({
      kind: "transient",
    });
    fake.failNext({ path }, () => metaServerError(503));
    expect(await platformRejection(adapter.comment!(testAdapterContext(), comment(main, "a")))).toMatchObject({
      kind: "transient",
      status: 503,
    });
    fake.expiredTokens.add("access-token");
    expect(await platformRejection(adapter.comment!(testAdapterContext(), comment(main, "a")))).toMatchObject({
      kind: "auth",
    });
    expect(fake.comments).toEqual([]);
  });
});
