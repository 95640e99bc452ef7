// fresh storage: our OAuth app is registered once per Mastodon instance and kept in D1; this file fakes its own.
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createTestWorkspace,
  deliverThroughRuntime,
  instantLongWaits,
  openAccountCredentials,
  readRow,
  seedMedia,
  seedPost,
} from "../publishing/support";
import { fakeLinkedIn } from "../support/fakes/linkedin";
import { FakeMastodon, MASTODON } from "../support/fakes/mastodon";
import { fakeFacebookGraph, fakeInstagramGraph } from "../support/fakes/meta";
import { fakePinterest } from "../support/fakes/pinterest";
import { fakeThreads } from "../support/fakes/threads";
import { fakeTikTok } from "../support/fakes/tiktok";
import { FakeX } from "../support/fakes/x";
import { fakeYouTube } from "../support/fakes/youtube";
import { type TestWorkspace, UUID, YMDHIS } from "../support/harness";
import { browse, connectThroughApi, pickAccounts } from "../support/oauth/browser";
import {
  type FakeNetwork,
  fakeFacebookOAuth,
  fakeGoogleOAuth,
  fakeInstagramLoginOAuth,
  fakeLinkedInOAuth,
  fakeMastodonOAuth,
  fakePinterestOAuth,
  fakeThreadsOAuth,
  fakeTikTokOAuth,
  fakeXOAuth,
} from "../support/oauth/fake-oauth";
import { installOAuthNetwork } from "../support/oauth/install";

/**
 * Issue 18, per network: connect (API) → consent on the fake network → callback (→ selection page) → the account
 * is listed → a post publishes through the real queue consumer with the stored token (each publishing fake only
 * accepts the token the fake OAuth provider issued).
 */

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const off of cleanups.splice(0).reverse()) off();
});

function use(net: FakeNetwork, token: string): FakeNetwork {
  net.oauth.nextAccessToken = () => token;
  cleanups.push(installOAuthNetwork(net));
  return net;
}

/** Issue 29: whether the service renews each network's token, and when access ends (docs/account-health.md). */
const UNRENEWED = new Set(["facebook", "instagram-facebook", "mastodon"]);
/**
 * Seconds the refresh token lives, as each fake network's token answer says (`refresh_token_expires_in` /
 * `refresh_expires_in`): the account's access ends then unless reconnected, so `expires_at` shows it.
 */
const REFRESH_LIFE_S: Record<string, number> = {
  linkedin: 31_535_999,
  "linkedin-page": 31_535_999,
  tiktok: 15_552_000,
  // Continuous refresh tokens: 60 days (fake-oauth.ts, Pinterest's docs quoted there).
  pinterest: 5_184_000,
};
/** `Y-m-d H:i:s` of `ms`, give or take 3 seconds (the connect ran moments ago). */
const aroundYmdHis = (ms: number) =>
  new RegExp(
    `^(${[-3, -2, -1, 0, 1, 2, 3]
      .map((d) => new Date(ms + d * 1000).toISOString().slice(0, 19).replace("T", " "))
      .join("|")})$`,
  );
const account = (platform: string, display_name: string, username: string, avatar_url: string | null) => ({
  id: expect.stringMatching(UUID),
  platform,
  display_name,
  username,
  avatar_url,
  is_active: true,
  status: "connected",
  expires_at: REFRESH_LIFE_S[platform]
    ? expect.stringMatching(aroundYmdHis(Date.now() + REFRESH_LIFE_S[platform]! * 1000))
    : null,
  refreshable: !UNRENEWED.has(platform),
  health: "ok",
  health_reason: null,
  created_at: expect.stringMatching(YMDHIS),
  updated_at: expect.stringMatching(YMDHIS),
});

async function listed(ws: TestWorkspace) {
  const res = await ws.api("GET", "/api/social-accounts");
  expect(res.status).toBe(200);
  return res.body as { id: string; platform: string; display_name: string }[];
}

/** One post row on the account through the queue consumer; returns the row as stored after the attempt. */
async function publish(
  ws: TestWorkspace,
  accountId: string,
  platform: string,
  contentType: string,
  opts: { media?: "image" | "video"; content?: string } = {},
) {
  // A small video keeps chunked uploads to one request.
  const bytes = opts.media === "video" ? new Uint8Array(256 * 1024).fill(7) : undefined;
  const mediaIds = opts.media ? [await seedMedia(ws, opts.media, { bytes })] : [];
  const post = await seedPost(ws, {
    content: opts.content ?? `Hello from a connected ${platform} account`,
    rows: [{ accountId, platform, contentType }],
    mediaIds,
  });
  // YouTube's processing polls wait 5 s each: no real sleep in a test.
  instantLongWaits();
  cleanups.push(() => vi.unstubAllGlobals());
  await deliverThroughRuntime(post.messages);
  const row = await readRow(post.rowIds[0]!);
  expect(row?.error_message ?? null).toBeNull();
  expect(row?.status).toBe("published");
  return row!;
}

function redirectParams(location: string | null) {
  const url = new URL(location!);
  return { origin: url.origin + url.pathname, params: Object.fromEntries(url.searchParams) };
}

describe("connect flow per network", () => {
  it("X: PKCE S256 consent → account → tweet with the stored token", async () => {
    const ws = await createTestWorkspace();
    const x = new FakeX();
    cleanups.push(x.install());
    x.accessTokens.add("x-connected-token");
    const net = use(
      fakeXOAuth({ authOrigin: "https://x-auth.fake", apiOrigin: "https://x.fake" }),
      "x-connected-token",
    );

    const started = Date.now();
    const { start, consentAt, callback } = await connectThroughApi(ws, {
      platform: "x",
      redirect_url: "https://app.example/done",
    });
    const consentUrl = new URL(consentAt);
    expect(consentUrl.origin + consentUrl.pathname).toBe("https://x-auth.fake/i/oauth2/authorize");
    expect(Object.fromEntries(consentUrl.searchParams)).toEqual({
      response_type: "code",
      client_id: "x-client",
      redirect_uri: "https://api.test/api/oauth/x/callback",
      scope: "tweet.read tweet.write users.read media.write offline.access",
      state: expect.stringMatching(new RegExp(`^${ws.workspaceId}\\.[A-Za-z0-9_-]{43}\\.[0-9a-f]{32}$`)),
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: "S256",
    });
    // Ten minutes from the start (whole seconds), however long the consent round trip took.
    expect(Date.parse(start.body.expires_at) - started).toBeGreaterThan(599_000);
    // The verifier went to the token endpoint, with Basic client auth.
    expect(net.oauth.tokenRequests[0]!.get("code_verifier")).toMatch(/^[A-Za-z0-9_-]{64}$/);

    expect(callback.status).toBe(303);
    const accounts = await listed(ws);
    expect(accounts).toEqual([account("x", "Alice Example", "alice_x", "https://pbs.twimg.fake/alice.jpg")]);
    expect(redirectParams(callback.headers.get("location"))).toEqual({
      origin: "https://app.example/done",
      params: { connected: "x", accounts: accounts[0]!.id },
    });
    const creds = await openAccountCredentials(accounts[0]!.id);
    expect(creds).toEqual({
      access_token: "x-connected-token",
      refresh_token: "x-refresh-1",
      expires_at: expect.any(Number),
    });
    const row = await publish(ws, accounts[0]!.id, "x", "x_post");
    expect(row.platform_url).toMatch(/^https:\/\/x\.com\/alice_x\/status\/\d+$/);
  });

  it("LinkedIn member: consent → member account → post", async () => {
    const ws = await createTestWorkspace();
    const li = fakeLinkedIn();
    cleanups.push(li.uninstall);
    li.validTokens.add("li-connected-token");
    use(
      fakeLinkedInOAuth({ oauthOrigin: "https://linkedin-oauth.fake", apiOrigin: "https://linkedin.fake" }),
      "li-connected-token",
    );

    const { consentAt, callback } = await connectThroughApi(ws, { platform: "linkedin" });
    const consentUrl = new URL(consentAt);
    expect(consentUrl.origin + consentUrl.pathname).toBe("https://linkedin-oauth.fake/oauth/v2/authorization");
    expect(consentUrl.searchParams.get("scope")).toBe("openid profile w_member_social");
    expect(consentUrl.searchParams.get("code_challenge")).toBeNull();
    expect(callback.status).toBe(200);
    expect(callback.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(callback.text).toContain("Alice Example (linkedin)");
    const accounts = await listed(ws);
    expect(accounts).toEqual([
      // No handle: LinkedIn's userinfo has none, and the email is not one (issue 35).
      account("linkedin", "Alice Example", "", "https://media.licdn.fake/alice.jpg"),
    ]);
    await publish(ws, accounts[0]!.id, "linkedin", "linkedin_post");
  });

  it("LinkedIn Page: the administered organizations are offered; both picked become two accounts", async () => {
    const ws = await createTestWorkspace();
    const li = fakeLinkedIn();
    cleanups.push(li.uninstall);
    li.validTokens.add("li-page-token");
    use(
      fakeLinkedInOAuth({ oauthOrigin: "https://linkedin-oauth.fake", apiOrigin: "https://linkedin.fake" }),
      "li-page-token",
    );

    const { consentAt, callback } = await connectThroughApi(ws, { platform: "linkedin-page" });
    expect(new URL(consentAt).searchParams.get("scope")).toBe(
      "openid profile w_member_social w_organization_social r_organization_social rw_organization_admin",
    );
    const done = await pickAccounts(callback, [0, 1]);
    expect(done.status).toBe(200);
    const accounts = await listed(ws);
    expect(accounts).toEqual([
      account("linkedin-page", "Acme Corp", "acme", null),
      account("linkedin-page", "Acme Labs", "acme-labs", null),
    ]);
    await publish(ws, accounts[1]!.id, "linkedin-page", "linkedin_page_post");
  });

  it("Facebook: Pages with their Page tokens; the user picks two of three", async () => {
    const ws = await createTestWorkspace();
    const graph = fakeFacebookGraph();
    cleanups.push(graph.uninstall);
    graph.validTokens.add("page-token-102");
    use(
      fakeFacebookOAuth({ authOrigin: "https://facebook-auth.fake", graphOrigin: "https://facebook.fake" }),
      "fb-user-token",
    );

    const { consentAt, callback } = await connectThroughApi(ws, { platform: "facebook" });
    const consentUrl = new URL(consentAt);
    expect(consentUrl.origin + consentUrl.pathname).toBe("https://facebook-auth.fake/v26.0/dialog/oauth");
    expect(consentUrl.searchParams.get("scope")).toBe(
      "pages_show_list,pages_read_engagement,pages_manage_posts,read_insights,business_management,pages_manage_engagement",
    );
    const done = await pickAccounts(callback, [0, 1]);
    expect(done.status).toBe(200);
    const accounts = await listed(ws);
    expect(accounts).toEqual([
      account("facebook", "Acme Bakery", "101", "https://scontent.fake/page-101.jpg"),
      account("facebook", "Acme Cafe", "102", "https://scontent.fake/page-102.jpg"),
    ]);
    expect(await openAccountCredentials(accounts[1]!.id)).toEqual({ access_token: "page-token-102", expires_at: null });
    await publish(ws, accounts[1]!.id, "facebook", "facebook_post");
  });

  it("Instagram via Facebook: the business accounts behind the Pages, published with the Page token", async () => {
    const ws = await createTestWorkspace();
    const graph = fakeFacebookGraph();
    cleanups.push(graph.uninstall);
    graph.validTokens.add("page-token-101");
    use(
      fakeFacebookOAuth({ authOrigin: "https://facebook-auth.fake", graphOrigin: "https://facebook.fake" }),
      "fb-user-token",
    );

    const { callback } = await connectThroughApi(ws, { platform: "instagram-facebook" });
    const page = await browse("GET", callback.headers.get("location")!);
    // Page 103 has no Instagram account: only two choices.
    expect(page.text.match(/name="account"/g)).toHaveLength(2);
    const done = await pickAccounts(callback, [0]);
    expect(done.status).toBe(200);
    const accounts = await listed(ws);
    expect(accounts).toEqual([
      account("instagram-facebook", "Acme Bakery", "acme.bakery", "https://scontent.fake/101.jpg"),
    ]);
    await publish(ws, accounts[0]!.id, "instagram-facebook", "instagram_feed", { media: "image" });
  });

  it("Instagram Login: short-lived → long-lived token, profile from graph.instagram.com", async () => {
    const ws = await createTestWorkspace();
    const ig = fakeInstagramGraph();
    cleanups.push(ig.uninstall);
    ig.validTokens.add("ig-short-long");
    use(
      fakeInstagramLoginOAuth({
        authOrigin: "https://instagram-auth.fake",
        oauthOrigin: "https://instagram-oauth.fake",
        graphOrigin: "https://instagram.fake",
      }),
      "ig-short",
    );
    const { consentAt, callback } = await connectThroughApi(ws, { platform: "instagram" });
    const consentUrl = new URL(consentAt);
    expect(consentUrl.origin + consentUrl.pathname).toBe("https://instagram-auth.fake/oauth/authorize");
    expect(consentUrl.searchParams.get("client_id")).toBe("ig-app");
    expect(callback.status).toBe(200);
    const accounts = await listed(ws);
    expect(accounts).toEqual([account("instagram", "Acme Shop", "acme.shop", "https://scontent.fake/ig.jpg")]);
    expect(await openAccountCredentials(accounts[0]!.id)).toEqual({
      access_token: "ig-short-long",
      expires_at: expect.any(Number),
    });
    await publish(ws, accounts[0]!.id, "instagram", "instagram_feed", { media: "image" });
  });

  it("Threads: short-lived → long-lived token → threads_post", async () => {
    const ws = await createTestWorkspace();
    const th = fakeThreads();
    cleanups.push(th.uninstall);
    th.validTokens.add("th-short-long");
    use(fakeThreadsOAuth({ authOrigin: "https://threads-auth.fake", graphOrigin: "https://threads.fake" }), "th-short");
    const { callback } = await connectThroughApi(ws, { platform: "threads" });
    expect(callback.status).toBe(200);
    const accounts = await listed(ws);
    expect(accounts).toEqual([account("threads", "Acme Threads", "acme.threads", "https://scontent.fake/th.jpg")]);
    await publish(ws, accounts[0]!.id, "threads", "threads_post");
  });

  it("TikTok: Login Kit v2 with PKCE → video published with the stored token", async () => {
    const ws = await createTestWorkspace();
    const tt = fakeTikTok({ accessTokens: ["tt-connected-token"], statuses: ["PUBLISH_COMPLETE"] });
    cleanups.push(tt.stop);
    const net = use(
      fakeTikTokOAuth({ authOrigin: "https://tiktok-auth.fake", apiOrigin: "https://tiktok.fake" }),
      "tt-connected-token",
    );
    const { consentAt, callback } = await connectThroughApi(ws, { platform: "tiktok" });
    const consentUrl = new URL(consentAt);
    expect(consentUrl.searchParams.get("client_key")).toBe("tt-key");
    expect(consentUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(net.oauth.tokenRequests[0]!.get("code_verifier")).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(callback.status).toBe(200);
    const accounts = await listed(ws);
    expect(accounts).toEqual([account("tiktok", "Acme on TikTok", "acme.tt", "https://p16.tiktokcdn.fake/a.jpeg")]);
    await publish(ws, accounts[0]!.id, "tiktok", "tiktok_video", { media: "video" });
  });

  it("YouTube: channels.list mine=true; the user picks one of two channels", async () => {
    const ws = await createTestWorkspace();
    const yt = fakeYouTube({
      accessTokens: ["yt-connected-token"],
      processing: [{ uploadStatus: "processed", processingStatus: "succeeded" }],
    });
    cleanups.push(yt.stop);
    use(
      fakeGoogleOAuth({
        authOrigin: "https://google-auth.fake",
        tokenOrigin: "https://google-oauth.fake",
        apiOrigin: "https://youtube.fake",
      }),
      "yt-connected-token",
    );
    const { consentAt, callback } = await connectThroughApi(ws, { platform: "youtube" });
    const consentUrl = new URL(consentAt);
    expect(consentUrl.searchParams.get("access_type")).toBe("offline");
    expect(consentUrl.searchParams.get("code_challenge_method")).toBe("S256");
    const done = await pickAccounts(callback, [1]);
    expect(done.status).toBe(200);
    const accounts = await listed(ws);
    expect(accounts).toEqual([
      account("youtube", "Acme Brand", "@acmebrand", "https://yt3.ggpht.fake/UCbrand0000000000000002.jpg"),
    ]);
    await publish(ws, accounts[0]!.id, "youtube", "youtube_short", { media: "video" });
  });

  it("Pinterest: the user picks the default board, used when a post names none", async () => {
    const ws = await createTestWorkspace();
    const pin = fakePinterest({ accessTokens: ["pin-connected-token"] });
    cleanups.push(pin.stop);
    use(
      fakePinterestOAuth({ authOrigin: "https://pinterest-auth.fake", apiOrigin: "https://pinterest.fake" }),
      "pin-connected-token",
    );
    const { callback } = await connectThroughApi(ws, { platform: "pinterest" });
    const done = await pickAccounts(callback, [0]);
    expect(done.status).toBe(200);
    const accounts = await listed(ws);
    expect(accounts).toEqual([account("pinterest", "Acme Pins", "acmepins", "https://i.pinimg.fake/acme.jpg")]);
    await publish(ws, accounts[0]!.id, "pinterest", "pinterest_pin", { media: "image" });
    expect(pin.calls.find((c) => c.method === "POST" && c.path === "/v5/pins")?.json).toMatchObject({
      board_id: "549755885175",
    });
  });

  it("Mastodon: the app registers once per instance, then the code flow; the registration is reused", async () => {
    const ws = await createTestWorkspace();
    const masto = new FakeMastodon();
    cleanups.push(masto.install());
    masto.tokens.add("masto-connected-token");
    const net = use(fakeMastodonOAuth({ instance: MASTODON }), "masto-connected-token");
    const { consentAt, callback } = await connectThroughApi(ws, {
      platform: "mastodon",
      instance: "mastodon.fake",
    });
    const consentUrl = new URL(consentAt);
    expect(consentUrl.origin + consentUrl.pathname).toBe(`${MASTODON}/oauth/authorize`);
    expect(consentUrl.searchParams.get("client_id")).toBe("masto-client-1");
    expect(callback.status).toBe(200);
    const accounts = await listed(ws);
    expect(accounts).toEqual([account("mastodon", "Alice", "alice@mastodon.fake", `${MASTODON}/avatars/alice.png`)]);
    await publish(ws, accounts[0]!.id, "mastodon", "mastodon_post");
    // A second connect on the same instance does not register again.
    const again = await ws.api("POST", "/api/social-accounts/connect", { platform: "mastodon", instance: MASTODON });
    expect(again.status).toBe(200);
    expect((net.data.apps as unknown[]).length).toBe(1);
  });
});
