import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { blueskyAdapter } from "../../../src/platforms/bluesky/adapter";
import { tidFromRowId } from "../../../src/platforms/bluesky/transform";
import { PlatformError, type PublishRequest } from "../../../src/platforms/types";
import { type Fakes, installFakes, seedBlueskyAccount } from "../../publishing/platforms";
import {
  createTestWorkspace,
  deliver,
  deliverUntilSettled,
  openAccountCredentials,
  readAccount,
  readPost,
  readRow,
  seedPost,
} from "../../publishing/support";
import { blueskyAccount, storeTestMedia, testAdapterContext } from "../../support/adapter-context";

let fakes: Fakes;
beforeEach(() => {
  fakes = installFakes();
});
afterEach(() => fakes.uninstall());

function request(
  content: string,
  media: PublishRequest["media"] = [],
  postPlatformId = crypto.randomUUID(),
): PublishRequest {
  return {
    postPlatformId,
    contentType: "bluesky_post",
    content,
    media,
    meta: {},
    account: blueskyAccount(fakes.bluesky),
  };
}

describe("Bluesky adapter against the fake", () => {
  it("creates the post under the row's TID with link, mention and tag facets", async () => {
    const req = request("Hi @bob.test and @ghost.test ✨ https://example.com #launch");
    const result = await blueskyAdapter.publish(testAdapterContext(), req);
    const rkey = tidFromRowId(req.postPlatformId);
    expect(result).toEqual({
      platformPostId: `at://${fakes.bluesky.did}/app.bsky.feed.post/${rkey}`,
      platformUrl: `https://bsky.app/profile/alice.test/post/${rkey}`,
      // Issue 20: the record's CID, which a later reply's strong refs need.
      replyRef: { cid: fakes.bluesky.records.get(rkey)!.cid },
    });
    const record = fakes.bluesky.records.get(rkey)!.value;
    expect(record).toMatchObject({ $type: "app.bsky.feed.post", text: req.content });
    expect(record.facets).toEqual([
      {
        index: { byteStart: 3, byteEnd: 12 },
        features: [{ $type: "app.bsky.richtext.facet#mention", did: "did:plc:bob00000000000000000000" }],
      },
      {
        index: { byteStart: 33, byteEnd: 52 },
        features: [{ $type: "app.bsky.richtext.facet#link", uri: "https://example.com" }],
      },
      { index: { byteStart: 53, byteEnd: 60 }, features: [{ $type: "app.bsky.richtext.facet#tag", tag: "launch" }] },
    ]);
    expect(fakes.bluesky.count("GET /xrpc/com.atproto.identity.resolveHandle")).toBe(2);
  });

  it("uploads images as blobs with their type and embeds them with aspect ratios", async () => {
    const images = [await storeTestMedia("image"), await storeTestMedia("image")];
    const req = request("pics", images);
    await blueskyAdapter.publish(testAdapterContext(), req);
    const uploads = fakes.bluesky.calls.filter((c) => c.path === "/xrpc/com.atproto.repo.uploadBlob");
    expect(uploads.map((c) => c.headers.get("content-type"))).toEqual(["image/jpeg", "image/jpeg"]);
    const embed = fakes.bluesky.records.get(tidFromRowId(req.postPlatformId))!.value.embed;
    expect(embed.$type).toBe("app.bsky.embed.images");
    expect(embed.images).toHaveLength(2);
    expect(embed.images[0]).toMatchObject({ alt: "", aspectRatio: { width: 1080, height: 1080 } });
  });

  it("sends a video through the video service and waits for the job", async () => {
    const video = await storeTestMedia("video");
    const req = request("clip", [video]);
    await blueskyAdapter.publish(testAdapterContext(), req);
    expect(fakes.bluesky.count("GET /xrpc/com.atproto.server.getServiceAuth")).toBe(1);
    const auth = fakes.bluesky.calls.find((c) => c.path === "/xrpc/com.atproto.server.getServiceAuth")!;
    // The audience is the account's actual PDS from its DID document (PLC directory), not the entryway.
    expect(fakes.bluesky.count(`GET /${fakes.bluesky.did}`)).toBe(1);
    expect(auth.url.searchParams.get("aud")).toBe("did:web:morel.us-east.host.bsky.fake");
    expect(auth.url.searchParams.get("lxm")).toBe("com.atproto.repo.uploadBlob");
    expect(fakes.bluesky.count("POST /xrpc/app.bsky.video.uploadVideo")).toBe(1);
    expect(fakes.bluesky.count("GET /xrpc/app.bsky.video.getJobStatus")).toBe(3);
    const embed = fakes.bluesky.records.get(tidFromRowId(req.postPlatformId))!.value.embed;
    expect(embed).toMatchObject({ $type: "app.bsky.embed.video", video: { $type: "blob", mimeType: "video/mp4" } });
  });

  it("uses the blob of a video the service already processed (already_exists) instead of failing", async () => {
    const video = await storeTestMedia("video", new Uint8Array(4096).fill(9));
    const first = request("clip one", [video]);
    await blueskyAdapter.publish(testAdapterContext(), first);
    const second = request("clip two", [video]);
    await blueskyAdapter.publish(testAdapterContext(), second);
    const blobOf = (r: typeof first) =>
      fakes.bluesky.records.get(tidFromRowId(r.postPlatformId))!.value.embed.video.ref.$link;
    expect(blobOf(second)).toBe(blobOf(first));
    expect(fakes.bluesky.count("POST /xrpc/app.bsky.video.uploadVideo")).toBe(2);
    // The second upload answered already_exists with the blob: no job to follow.
    expect(fakes.bluesky.count("GET /xrpc/app.bsky.video.getJobStatus")).toBe(3);
  });

  it("a did:plc the directory does not know falls back to the session's PDS as the audience", async () => {
    fakes.bluesky.pdsEndpoint = "https://bsky-pds.fake";
    const video = await storeTestMedia("video");
    const req = request("clip", [video]);
    fakes.bluesky.inject(`GET /${fakes.bluesky.did}`, () =>
      Response.json({ message: "DID not registered" }, { status: 404 }),
    );
    await blueskyAdapter.publish(testAdapterContext(), req);
    const auth = fakes.bluesky.calls.find((c) => c.path === "/xrpc/com.atproto.server.getServiceAuth")!;
    expect(auth.url.searchParams.get("aud")).toBe("did:web:bsky-pds.fake");
  });

  it("fails permanently when the video job fails", async () => {
    fakes.bluesky.videoFailure = "Video is too long";
    const video = await storeTestMedia("video");
    await expect(blueskyAdapter.publish(testAdapterContext(), request("clip", [video]))).rejects.toEqual(
      new PlatformError("permanent", "Bluesky could not process the video: Video is too long"),
    );
    expect(fakes.bluesky.count("POST /xrpc/com.atproto.repo.createRecord")).toBe(0);
  });

  it("reports lexicon refusals in the platform's words", async () => {
    const err = await blueskyAdapter.publish(testAdapterContext(), request("x".repeat(301))).catch((e) => e);
    expect(err).toMatchObject({
      kind: "permanent",
      status: 400,
      message:
        "Bluesky refused the post: Invalid app.bsky.feed.post record: grapheme too big (maximum 300, got 301) at $.record.text",
    });
  });

  it("finds the record of an earlier attempt, and a repeat createRecord (500) resolves to it", async () => {
    const req = request("once");
    expect(await blueskyAdapter.findExisting!(testAdapterContext(), req)).toBeNull();
    const first = await blueskyAdapter.publish(testAdapterContext(), req);
    expect(await blueskyAdapter.findExisting!(testAdapterContext(), req)).toEqual(first);
    expect(await blueskyAdapter.publish(testAdapterContext(), req)).toEqual(first);
    expect(fakes.bluesky.records.size).toBe(1);
  });

  it("reads metrics from the AppView", async () => {
    const req = request("count me");
    const created = await blueskyAdapter.publish(testAdapterContext(), req);
    fakes.bluesky.engagement.set(created.platformPostId, {
      likeCount: 4,
      repostCount: 3,
      replyCount: 2,
      quoteCount: 1,
    });
    const metrics = await blueskyAdapter.metrics!(testAdapterContext(), {
      platformPostId: created.platformPostId,
      platformUrl: created.platformUrl,
      contentType: "bluesky_post",
      account: req.account,
    });
    expect(metrics).toEqual([
      { label: "Likes", value: 4 },
      { label: "Reposts", value: 3 },
      { label: "Quotes", value: 1 },
      { label: "Replies", value: 2 },
    ]);
  });
});

describe("Bluesky through the publish job", () => {
  async function setup(content = "hello bluesky") {
    const ws = await createTestWorkspace();
    const acc = await seedBlueskyAccount(ws, fakes.bluesky);
    const post = await seedPost(ws, {
      content,
      rows: [{ accountId: acc, platform: "bluesky", contentType: "bluesky_post" }],
    });
    return { acc, post, rowId: post.rowIds[0]! };
  }

  it("retries a 429 after retry-after, then publishes", async () => {
    const { post, rowId } = await setup();
    fakes.bluesky.inject("POST /xrpc/com.atproto.repo.createRecord", fakes.bluesky.rateLimited(90));
    const first = await deliver(post.messages);
    expect(first.retryMessages).toEqual([{ msgId: "msg-0", delaySeconds: 90 }]);
    expect(await readRow(rowId)).toMatchObject({ status: "publishing", error_message: "Bluesky rate limit exceeded." });
    await deliver(post.messages, { attempts: 2 });
    const rkey = tidFromRowId(rowId);
    expect(await readRow(rowId)).toMatchObject({
      status: "published",
      platform_post_id: `at://${fakes.bluesky.did}/app.bsky.feed.post/${rkey}`,
      platform_url: `https://bsky.app/profile/alice.test/post/${rkey}`,
      error_message: null,
    });
    // The retry looked for the record first (the row had been claimed before).
    expect(fakes.bluesky.count("GET /xrpc/com.atproto.repo.getRecord")).toBe(1);
  });

  it("fails with the last error once every delivery got a 5xx", async () => {
    const { post, rowId } = await setup();
    fakes.bluesky.inject("POST /xrpc/com.atproto.repo.createRecord", fakes.bluesky.unavailable(502), 10);
    const delays = await deliverUntilSettled(post.messages);
    expect(delays).toHaveLength(5);
    expect(fakes.bluesky.count("POST /xrpc/com.atproto.repo.createRecord")).toBe(6);
    expect(fakes.bluesky.records.size).toBe(0);
    expect(await readRow(rowId)).toMatchObject({
      status: "failed",
      error_message: "Bluesky is unavailable (HTTP 502): Internal Server Error",
    });
    expect(await readPost(post.postId)).toMatchObject({ status: "failed" });
  });

  it("refreshes an expired session (400 ExpiredToken) and publishes", async () => {
    const { acc, post, rowId } = await setup();
    fakes.bluesky.expireAccessTokens();
    await deliver(post.messages);
    expect(fakes.bluesky.count("POST /xrpc/com.atproto.server.refreshSession")).toBe(1);
    expect((await readRow(rowId))!.status).toBe("published");
    const creds = await openAccountCredentials(acc);
    expect(fakes.bluesky.refreshTokens.has(creds.refresh_jwt!)).toBe(true);
    const account = await readAccount(acc);
    expect(account!.status).toBe("connected");
    // The new access JWT's expiry drives the next proactive refresh.
    expect(account!.token_expires_at).toBeGreaterThan(Date.now() + 3600_000);
  });

  it("opens a new session with the app password when the refresh JWT is dead too", async () => {
    const { post, rowId } = await setup();
    fakes.bluesky.expireAccessTokens();
    fakes.bluesky.refreshTokens.clear();
    await deliver(post.messages);
    expect(fakes.bluesky.count("POST /xrpc/com.atproto.server.createSession")).toBe(1);
    expect((await readRow(rowId))!.status).toBe("published");
  });

  it("marks the account token_expired when Bluesky refuses every way back in", async () => {
    const { acc, post, rowId } = await setup();
    fakes.bluesky.expireAccessTokens();
    fakes.bluesky.refreshTokens.clear();
    fakes.bluesky.password = "changed-pass-word";
    await deliver(post.messages);
    expect(await readRow(rowId)).toMatchObject({
      status: "failed",
      error_message: "Social account session expired — please reconnect.",
    });
    expect((await readAccount(acc))!.status).toBe("token_expired");
    expect(fakes.bluesky.records.size).toBe(0);
  });

  it("a redelivery after a lost response finds the record instead of posting again", async () => {
    const { post, rowId } = await setup();
    // createRecord succeeds on the PDS, but the response is lost on the way back.
    fakes.bluesky.inject("POST /xrpc/com.atproto.repo.createRecord", async (req) => {
      await fakes.bluesky.serve(req);
      throw new TypeError("Network connection lost.");
    });
    const first = await deliver(post.messages);
    expect(first.retryMessages).toHaveLength(1);
    expect(fakes.bluesky.records.size).toBe(1);
    const creates = fakes.bluesky.count("POST /xrpc/com.atproto.repo.createRecord");
    await deliver(post.messages, { attempts: 2 });
    expect(fakes.bluesky.count("POST /xrpc/com.atproto.repo.createRecord")).toBe(creates);
    expect(fakes.bluesky.count("GET /xrpc/com.atproto.repo.getRecord")).toBe(1);
    expect((await readRow(rowId))!.status).toBe("published");
    expect(fakes.bluesky.records.size).toBe(1);
  });
});
