import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PlatformError } from "../../../src/platforms/types";
import { xAdapter } from "../../../src/platforms/x/adapter";
import { type Fakes, installFakes, seedXAccount } from "../../publishing/platforms";
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
import { memoryCheckpoint, storeTestMedia, testAccount, testAdapterContext } from "../../support/adapter-context";
import { failAfterHandling } from "../../support/fake-fetch";
import { platformRejection } from "../../support/fakes/fake-kit";

let fakes: Fakes;
beforeEach(() => {
  fakes = installFakes();
});
afterEach(() => fakes.uninstall());

/** An X problem-JSON refusal (docs.x.com/x-api/fundamentals/response-codes-and-errors). */
const xProblem = (status: number, title: string, detail: string) =>
  new Response(JSON.stringify({ title, detail, type: "about:blank", status }), {
    status,
    headers: { "content-type": "application/problem+json" },
  });

const account = () =>
  testAccount("x", { username: "alice_x", credentials: { access_token: "x-access", refresh_token: "x-refresh" } });
const request = (content: string, media: Awaited<ReturnType<typeof storeTestMedia>>[] = []) => ({
  postPlatformId: crypto.randomUUID(),
  contentType: "x_post",
  content,
  media,
  meta: {},
  account: account(),
});

describe("X adapter against the fake", () => {
  it("posts text", async () => {
    const result = await xAdapter.publish(testAdapterContext(), request("Hello X"));
    const [tweet] = [...fakes.x.tweets.values()];
    expect(result).toEqual({ platformPostId: tweet!.id, platformUrl: `https://x.com/alice_x/status/${tweet!.id}` });
    expect(tweet!.text).toBe("Hello X");
  });

  it("uploads images in one request each, then posts them", async () => {
    const images = [await storeTestMedia("image"), await storeTestMedia("image")];
    const result = await xAdapter.publish(testAdapterContext(), request("Two pictures", images));
    expect(fakes.x.count("POST /2/media/upload")).toBe(2);
    const tweet = fakes.x.tweets.get(result.platformPostId)!;
    expect(tweet.media_ids).toHaveLength(2);
    expect([...fakes.x.media.values()].map((m) => m.category)).toEqual(["tweet_image", "tweet_image"]);
  });

  it("uploads a video in 1 MiB segments and waits for processing", async () => {
    fakes.x.processingPolls = 2;
    const bytes = new Uint8Array(2 * 1024 * 1024 + 5).fill(1);
    const video = await storeTestMedia("video", bytes);
    const result = await xAdapter.publish(testAdapterContext(), request("A video", [video]));
    const [m] = [...fakes.x.media.values()];
    expect(m).toMatchObject({
      category: "tweet_video",
      totalBytes: bytes.byteLength,
      received: bytes.byteLength,
      segments: 3,
    });
    expect(fakes.x.count("POST /2/media/upload/initialize")).toBe(1);
    expect(fakes.x.count(`POST /2/media/upload/${m!.id}/append`)).toBe(3);
    expect(fakes.x.count(`POST /2/media/upload/${m!.id}/finalize`)).toBe(1);
    expect(fakes.x.count("GET /2/media/upload")).toBe(3);
    expect(fakes.x.tweets.get(result.platformPostId)!.media_ids).toEqual([m!.id]);
  });

  it("sends a GIF through the chunked path as tweet_gif", async () => {
    fakes.x.processingPolls = 0;
    const gif = await storeTestMedia("image", new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61]), "image/gif");
    await xAdapter.publish(testAdapterContext(), request("gif", [gif]));
    expect([...fakes.x.media.values()].map((m) => m.category)).toEqual(["tweet_gif"]);
    expect(fakes.x.count("GET /2/media/upload")).toBe(0);
  });

  it("fails permanently when X cannot process the video", async () => {
    fakes.x.processingFailure = "Unsupported video codec.";
    const video = await storeTestMedia("video");
    await expect(xAdapter.publish(testAdapterContext(), request("bad", [video]))).rejects.toEqual(
      new PlatformError("permanent", "X could not process the media: Unsupported video codec."),
    );
    expect(fakes.x.count("POST /2/tweets")).toBe(0);
  });

  it("reports a duplicate as X's own reason", async () => {
    await xAdapter.publish(testAdapterContext(), request("same"));
    const err = await xAdapter.publish(testAdapterContext(), request("same")).catch((e) => e);
    expect(err).toBeInstanceOf(PlatformError);
    expect(err).toMatchObject({
      kind: "permanent",
      status: 403,
      message: "X refused the post: You are not allowed to create a Tweet with duplicate content.",
    });
  });

  it("a retry after a lost create answer finds the tweet (links rewritten by X), reading one page of 5", async () => {
    const checkpoint = memoryCheckpoint();
    const req = { ...request("Launch day https://example.com/very/long/link"), checkpoint };
    failAfterHandling("POST", "/2/tweets", { kind: "timeout" });
    await expect(platformRejection(xAdapter.publish(testAdapterContext(), req))).resolves.toMatchObject({
      kind: "transient",
      message: "X timed out.",
    });
    const [tweet] = [...fakes.x.tweets.values()];
    tweet!.text = "Launch day https://t.co/Zz1";
    expect(checkpoint.saves).toEqual([{ create_sent_at: expect.any(Number) }]);

    expect(await xAdapter.publish(testAdapterContext(), req)).toEqual({
      platformPostId: tweet!.id,
      platformUrl: `https://x.com/alice_x/status/${tweet!.id}`,
    });
    expect(fakes.x.tweets.size).toBe(1);
    const lookups = fakes.x.calls.filter((c) => c.path === "/2/users/1234567890/tweets");
    expect(lookups).toHaveLength(1);
    expect(lookups[0]!.url.searchParams.get("max_results")).toBe("5");
    expect(Date.parse(lookups[0]!.url.searchParams.get("start_time")!)).toBeLessThanOrEqual(
      checkpoint.saves[0]!.create_sent_at as number,
    );
    expect(lookups[0]!.url.searchParams.get("exclude")).toBe("retweets,replies");
  });

  it("a retry whose earlier attempt never sent the create posts without reading anything", async () => {
    fakes.x.readAccess = false;
    const checkpoint = memoryCheckpoint();
    const video = await storeTestMedia("video", new Uint8Array(1024).fill(3));
    const req = { ...request("video first", [video]), checkpoint };
    fakes.x.inject("POST /2/media/upload/initialize", fakes.x.unavailable(503));
    await expect(platformRejection(xAdapter.publish(testAdapterContext(), req))).resolves.toMatchObject({
      kind: "transient",
    });
    const result = await xAdapter.publish(testAdapterContext(), req);
    expect(fakes.x.tweets.size).toBe(1);
    expect(result.platformPostId).toBe([...fakes.x.tweets.keys()][0]);
    expect(fakes.x.timelineReads).toBe(0);
  });

  it("when X will not let the app read (403 client-not-enrolled), a lost create ends as could-not-confirm", async () => {
    fakes.x.readAccess = false;
    const checkpoint = memoryCheckpoint();
    const req = { ...request("no read access"), checkpoint };
    failAfterHandling("POST", "/2/tweets", { kind: "drop" });
    await expect(platformRejection(xAdapter.publish(testAdapterContext(), req))).resolves.toMatchObject({
      kind: "transient",
      message: "X could not be reached.",
    });
    expect(await platformRejection(xAdapter.publish(testAdapterContext(), req))).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message: "Could not confirm whether the post was published: the answer from X was lost. Check X before retrying.",
      retryAfterSeconds: undefined,
      status: undefined,
    });
    expect(fakes.x.tweets.size).toBe(1);
    expect(fakes.x.timelineReads).toBe(1);
  });

  // Issue 29: the "did it post?" look-up runs only when the outcome is unknown.
  it.each([
    ["a 403 refusal", () => fakes.x.inject("POST /2/tweets", () => xProblem(403, "Forbidden", "Not allowed."))],
    ["a 400 refusal", () => fakes.x.inject("POST /2/tweets", () => xProblem(400, "Invalid Request", "Bad text."))],
    ["a 429", () => fakes.x.inject("POST /2/tweets", fakes.x.rateLimited(60))],
    ["a 402 credits depleted", () => fakes.x.inject("POST /2/tweets", fakes.x.creditsDepleted())],
  ])("after %s on create, the retry posts without reading the timeline", async (_what, refuse) => {
    const checkpoint = memoryCheckpoint();
    const req = { ...request("definite answer"), checkpoint };
    refuse();
    await expect(platformRejection(xAdapter.publish(testAdapterContext(), req))).resolves.toMatchObject({
      status: expect.any(Number),
    });
    expect(checkpoint.saves).toEqual([{ create_sent_at: expect.any(Number) }, {}]);
    const made = await xAdapter.publish(testAdapterContext(), req);
    expect([...fakes.x.tweets.keys()]).toEqual([made.platformPostId]);
    expect(fakes.x.timelineReads).toBe(0);
  });

  it.each([
    ["a 503", () => fakes.x.inject("POST /2/tweets", fakes.x.unavailable(503))],
    ["a lost answer", () => failAfterHandling("POST", "/2/tweets", { kind: "drop" })],
    ["a timeout", () => failAfterHandling("POST", "/2/tweets", { kind: "timeout" })],
  ])("after %s on create, the retry reads the timeline first", async (_what, fail) => {
    const checkpoint = memoryCheckpoint();
    const req = { ...request("unknown outcome"), checkpoint };
    fail();
    await expect(platformRejection(xAdapter.publish(testAdapterContext(), req))).resolves.toMatchObject({
      kind: "transient",
    });
    expect(checkpoint.saves).toEqual([{ create_sent_at: expect.any(Number) }]);
    await xAdapter.publish(testAdapterContext(), req);
    expect(fakes.x.timelineReads).toBe(1);
    expect(fakes.x.tweets.size).toBe(1);
  });

  it("credits depleted (402) is its own permanent error, not a rate limit", async () => {
    fakes.x.inject("POST /2/tweets", fakes.x.creditsDepleted());
    expect(await platformRejection(xAdapter.publish(testAdapterContext(), request("no credits")))).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message:
        "X refused the request: the X developer account has no API credits left (HTTP 402, credits depleted). Add credits in the X Developer Console (console.x.com), then publish again; nothing was posted.",
      retryAfterSeconds: undefined,
      status: 402,
    });
  });

  it("a spent monthly usage cap (429 UsageCapExceeded) is its own permanent error, not a rate limit", async () => {
    fakes.x.inject("POST /2/tweets", fakes.x.usageCapped());
    expect(await platformRejection(xAdapter.publish(testAdapterContext(), request("capped")))).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message:
        'X\'s monthly product usage cap is used up (UsageCapExceeded: "Usage cap exceeded: Monthly product cap"): X takes no more of these requests from this app until the cap resets with the next billing period or is raised in the X Developer Console; nothing was posted.',
      retryAfterSeconds: undefined,
      status: 429,
    });
  });

  it("a spent daily usage cap waits for its reset (a day at most), not for the next billing period", async () => {
    const now = Date.parse("2026-12-07T08:00:00Z");
    fakes.x.inject("POST /2/tweets", fakes.x.usageCapped("Daily", "Account"));
    expect(
      await platformRejection(xAdapter.publish(testAdapterContext({ now: () => now }), request("capped daily"))),
    ).toEqual({
      name: "PlatformError",
      kind: "transient",
      message:
        'X\'s daily account usage cap is used up (UsageCapExceeded: "Usage cap exceeded: Daily account cap"): X takes these requests again when the daily cap resets, by 2026-12-08T08:00:00.000Z; the post is tried again then (publish it again after that time if its retries are spent); nothing was posted.',
      retryAfterSeconds: 86_400,
      status: 429,
    });
    // With X's 24-hour reset header, that time.
    const at = Math.floor(Date.now() / 1000) + 2 * 3600;
    fakes.x.inject("POST /2/tweets", fakes.x.usageCapped("Daily", "Product", 2 * 3600));
    const err = await platformRejection(xAdapter.publish(testAdapterContext(), request("capped daily 2")));
    expect(err.kind).toBe("transient");
    expect(err.message).toContain(`resets, by ${new Date(at * 1000).toISOString()};`);
  });

  it("a spent 24-hour post limit waits for its reset, and says so", async () => {
    fakes.x.inject("POST /2/tweets", fakes.x.dailyLimitSpent(3 * 3600));
    const before = Math.floor(Date.now() / 1000);
    const err = await platformRejection(xAdapter.publish(testAdapterContext(), request("daily")));
    const after = Math.floor(Date.now() / 1000);
    const resetAt = Date.parse(/resets at (\S+)\)/.exec(err.message)![1]!) / 1000;
    expect(resetAt).toBeGreaterThanOrEqual(before + 3 * 3600);
    expect(resetAt).toBeLessThanOrEqual(after + 3 * 3600);
    expect(err).toEqual({
      name: "PlatformError",
      kind: "transient",
      message: `X's 24-hour post limit for this account is used up (it resets at ${new Date(resetAt * 1000).toISOString()}); the post waits for it.`,
      retryAfterSeconds: expect.any(Number),
      status: 429,
    });
    expect(err.retryAfterSeconds).toBeGreaterThanOrEqual(3 * 3600 - (after - before) - 1);
  });

  it("metrics on a tier without read access: MetricsUnavailable platform_access_denied (not an error)", async () => {
    const created = await xAdapter.publish(testAdapterContext(), request("no reads"));
    fakes.x.readAccess = false;
    const err = await xAdapter.metrics!(testAdapterContext(), {
      platformPostId: created.platformPostId,
      platformUrl: created.platformUrl,
      contentType: "x_post",
      account: account(),
    }).catch((e) => e);
    expect([err.name, err.reason]).toEqual(["MetricsUnavailable", "platform_access_denied"]);
    expect(err.message).toMatch(/^X does not let this app read posts: X refused the post: When authenticating/);
  });

  it("reads public metrics", async () => {
    const created = await xAdapter.publish(testAdapterContext(), request("metrics"));
    Object.assign(fakes.x.tweets.get(created.platformPostId)!.public_metrics, { like_count: 7, impression_count: 120 });
    const metrics = await xAdapter.metrics!(testAdapterContext(), {
      platformPostId: created.platformPostId,
      platformUrl: created.platformUrl,
      contentType: "x_post",
      account: account(),
    });
    expect(metrics).toEqual([
      { label: "Impressions", value: 120 },
      { label: "Likes", value: 7 },
      { label: "Retweets", value: 0 },
      { label: "Replies", value: 0 },
      { label: "Quotes", value: 0 },
      { label: "Bookmarks", value: 0 },
    ]);
  });
});

describe("X through the publish job", () => {
  it("retries a 429 after x-rate-limit-reset, then publishes", async () => {
    const ws = await createTestWorkspace();
    const acc = await seedXAccount(ws);
    const post = await seedPost(ws, {
      content: "throttled",
      rows: [{ accountId: acc, platform: "x", contentType: "x_post" }],
    });
    fakes.x.inject("POST /2/tweets", fakes.x.rateLimited(240));

    const first = await deliver(post.messages);
    expect(first.retryMessages).toHaveLength(1);
    expect(first.retryMessages[0]!.delaySeconds).toBeGreaterThanOrEqual(239);
    expect(first.retryMessages[0]!.delaySeconds).toBeLessThanOrEqual(240);
    expect(await readRow(post.rowIds[0]!)).toMatchObject({
      status: "publishing",
      error_message: "X rate limit exceeded.",
    });

    const second = await deliver(post.messages, { attempts: 2 });
    expect(second.explicitAcks).toEqual(["msg-0"]);
    // A 429 is a definite "not made": the retry creates without the "did it post?" look-up.
    expect(fakes.x.timelineReads).toBe(0);
    const [tweet] = [...fakes.x.tweets.values()];
    expect(await readRow(post.rowIds[0]!)).toMatchObject({
      status: "published",
      platform_post_id: tweet!.id,
      platform_url: `https://x.com/alice_x/status/${tweet!.id}`,
      error_message: null,
    });
    expect(await readPost(post.postId)).toMatchObject({ status: "published" });
  });

  it("fails with the last error once every delivery got a 5xx", async () => {
    const ws = await createTestWorkspace();
    const acc = await seedXAccount(ws);
    const post = await seedPost(ws, {
      content: "down",
      rows: [{ accountId: acc, platform: "x", contentType: "x_post" }],
    });
    fakes.x.inject("POST /2/tweets", fakes.x.unavailable(503), 10);
    const delays = await deliverUntilSettled(post.messages);
    expect(delays).toHaveLength(5);
    expect(fakes.x.count("POST /2/tweets")).toBe(6);
    expect(await readRow(post.rowIds[0]!)).toMatchObject({
      status: "failed",
      error_message: "X is unavailable (HTTP 503).",
      platform_post_id: null,
    });
    expect(await readPost(post.postId)).toMatchObject({ status: "failed", published_at: null });
  });

  it("refreshes a token that expires within 15 minutes before publishing", async () => {
    const ws = await createTestWorkspace();
    const soon = Date.now() + 5 * 60_000;
    const acc = await seedXAccount(ws, {
      credentials: { access_token: "x-old", refresh_token: "x-refresh", expires_at: soon },
      tokenExpiresAt: soon,
    });
    const post = await seedPost(ws, {
      content: "fresh",
      rows: [{ accountId: acc, platform: "x", contentType: "x_post" }],
    });
    await deliver(post.messages);
    expect(fakes.x.count("POST /2/oauth2/token")).toBe(1);
    expect((await readRow(post.rowIds[0]!))!.status).toBe("published");
    const creds = await openAccountCredentials(acc);
    expect(fakes.x.accessTokens.has(creds.access_token!)).toBe(true);
    expect(fakes.x.refreshTokens.has(creds.refresh_token!)).toBe(true);
    const row = await readAccount(acc);
    expect(row!.status).toBe("connected");
    expect(row!.token_expires_at).toBeGreaterThan(Date.now() + 3600_000);
  });

  it("refreshes once when X rejects the token, then publishes", async () => {
    const ws = await createTestWorkspace();
    const acc = await seedXAccount(ws, { credentials: { access_token: "x-revoked", refresh_token: "x-refresh" } });
    const post = await seedPost(ws, {
      content: "rejected",
      rows: [{ accountId: acc, platform: "x", contentType: "x_post" }],
    });
    await deliver(post.messages);
    expect(fakes.x.count("POST /2/tweets")).toBe(2);
    expect(fakes.x.count("POST /2/oauth2/token")).toBe(1);
    expect((await readRow(post.rowIds[0]!))!.status).toBe("published");
  });

  it("marks the account token_expired when the refresh is refused", async () => {
    const ws = await createTestWorkspace();
    const acc = await seedXAccount(ws, {
      credentials: { access_token: "x-revoked", refresh_token: "x-refresh-revoked" },
    });
    const post = await seedPost(ws, {
      content: "dead",
      rows: [{ accountId: acc, platform: "x", contentType: "x_post" }],
    });
    const result = await deliver(post.messages);
    expect(result.explicitAcks).toEqual(["msg-0"]);
    expect(await readRow(post.rowIds[0]!)).toMatchObject({
      status: "failed",
      error_message: "Social account session expired — please reconnect.",
    });
    expect((await readAccount(acc))!.status).toBe("token_expired");
    expect(await readPost(post.postId)).toMatchObject({ status: "failed" });
  });
});
