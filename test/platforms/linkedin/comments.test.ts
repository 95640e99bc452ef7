import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adapterFor } from "../../../src/platforms";
import type { AdapterAccount, CommentRequest, PublishResult } from "../../../src/platforms/types";
import { memoryCheckpoint, testAccount, testAdapterContext } from "../../support/adapter-context";
import { failAfterHandling } from "../../support/fake-fetch";
import { platformRejection } from "../../support/fakes/fake-kit";
import { fakeLinkedIn, type LinkedInFake, linkedInThrottle } from "../../support/fakes/linkedin";

/** Issue 20: a first comment under a LinkedIn post (Comments API, `LinkedIn-Version` header), member and Page. */

const member = adapterFor("linkedin")!;
const page = adapterFor("linkedin-page")!;
const memberAccount = () => testAccount("linkedin", { platformUserId: "abc123" });
const pageAccount = () => testAccount("linkedin-page", { platformUserId: "5515715" });

let fake: LinkedInFake;
beforeEach(() => {
  fake = fakeLinkedIn();
});
afterEach(() => fake.uninstall());

async function published(adapter = member, account: AdapterAccount = memberAccount()): Promise<PublishResult> {
  return adapter.publish(testAdapterContext(), {
    postPlatformId: crypto.randomUUID(),
    contentType: "linkedin_post",
    content: `Hiring (${crypto.randomUUID().slice(0, 6)})`,
    media: [],
    meta: {},
    account,
  });
}
const comment = (
  on: PublishResult,
  content: string,
  extra: Partial<CommentRequest> = {},
  account: AdapterAccount = memberAccount(),
): CommentRequest => ({
  key: `${crypto.randomUUID()}:c`,
  on,
  contentType: "linkedin_post",
  content,
  meta: {},
  account,
  ...extra,
});
const urlOf = (post: string, commentUrn: string) =>
  `https://www.linkedin.com/feed/update/${post}?commentUrn=${encodeURIComponent(commentUrn)}`;

describe("LinkedIn first comments", () => {
  it("a member comments under the post with the versioned Comments API; the comment's URN and URL come back", async () => {
    const main = await published();
    const result = await member.comment!(testAdapterContext(), comment(main, "Apply at https://example.com/jobs"));
    const [stored] = fake.comments;
    expect(result).toEqual({ platformPostId: stored!.urn, platformUrl: urlOf(main.platformPostId, stored!.urn) });
    expect(stored).toEqual({
      id: stored!.id,
      urn: `urn:li:comment:(${main.platformPostId},${stored!.id})`,
      on: main.platformPostId,
      actor: "urn:li:person:abc123",
      text: "Apply at https://example.com/jobs",
      at: expect.any(Number),
    });
    const call = fake.calls.at(-1)!;
    expect(call).toMatchObject({
      method: "POST",
      path: `/rest/socialActions/${encodeURIComponent(main.platformPostId)}/comments`,
      body: {
        actor: "urn:li:person:abc123",
        object: main.platformPostId,
        message: { text: "Apply at https://example.com/jobs" },
      },
      headers: { "linkedin-version": "202608", "x-restli-protocol-version": "2.0.0" },
    });
  });

  it("a Page comments as the organization", async () => {
    const main = await published(page, pageAccount());
    await page.comment!(testAdapterContext(), comment(main, "Details below", {}, pageAccount()));
    expect(fake.comments.map((c) => c.actor)).toEqual(["urn:li:organization:5515715"]);
  });

  it("a comment whose answer was lost is found among the post's comments by the same actor: no duplicate", async () => {
    const main = await published();
    const checkpoint = memoryCheckpoint();
    const req = comment(main, "Link below", { checkpoint });
    failAfterHandling("POST", `/rest/socialActions/${encodeURIComponent(main.platformPostId)}/comments`, {
      kind: "timeout",
    });
    expect(await platformRejection(member.comment!(testAdapterContext(), req))).toMatchObject({ kind: "transient" });
    expect(checkpoint.saves).toEqual([{ create_sent_at: expect.any(Number) }]);
    const [stored] = fake.comments;
    expect(await member.comment!(testAdapterContext(), req)).toEqual({
      platformPostId: stored!.urn,
      platformUrl: urlOf(main.platformPostId, stored!.urn),
    });
    expect(fake.comments).toHaveLength(1);
  });

  it("when LinkedIn will not let the app read comments, a lost comment ends as could-not-confirm", async () => {
    const main = await published();
    fake.canReadComments = false;
    const req = comment(main, "Link below", { checkpoint: memoryCheckpoint({ create_sent_at: Date.now() }) });
    expect(await platformRejection(member.comment!(testAdapterContext(), req))).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message:
        "Could not confirm whether the comment was published: the answer from LinkedIn was lost. Check LinkedIn before retrying.",
      retryAfterSeconds: undefined,
      status: undefined,
    });
    expect(fake.comments).toEqual([]);
  });

  it("refuses an over-long comment and a missing post permanently; throttle transient; expired token auth", async () => {
    const main = await published();
    expect(
      await platformRejection(member.comment!(testAdapterContext(), comment(main, "x".repeat(1251)))),
    ).toMatchObject({
      kind: "permanent",
      status: 422,
      message: expect.stringContaining("must not exceed 1250 characters"),
    });
    const gone: PublishResult = { platformPostId: "urn:li:share:1", platformUrl: null };
    expect(await platformRejection(member.comment!(testAdapterContext(), comment(gone, "hi")))).toMatchObject({
      kind: "permanent",
      status: 404,
    });
    fake.failNext(
      { path: `/rest/socialActions/${encodeURIComponent(main.platformPostId)}/comments` },
      linkedInThrottle,
    );
    expect(await platformRejection(member.comment!(testAdapterContext(), comment(main, "hi")))).toMatchObject({
      kind: "transient",
      status: 429,
    });
    fake.expiredTokens.add("access-token");
    expect(await platformRejection(member.comment!(testAdapterContext(), comment(main, "hi")))).toMatchObject({
      kind: "auth",
      status: 401,
    });
    expect(fake.comments).toEqual([]);
  });
});
