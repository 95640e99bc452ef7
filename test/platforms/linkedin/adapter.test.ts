import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adapterFor } from "../../../src/platforms";
import { memoryCheckpoint, storeTestMedia, testAccount, testAdapterContext } from "../../support/adapter-context";
import { failAfterHandling } from "../../support/fake-fetch";
import { platformFailure, platformRejection } from "../../support/fakes/fake-kit";
import { fakeLinkedIn, type LinkedInFake, linkedInError, linkedInThrottle } from "../../support/fakes/linkedin";
import type { RecordedCall } from "../../support/fakes/meta";

const member = adapterFor("linkedin")!;
const page = adapterFor("linkedin-page")!;
const REST_HEADERS = {
  authorization: "Bearer access-token",
  "linkedin-version": "202608",
  "x-restli-protocol-version": "2.0.0",
};
const JSON_HEADERS = { ...REST_HEADERS, "content-type": "application/json" };
const DISTRIBUTION = { feedDistribution: "MAIN_FEED", targetEntities: [], thirdPartyDistributionChannels: [] };

let fake: LinkedInFake;
beforeEach(() => {
  fake = fakeLinkedIn();
});
afterEach(() => fake.uninstall());

const view = (c: RecordedCall) => ({
  method: c.method,
  path: c.path,
  query: c.query,
  body: c.body,
  headers: c.headers,
});

function request(overrides: Partial<Parameters<typeof member.publish>[1]> = {}) {
  return {
    postPlatformId: crypto.randomUUID(),
    contentType: "linkedin_post",
    content: "Hello LinkedIn",
    media: [],
    meta: {},
    account: testAccount("linkedin", { platformUserId: "abc123" }),
    ...overrides,
  };
}

describe("LinkedIn publish", () => {
  it("publishes a text post with escaped little-text commentary (hashtags left as hashtags), id from x-restli-id", async () => {
    const result = await member.publish(testAdapterContext(), request({ content: "Launch (beta) #today @team" }));
    expect(result).toEqual({
      platformPostId: "urn:li:share:7400000000000000001",
      platformUrl: "https://www.linkedin.com/feed/update/urn:li:share:7400000000000000001",
    });
    expect(fake.calls.map(view)).toEqual([
      {
        method: "POST",
        path: "/rest/posts",
        query: {},
        headers: JSON_HEADERS,
        body: {
          author: "urn:li:person:abc123",
          commentary: "Launch \\(beta\\) #today \\@team",
          visibility: "PUBLIC",
          distribution: DISTRIBUTION,
          lifecycleState: "PUBLISHED",
          isReshareDisabledByAuthor: false,
        },
      },
    ]);
  });

  it("a first post identical to a recent one fails with LinkedIn's DUPLICATE_POST, naming the earlier post", async () => {
    const first = await member.publish(testAdapterContext(), request({ content: "Same words" }));
    expect(await platformRejection(member.publish(testAdapterContext(), request({ content: "Same words" })))).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message: `LinkedIn refused the post as a duplicate of an earlier one: ${first.platformUrl}`,
      retryAfterSeconds: undefined,
      status: 422,
    });
    expect(fake.posts).toHaveLength(1);
  });

  it("a retry after a lost answer resends the saved body without uploading again; DUPLICATE_POST is the post", async () => {
    const image = await storeTestMedia("image");
    const checkpoint = memoryCheckpoint();
    const req = request({ content: "Once only #launch", media: [image], checkpoint });
    failAfterHandling("POST", "/rest/posts", { kind: "status", status: 504, body: { message: "Gateway Timeout" } });
    await expect(platformRejection(member.publish(testAdapterContext(), req))).resolves.toMatchObject({
      kind: "transient",
      status: 504,
    });
    expect(fake.posts).toHaveLength(1);
    const callsBefore = fake.calls.length;
    expect(await member.publish(testAdapterContext(), req)).toEqual({
      platformPostId: fake.posts[0]!.urn,
      platformUrl: `https://www.linkedin.com/feed/update/${fake.posts[0]!.urn}`,
    });
    expect(fake.posts).toHaveLength(1);
    // Only the create call again: no second image upload.
    expect(fake.calls.slice(callsBefore).map((c) => `${c.method} ${c.path}`)).toEqual(["POST /rest/posts"]);
  });

  it("uploads one image (initializeUpload → PUT) and posts it as content.media", async () => {
    const image = await storeTestMedia("image");
    const result = await member.publish(testAdapterContext(), request({ media: [image] }));
    expect(result).toEqual({
      platformPostId: "urn:li:share:7400000000000000002",
      platformUrl: "https://www.linkedin.com/feed/update/urn:li:share:7400000000000000002",
    });
    expect(fake.calls.map(view)).toEqual([
      {
        method: "POST",
        path: "/rest/images",
        query: { action: "initializeUpload" },
        headers: JSON_HEADERS,
        body: { initializeUploadRequest: { owner: "urn:li:person:abc123" } },
      },
      {
        method: "PUT",
        path: "/dms-uploads/D4E10AQ7400000000000000001/uploadedImage/0",
        query: { ca: "vector_ads", cn: "uploads", m: "AQ", app: "1", sync: "0", v: "beta", ut: "fake" },
        headers: { authorization: "Bearer access-token", "content-type": "image/jpeg" },
        body: { bytes: 8 },
      },
      {
        method: "POST",
        path: "/rest/posts",
        query: {},
        headers: JSON_HEADERS,
        body: {
          author: "urn:li:person:abc123",
          commentary: "Hello LinkedIn",
          visibility: "PUBLIC",
          distribution: DISTRIBUTION,
          content: { media: { id: "urn:li:image:D4E10AQ7400000000000000001" } },
          lifecycleState: "PUBLISHED",
          isReshareDisabledByAuthor: false,
        },
      },
    ]);
  });

  it("publishes a carousel as multiImage, one upload per image", async () => {
    const media = [await storeTestMedia("image"), await storeTestMedia("image"), await storeTestMedia("image")];
    const result = await member.publish(testAdapterContext(), request({ contentType: "linkedin_carousel", media }));
    expect(result.platformPostId).toBe("urn:li:share:7400000000000000004");
    expect(fake.summary()).toEqual([
      "POST /rest/images",
      "PUT /dms-uploads/D4E10AQ7400000000000000001/uploadedImage/0",
      "POST /rest/images",
      "PUT /dms-uploads/D4E10AQ7400000000000000002/uploadedImage/0",
      "POST /rest/images",
      "PUT /dms-uploads/D4E10AQ7400000000000000003/uploadedImage/0",
      "POST /rest/posts",
    ]);
    expect(fake.posts[0]!.body.content).toEqual({
      multiImage: {
        images: [
          { id: "urn:li:image:D4E10AQ7400000000000000001" },
          { id: "urn:li:image:D4E10AQ7400000000000000002" },
          { id: "urn:li:image:D4E10AQ7400000000000000003" },
        ],
      },
    });
  });

  it("publishes a page carousel as the organization from meta.organization_id", async () => {
    const media = [await storeTestMedia("image"), await storeTestMedia("image")];
    const account = testAccount("linkedin-page", { platformUserId: "999", meta: { organization_id: "5515715" } });
    const result = await page.publish(
      testAdapterContext(),
      request({ contentType: "linkedin_page_carousel", content: "Team photos", media, account }),
    );
    expect(result.platformPostId).toBe("urn:li:share:7400000000000000003");
    expect(fake.calls[0]!.body).toEqual({ initializeUploadRequest: { owner: "urn:li:organization:5515715" } });
    expect(fake.posts).toEqual([
      {
        urn: "urn:li:share:7400000000000000003",
        body: {
          author: "urn:li:organization:5515715",
          commentary: "Team photos",
          visibility: "PUBLIC",
          distribution: DISTRIBUTION,
          content: {
            multiImage: {
              images: [
                { id: "urn:li:image:D4E10AQ7400000000000000001" },
                { id: "urn:li:image:D4E10AQ7400000000000000002" },
              ],
            },
          },
          lifecycleState: "PUBLISHED",
          isReshareDisabledByAuthor: false,
        },
      },
    ]);
  });

  it("uploads a video in ETag'd parts, finalizes, waits until AVAILABLE, then posts it (ugcPost)", async () => {
    fake.partSize = 4;
    fake.videoPolls = 2;
    const video = await storeTestMedia("video", new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]));
    const sleeps: number[] = [];
    const account = testAccount("linkedin-page", { platformUserId: "5515715" });
    const result = await page.publish(
      testAdapterContext({ sleep: async (ms) => void sleeps.push(ms) }),
      request({
        contentType: "linkedin_page_post",
        content: "Demo",
        media: [video],
        meta: { title: "Demo video" },
        account,
      }),
    );
    const urn = "urn:li:video:D4E10AQ7400000000000000001";
    expect(result).toEqual({
      platformPostId: "urn:li:ugcPost:7400000000000000002",
      platformUrl: "https://www.linkedin.com/feed/update/urn:li:ugcPost:7400000000000000002",
    });
    expect(fake.calls.map(view)).toEqual([
      {
        method: "POST",
        path: "/rest/videos",
        query: { action: "initializeUpload" },
        headers: JSON_HEADERS,
        body: {
          initializeUploadRequest: {
            owner: "urn:li:organization:5515715",
            fileSizeBytes: 10,
            uploadCaptions: false,
            uploadThumbnail: false,
          },
        },
      },
      ...[0, 1, 2].map((n) => ({
        method: "PUT",
        path: `/dms-uploads/D4E10AQ7400000000000000001/uploadedVideo/${n}`,
        query: { sau: "fake", part: String(n) },
        headers: { authorization: "Bearer access-token", "content-type": "application/octet-stream" },
        body: { bytes: n === 2 ? 2 : 4 },
      })),
      {
        method: "POST",
        path: "/rest/videos",
        query: { action: "finalizeUpload" },
        headers: JSON_HEADERS,
        body: {
          finalizeUploadRequest: {
            video: urn,
            uploadToken: "ViZXJzaW9uD4E10AQ7400000000000000001",
            uploadedPartIds: ["/ETag-0-4", "/ETag-1-4", "/ETag-2-2"],
          },
        },
      },
      ...[0, 1, 2].map(() => ({
        method: "GET",
        path: `/rest/videos/${encodeURIComponent(urn)}`,
        query: {},
        headers: REST_HEADERS,
        body: null,
      })),
      {
        method: "POST",
        path: "/rest/posts",
        query: {},
        headers: JSON_HEADERS,
        body: {
          author: "urn:li:organization:5515715",
          commentary: "Demo",
          visibility: "PUBLIC",
          distribution: DISTRIBUTION,
          content: { media: { id: urn, title: "Demo video" } },
          lifecycleState: "PUBLISHED",
          isReshareDisabledByAuthor: false,
        },
      },
    ]);
    expect(sleeps).toEqual([5000, 5000]);
  });

  it("fails permanently with LinkedIn's reason when video processing fails, without posting", async () => {
    fake.videoFailure = "VIDEO_CODEC_NOT_SUPPORTED";
    const video = await storeTestMedia("video", new Uint8Array([1, 2, 3]));
    const err = await platformFailure(member.publish(testAdapterContext(), request({ media: [video] })));
    expect({ kind: err.kind, message: err.message }).toEqual({
      kind: "permanent",
      message: "LinkedIn could not process the video: VIDEO_CODEC_NOT_SUPPORTED",
    });
    expect(fake.posts).toEqual([]);
  });

  it("maps a bare 429 to transient, waiting until LinkedIn's daily reset at 00:00 UTC", async () => {
    fake.failNext({ method: "POST", path: "/rest/posts" }, linkedInThrottle);
    const now = Date.UTC(2026, 0, 15, 22, 30, 0);
    const err = await platformFailure(member.publish(testAdapterContext({ now: () => now }), request()));
    expect({
      kind: err.kind,
      retryAfterSeconds: err.retryAfterSeconds,
      status: err.status,
      message: err.message,
    }).toEqual({
      kind: "transient",
      retryAfterSeconds: 5400,
      status: 429,
      message: "Resource level throttle APPLICATION DAY limit for calls to this resource is reached.",
    });
    // Then the retry goes through.
    const ok = await member.publish(testAdapterContext(), request());
    expect(ok.platformPostId).toBe("urn:li:share:7400000000000000001");
    expect(fake.posts).toHaveLength(1);
  });

  it("honours Retry-After when a 429 carries one", async () => {
    fake.failNext({ path: "/rest/posts" }, () => {
      const r = linkedInThrottle();
      r.headers.set("retry-after", "120");
      return r;
    });
    const err = await platformFailure(member.publish(testAdapterContext(), request()));
    expect([err.kind, err.retryAfterSeconds]).toEqual(["transient", 120]);
  });

  it("maps a 5xx to transient", async () => {
    fake.failNext({ path: "/rest/posts" }, () =>
      linkedInError(503, "SERVICE_UNAVAILABLE", "Unable to obtain activity"),
    );
    const err = await platformFailure(member.publish(testAdapterContext(), request()));
    expect({ kind: err.kind, status: err.status, message: err.message, retry: err.retryAfterSeconds }).toEqual({
      kind: "transient",
      status: 503,
      message: "Unable to obtain activity",
      retry: undefined,
    });
  });

  it("maps an expired token to kind auth", async () => {
    fake.expiredTokens.add("access-token");
    const err = await platformFailure(member.publish(testAdapterContext(), request()));
    expect({ kind: err.kind, status: err.status, message: err.message }).toEqual({
      kind: "auth",
      status: 401,
      message: "The token used in the request has expired",
    });
  });

  it("fails permanently with LinkedIn's message when the content is rejected", async () => {
    const err = await platformFailure(member.publish(testAdapterContext(), request({ content: "x".repeat(3001) })));
    expect({ kind: err.kind, status: err.status, message: err.message }).toEqual({
      kind: "permanent",
      status: 422,
      message: "/commentary :: length of the text must not exceed 3000 characters",
    });
  });

  it("sends the LINKEDIN_API_VERSION var; a sunset version (426) names the version and the setting", async () => {
    const ctx = testAdapterContext();
    const moved = testAdapterContext({ config: { ...ctx.config, LINKEDIN_API_VERSION: "202610" } });
    await member.publish(moved, request());
    expect(fake.calls.at(-1)!.headers["linkedin-version"]).toBe("202610");

    const sunset = testAdapterContext({ config: { ...ctx.config, LINKEDIN_API_VERSION: "202501" } });
    const err = await platformFailure(member.publish(sunset, request()));
    expect([err.kind, err.status, err.message]).toEqual([
      "permanent",
      426,
      'LinkedIn API version 202501 is no longer served; set LINKEDIN_API_VERSION to a current version (docs/configuration.md "Moving the LinkedIn version"). LinkedIn: Requested version 202501 is not active',
    ]);
  });

  it("refuses a video inside a carousel before calling LinkedIn", async () => {
    const media = [await storeTestMedia("image"), await storeTestMedia("video")];
    const err = await platformFailure(
      member.publish(testAdapterContext(), request({ contentType: "linkedin_carousel", media })),
    );
    expect([err.kind, err.message]).toEqual(["permanent", "LinkedIn carousels accept images only."]);
    expect(fake.calls).toEqual([]);
  });
});

describe("LinkedIn refresh", () => {
  it("exchanges the refresh token at /oauth/v2/accessToken", async () => {
    const now = 1_800_000_000_000;
    const account = testAccount("linkedin", {
      credentials: { access_token: "old", refresh_token: "refresh-token", expires_at: 1 },
    });
    const refreshed = await member.refresh!(testAdapterContext({ now: () => now }), account);
    expect(refreshed).toEqual({
      credentials: {
        access_token: "li-access-1",
        refresh_token: "refresh-token",
        expires_at: now + 5_184_000_000,
        // What is left of the refresh token's year, as LinkedIn's answer says (refresh_token_expires_in).
        refresh_expires_at: now + 31_535_999_000,
      },
      expiresAt: now + 5_184_000_000,
    });
    expect(fake.calls.map(view)).toEqual([
      {
        method: "POST",
        path: "/oauth/v2/accessToken",
        query: {},
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: {
          grant_type: "refresh_token",
          refresh_token: "refresh-token",
          client_id: "li-client",
          client_secret: "li-secret",
        },
      },
    ]);
    expect(fake.calls[0]!.origin).toBe("https://linkedin-oauth.fake");
  });

  it("maps a refused refresh (invalid_grant) to kind auth with LinkedIn's description", async () => {
    const account = testAccount("linkedin-page", { credentials: { access_token: "old", refresh_token: "revoked" } });
    const err = await platformFailure(page.refresh!(testAdapterContext(), account));
    expect({ kind: err.kind, status: err.status, message: err.message }).toEqual({
      kind: "auth",
      status: 400,
      message: "The provided authorization grant or refresh token is invalid, expired or revoked",
    });
  });

  it("fails auth without a call when the account has no refresh token", async () => {
    const account = testAccount("linkedin", { credentials: { access_token: "old" } });
    const err = await platformFailure(member.refresh!(testAdapterContext(), account));
    expect([err.kind, err.message]).toEqual(["auth", "The LinkedIn account has no refresh token; reconnect it."]);
    expect(fake.calls).toEqual([]);
  });
});

describe("LinkedIn metrics", () => {
  it("has no metrics for member posts (platform_not_supported)", () => {
    expect(member.metrics).toBeUndefined();
  });

  it("reads page share statistics into Impressions, Likes, Comments, Shares, Clicks", async () => {
    fake.shareStatistics.set("urn:li:share:7123", {
      uniqueImpressionsCount: 410,
      shareCount: 3,
      engagement: 0.0412,
      clickCount: 17,
      likeCount: 25,
      impressionCount: 1024,
      commentCount: 4,
    });
    const account = testAccount("linkedin-page", { platformUserId: "5515715" });
    const metrics = await page.metrics!(testAdapterContext(), {
      platformPostId: "urn:li:share:7123",
      platformUrl: null,
      contentType: "linkedin_page_post",
      account,
    });
    expect(metrics).toEqual([
      { label: "Impressions", value: 1024 },
      { label: "Likes", value: 25 },
      { label: "Comments", value: 4 },
      { label: "Shares", value: 3 },
      { label: "Clicks", value: 17 },
    ]);
    expect(fake.calls.map(view)).toEqual([
      {
        method: "GET",
        path: "/rest/organizationalEntityShareStatistics",
        query: {
          q: "organizationalEntity",
          organizationalEntity: "urn:li:organization:5515715",
          shares: "List(urn:li:share:7123)",
        },
        headers: REST_HEADERS,
        body: null,
      },
    ]);
  });

  it("maps an auth failure on metrics to kind auth", async () => {
    fake.expiredTokens.add("access-token");
    const err = await platformFailure(
      page.metrics!(testAdapterContext(), {
        platformPostId: "urn:li:ugcPost:1",
        platformUrl: null,
        contentType: "linkedin_page_post",
        account: testAccount("linkedin-page"),
      }),
    );
    expect(err.kind).toBe("auth");
  });
});
