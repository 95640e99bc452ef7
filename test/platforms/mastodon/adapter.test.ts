import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mastodonAdapter } from "../../../src/platforms/mastodon/adapter";
import type { PublishRequest } from "../../../src/platforms/types";
import { type Fakes, installFakes, seedMastodonAccount } from "../../publishing/platforms";
import {
  createTestWorkspace,
  deliver,
  deliverUntilSettled,
  readAccount,
  readPost,
  readRow,
  seedPost,
} from "../../publishing/support";
import { storeTestMedia, testAccount, testAdapterContext } from "../../support/adapter-context";
import { MASTODON } from "../../support/fakes/mastodon";

let fakes: Fakes;
beforeEach(() => {
  fakes = installFakes();
});
afterEach(() => fakes.uninstall());

const request = (
  content: string,
  media: PublishRequest["media"] = [],
  postPlatformId = crypto.randomUUID(),
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
});

describe("Mastodon adapter against the fake", () => {
  it("posts a status with the row id as Idempotency-Key", async () => {
    const req = request("Hello fediverse");
    const result = await mastodonAdapter.publish(testAdapterContext(), req);
    const [status] = [...fakes.mastodon.statuses.values()];
    expect(result).toEqual({ platformPostId: status!.id, platformUrl: `${MASTODON}/@alice/${status!.id}` });
    expect(status).toMatchObject({ text: "Hello fediverse", visibility: "public", media_ids: [] });
    const call = fakes.mastodon.calls.find((c) => c.path === "/api/v1/statuses")!;
    expect(call.headers.get("idempotency-key")).toBe(req.postPlatformId);
  });

  it("a repeated POST with the same row returns the first status instead of posting twice", async () => {
    const req = request("only once");
    const first = await mastodonAdapter.publish(testAdapterContext(), req);
    const second = await mastodonAdapter.publish(testAdapterContext(), req);
    expect(second).toEqual(first);
    expect(fakes.mastodon.statuses.size).toBe(1);
  });

  it("uploads an image (processed at once) as a streamed multipart file", async () => {
    const image = await storeTestMedia("image");
    const result = await mastodonAdapter.publish(testAdapterContext(), request("pic", [image]));
    const [media] = [...fakes.mastodon.media.values()];
    expect(media).toMatchObject({ type: "image", size: image.size, filename: "file.jpg" });
    expect(fakes.mastodon.count(`GET /api/v1/media/${media!.id}`)).toBe(0);
    expect(fakes.mastodon.statuses.get(result.platformPostId)!.media_ids).toEqual([media!.id]);
  });

  it("waits for a video to finish processing (202, then 206 until 200)", async () => {
    fakes.mastodon.videoProcessingPolls = 3;
    const video = await storeTestMedia("video", new Uint8Array(300_000).fill(3));
    const result = await mastodonAdapter.publish(testAdapterContext(), request("clip", [video]));
    const [media] = [...fakes.mastodon.media.values()];
    expect(media).toMatchObject({ type: "video", size: 300_000 });
    expect(fakes.mastodon.count(`GET /api/v1/media/${media!.id}`)).toBe(3);
    expect(fakes.mastodon.statuses.get(result.platformPostId)!.media_ids).toEqual([media!.id]);
  });

  it("reports validation refusals in the instance's words", async () => {
    const err = await mastodonAdapter.publish(testAdapterContext(), request("y".repeat(501))).catch((e) => e);
    expect(err).toMatchObject({
      kind: "permanent",
      status: 422,
      message: "Mastodon refused the post: Validation failed: Text character limit of 500 exceeded",
    });
  });

  it("reads status counts", async () => {
    const req = request("count");
    const created = await mastodonAdapter.publish(testAdapterContext(), req);
    Object.assign(fakes.mastodon.statuses.get(created.platformPostId)!, {
      favourites_count: 9,
      reblogs_count: 4,
      replies_count: 2,
    });
    expect(
      await mastodonAdapter.metrics!(testAdapterContext(), {
        platformPostId: created.platformPostId,
        platformUrl: created.platformUrl,
        contentType: "mastodon_post",
        account: req.account,
      }),
    ).toEqual([
      { label: "Favourites", value: 9 },
      { label: "Reblogs", value: 4 },
      { label: "Replies", value: 2 },
    ]);
  });
});

describe("Mastodon through the publish job", () => {
  async function setup() {
    const ws = await createTestWorkspace();
    const acc = await seedMastodonAccount(ws);
    const post = await seedPost(ws, {
      content: "toot",
      rows: [{ accountId: acc, platform: "mastodon", contentType: "mastodon_post" }],
    });
    return { acc, post, rowId: post.rowIds[0]! };
  }

  it("retries a 429 after the ISO X-RateLimit-Reset, then publishes", async () => {
    const { post, rowId } = await setup();
    fakes.mastodon.inject("POST /api/v1/statuses", fakes.mastodon.rateLimited(300));
    const first = await deliver(post.messages);
    expect(first.retryMessages).toHaveLength(1);
    expect(first.retryMessages[0]!.delaySeconds).toBeGreaterThanOrEqual(299);
    expect(first.retryMessages[0]!.delaySeconds).toBeLessThanOrEqual(300);
    await deliver(post.messages, { attempts: 2 });
    const [status] = [...fakes.mastodon.statuses.values()];
    expect(await readRow(rowId)).toMatchObject({
      status: "published",
      platform_post_id: status!.id,
      platform_url: `${MASTODON}/@alice/${status!.id}`,
    });
    expect(await readPost(post.postId)).toMatchObject({ status: "published" });
  });

  it("fails with the last error once every delivery got a 5xx", async () => {
    const { post, rowId } = await setup();
    fakes.mastodon.inject("POST /api/v1/statuses", fakes.mastodon.unavailable(503), 10);
    expect(await deliverUntilSettled(post.messages)).toHaveLength(5);
    expect(fakes.mastodon.count("POST /api/v1/statuses")).toBe(6);
    expect(await readRow(rowId)).toMatchObject({
      status: "failed",
      error_message: "Mastodon is unavailable (HTTP 503).",
    });
  });

  it("a revoked token (Mastodon has no refresh) marks the account token_expired", async () => {
    const { acc, post, rowId } = await setup();
    fakes.mastodon.tokens.clear();
    await deliver(post.messages);
    expect(await readRow(rowId)).toMatchObject({
      status: "failed",
      error_message: "Social account session expired — please reconnect.",
    });
    expect((await readAccount(acc))!.status).toBe("token_expired");
    expect(fakes.mastodon.count("POST /api/v1/statuses")).toBe(1);
  });
});
