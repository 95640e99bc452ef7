import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adapterFor } from "../../../src/platforms";
import type { CommentRequest, PublishRequest, PublishResult } from "../../../src/platforms/types";
import { memoryCheckpoint, storeTestMedia, testAccount, testAdapterContext } from "../../support/adapter-context";
import { failAfterHandling } from "../../support/fake-fetch";
import { platformRejection } from "../../support/fakes/fake-kit";
import { MetaGraphFake, metaThrottle } from "../../support/fakes/meta";

/** Issue 20: a first comment under Instagram media (`POST /{ig-media-id}/comments`), both login flavours. */

describe.each([
  { platform: "instagram" as const, origin: "https://instagram.fake" },
  { platform: "instagram-facebook" as const, origin: "https://facebook.fake" },
])("$platform first comments", ({ platform, origin }) => {
  const adapter = adapterFor(platform)!;
  const IG_USER = "17841400000000001";
  const account = () => testAccount(platform, { platformUserId: IG_USER, username: "tester" });
  let fake: MetaGraphFake;
  beforeEach(() => {
    fake = new MetaGraphFake(origin);
  });
  afterEach(() => fake.uninstall());

  const publishImage = async (contentType = "instagram_post"): Promise<PublishResult> => {
    const req: PublishRequest = {
      postPlatformId: crypto.randomUUID(),
      contentType,
      content: "Sunset #travel",
      media: [await storeTestMedia("image")],
      meta: {},
      account: account(),
    };
    return adapter.publish(testAdapterContext(), req);
  };
  const comment = (on: PublishResult, content: string, extra: Partial<CommentRequest> = {}): CommentRequest => ({
    key: `${crypto.randomUUID()}:c`,
    on,
    contentType: "instagram_post",
    content,
    meta: {},
    account: account(),
    ...extra,
  });

  it("comments under the published media as the account; the result points at the post", async () => {
    const main = await publishImage();
    const result = await adapter.comment!(testAdapterContext(), comment(main, "Shop: example.com/sunset"));
    const [stored] = fake.comments;
    expect(result).toEqual({ platformPostId: stored!.id, platformUrl: main.platformUrl });
    expect(fake.comments).toEqual([
      {
        id: stored!.id,
        on: main.platformPostId,
        message: "Shop: example.com/sunset",
        fromId: IG_USER,
        username: "tester",
        at: expect.any(Number),
      },
    ]);
    expect(fake.calls.at(-1)).toMatchObject({
      method: "POST",
      path: `/v26.0/${main.platformPostId}/comments`,
      body: { message: "Shop: example.com/sunset" },
    });
  });

  it("a comment whose answer was lost is found among the media's comments: no duplicate", async () => {
    const main = await publishImage();
    fake.comments.push({
      id: "1",
      on: main.platformPostId,
      message: "Link in bio",
      fromId: "other",
      username: "someone_else",
      at: Date.now(),
    });
    const checkpoint = memoryCheckpoint();
    const req = comment(main, "Link in bio", { checkpoint });
    failAfterHandling("POST", `/v26.0/${main.platformPostId}/comments`, { kind: "timeout" });
    expect(await platformRejection(adapter.comment!(testAdapterContext(), req))).toMatchObject({ kind: "transient" });
    const ours = fake.comments[1]!;
    expect(await adapter.comment!(testAdapterContext(), req)).toEqual({
      platformPostId: ours.id,
      platformUrl: main.platformUrl,
    });
    expect(fake.comments).toHaveLength(2);
  });

  it("a story takes no comment: permanent, in Instagram's words", async () => {
    const story = await publishImage("instagram_story");
    const err = await platformRejection(adapter.comment!(testAdapterContext(), comment(story, "hi")));
    expect(err).toMatchObject({ kind: "permanent", status: 400 });
    expect(err.message).toContain("Comments are not supported on this media.");
    expect(fake.comments).toEqual([]);
  });

  it("classifies a throttle as transient (regain time) and an expired token as auth", async () => {
    const main = await publishImage();
    fake.failNext({ path: `/v26.0/${main.platformPostId}/comments` }, () =>
      metaThrottle({ code: 80002, regainMinutes: 5, businessId: IG_USER }),
    );
    expect(await platformRejection(adapter.comment!(testAdapterContext(), comment(main, "a")))).toMatchObject({
      kind: "transient",
      retryAfterSeconds: 300,
    });
    fake.expiredTokens.add("access-token");
    expect(await platformRejection(adapter.comment!(testAdapterContext(), comment(main, "a")))).toMatchObject({
      kind: "auth",
    });
    expect(fake.comments).toEqual([]);
  });
});
