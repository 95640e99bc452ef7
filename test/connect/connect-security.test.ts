import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config";
import { sealSecret } from "../../src/lib/sealing";
import { tokenId } from "../../src/services/connect/tokens";
import { deliverThroughRuntime, readRow, seedPost } from "../publishing/support";
import { fakeFacebookGraph } from "../support/fakes/meta";
import { createTestWorkspace, type TestWorkspace } from "../support/harness";
import { browse, connectThroughApi, consent, formOf, postForm } from "../support/oauth/browser";
import { type FakeNetwork, fakeFacebookOAuth } from "../support/oauth/fake-oauth";
import { countSocialAccounts, installConnectedX, installOAuthNetwork } from "../support/oauth/install";

/**
 * Issue 18 security and error cases: each refused with a clear page (and `?error=` on the redirect URL when the
 * state named one), and nothing stored.
 */
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const off of cleanups.splice(0).reverse()) off();
});

const xNetwork = (token?: string) => installConnectedX(cleanups, token);

function facebookNetwork(): FakeNetwork {
  const graph = fakeFacebookGraph();
  cleanups.push(graph.uninstall);
  const net = fakeFacebookOAuth({ authOrigin: "https://facebook-auth.fake", graphOrigin: "https://facebook.fake" });
  cleanups.push(installOAuthNetwork(net));
  return net;
}

const countAccounts = (ws: TestWorkspace) => countSocialAccounts(ws.workspaceId);
const countStates = async (ws: TestWorkspace) =>
  (
    await env.DB.prepare("SELECT COUNT(*) AS n FROM oauth_states WHERE workspace_id = ?")
      .bind(ws.workspaceId)
      .first<{ n: number }>()
  )?.n;

function errorPage(res: { status: number; text: string; headers: Headers }, message: string) {
  expect(res.status).toBe(400);
  expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.text).toContain("<h1>The account was not connected</h1>");
  expect(res.text).toContain(message);
}

function redirectedTo(res: { status: number; headers: Headers }) {
  expect(res.status).toBe(303);
  const url = new URL(res.headers.get("location")!);
  return { at: url.origin + url.pathname, params: Object.fromEntries(url.searchParams) };
}

describe("connect: refused states", () => {
  it("a state moved to another workspace is refused; neither workspace gets an account", async () => {
    const a = await createTestWorkspace();
    const b = await createTestWorkspace();
    xNetwork();
    const start = await a.api("POST", "/api/social-accounts/connect", { platform: "x" });
    const callbackPath = await consent(start.body.url);
    const url = new URL(callbackPath, "https://api.test");
    const state = url.searchParams.get("state")!;
    url.searchParams.set("state", state.replace(a.workspaceId, b.workspaceId));
    const res = await browse("GET", url.pathname + url.search);
    errorPage(res, "This sign-in link is invalid or was already used.");
    expect(await countAccounts(a)).toBe(0);
    expect(await countAccounts(b)).toBe(0);
    // The genuine state was not consumed by the forgery.
    expect(await countStates(a)).toBe(1);
  });

  it("a state issued for one network is refused at another network's callback", async () => {
    const ws = await createTestWorkspace();
    xNetwork();
    const start = await ws.api("POST", "/api/social-accounts/connect", { platform: "x" });
    const callbackPath = await consent(start.body.url);
    const res = await browse("GET", callbackPath.replace("/api/oauth/x/", "/api/oauth/tiktok/"));
    errorPage(res, "This sign-in link is invalid or was already used.");
    expect(await countAccounts(ws)).toBe(0);
  });

  it("an expired state is refused, sends the browser back with ?error=invalid_state, stores nothing", async () => {
    const ws = await createTestWorkspace();
    const { net } = xNetwork();
    const start = await ws.api("POST", "/api/social-accounts/connect", {
      platform: "x",
      redirect_url: "https://app.example/connected",
    });
    const callbackPath = await consent(start.body.url);
    await env.DB.prepare("UPDATE oauth_states SET expires_at = ? WHERE workspace_id = ?")
      .bind(Date.now() - 1, ws.workspaceId)
      .run();
    const res = await browse("GET", callbackPath);
    expect(redirectedTo(res)).toEqual({
      at: "https://app.example/connected",
      params: {
        error: "invalid_state",
        error_description: "This sign-in link has expired. Start connecting the account again.",
      },
    });
    expect(await countAccounts(ws)).toBe(0);
    expect(await countStates(ws)).toBe(0);
    expect(net.oauth.tokenRequests).toHaveLength(0);
  });

  it("a replayed callback is refused; the first one connected exactly one account", async () => {
    const ws = await createTestWorkspace();
    const { net } = xNetwork();
    const { callback, callbackPath } = await connectThroughApi(ws, { platform: "x" });
    expect(callback.status).toBe(200);
    const replay = await browse("GET", callbackPath);
    errorPage(replay, "This sign-in link is invalid or was already used.");
    expect(await countAccounts(ws)).toBe(1);
    expect(net.oauth.tokenRequests).toHaveLength(1);
  });

  it("two callbacks racing on one state: exactly one connects", async () => {
    const ws = await createTestWorkspace();
    xNetwork();
    const start = await ws.api("POST", "/api/social-accounts/connect", { platform: "x" });
    const callbackPath = await consent(start.body.url);
    const [one, two] = await Promise.all([browse("GET", callbackPath), browse("GET", callbackPath)]);
    expect([one.status, two.status].sort()).toEqual([200, 400]);
    expect(await countAccounts(ws)).toBe(1);
  });

  it("a callback whose state has no PKCE verifier is refused before any token request", async () => {
    const ws = await createTestWorkspace();
    const { net } = xNetwork();
    const start = await ws.api("POST", "/api/social-accounts/connect", { platform: "x" });
    const callbackPath = await consent(start.body.url);
    const nonce = new URL(callbackPath, "https://api.test").searchParams.get("state")!.split(".")[1]!;
    const id = await tokenId(nonce);
    const sealed = await sealSecret(
      { config: loadConfig(env) },
      { table: "oauth_states", row: id },
      { code_verifier: null, redirect_url: null, instance: null, link_id: null },
    );
    await env.DB.prepare("UPDATE oauth_states SET sealed = ? WHERE id = ?").bind(sealed, id).run();
    const res = await browse("GET", callbackPath);
    errorPage(res, "This sign-in has no PKCE verifier and cannot be completed. Start again.");
    expect(net.oauth.tokenRequests).toHaveLength(0);
    expect(await countAccounts(ws)).toBe(0);
  });

  it("a callback without state is refused", async () => {
    const res = await browse("GET", "/api/oauth/x/callback?code=abc");
    errorPage(res, "The sign-in answer carries no state. Start again.");
  });
});

describe("connect: refused starts", () => {
  it("redirect_url outside the allow-list: 422, no state stored", async () => {
    const ws = await createTestWorkspace();
    for (const redirect_url of [
      "https://evil.example/cb",
      "https://app.example.evil.test/",
      "javascript:alert(1)",
      "not a url",
    ]) {
      const res = await ws.api("POST", "/api/social-accounts/connect", { platform: "x", redirect_url });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        message: "The redirect url is not on this server's allow-list.",
        errors: { redirect_url: ["The redirect url is not on this server's allow-list."] },
      });
    }
    expect(await countStates(ws)).toBe(0);
  });

  it("this server's own dashboard pages are allowed without the allow-list; its other paths are not", async () => {
    const ws = await createTestWorkspace();
    for (const redirect_url of [
      "https://api.test/api/workspace",
      "https://api.test/application",
      "http://api.test/app",
    ]) {
      const res = await ws.api("POST", "/api/social-accounts/connect", { platform: "x", redirect_url });
      expect(res.status, redirect_url).toBe(422);
      expect(res.body.errors).toEqual({ redirect_url: ["The redirect url is not on this server's allow-list."] });
    }
    expect(await countStates(ws)).toBe(0);
    xNetwork();
    const { callback } = await connectThroughApi(ws, { platform: "x", redirect_url: "https://api.test/app/accounts" });
    const accounts = await ws.api("GET", "/api/social-accounts");
    expect(redirectedTo(callback)).toEqual({
      at: "https://api.test/app/accounts",
      params: { connected: "x", accounts: accounts.body[0].id },
    });
  });

  it("Bluesky, a missing Mastodon instance and an unknown platform are clear 422s; no key is 401", async () => {
    const ws = await createTestWorkspace();
    expect((await ws.api("POST", "/api/social-accounts/connect", { platform: "bluesky" })).body).toEqual({
      message: "Bluesky connects with an app password: use POST /api/social-accounts or the hosted connect page.",
      errors: {
        platform: ["Bluesky connects with an app password: use POST /api/social-accounts or the hosted connect page."],
      },
    });
    const masto = await ws.api("POST", "/api/social-accounts/connect", {
      platform: "mastodon",
      instance: "http://plain.test",
    });
    expect(masto.status).toBe(422);
    expect(masto.body.errors).toEqual({
      instance: ["The instance field must be an https address of a Mastodon server."],
    });
    const unknown = await ws.api("POST", "/api/social-accounts/connect", { platform: "myspace" });
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body.errors)).toEqual(["platform"]);
    const anonymous = await browse("POST", "/api/social-accounts/connect", {
      body: JSON.stringify({ platform: "x" }),
      headers: { "Content-Type": "application/json" },
    });
    expect(anonymous.status).toBe(401);
    expect(await countStates(ws)).toBe(0);
  });
});

describe("connect: failures at the network", () => {
  it("denied consent: back to redirect_url with ?error=access_denied, nothing stored", async () => {
    const ws = await createTestWorkspace();
    const net = facebookNetwork();
    net.oauth.decision = "deny";
    const { callback } = await connectThroughApi(ws, {
      platform: "facebook",
      redirect_url: "https://app.example/connected?from=settings",
    });
    expect(redirectedTo(callback)).toEqual({
      at: "https://app.example/connected",
      params: {
        from: "settings",
        error: "access_denied",
        error_description: "Facebook Page access was not granted, so no account was connected.",
      },
    });
    expect(await countAccounts(ws)).toBe(0);
  });

  it("a code exchange failure shows the network's reason, nothing stored", async () => {
    const ws = await createTestWorkspace();
    const { net } = xNetwork();
    net.oauth.failNextToken = {
      status: 400,
      error: "invalid_request",
      description: "Value passed for the token was invalid.",
    };
    const { callback } = await connectThroughApi(ws, { platform: "x" });
    errorPage(callback, "X refused the authorization code: Value passed for the token was invalid.");
    expect(await countAccounts(ws)).toBe(0);
  });

  it("a used code answered with Meta's envelope is an exchange failure", async () => {
    const ws = await createTestWorkspace();
    const net = facebookNetwork();
    net.oauth.failNextToken = {
      status: 400,
      error: "invalid_grant",
      description: "This authorization code has been used.",
    };
    const { callback } = await connectThroughApi(ws, { platform: "facebook" });
    errorPage(callback, "Facebook refused the authorization code: This authorization code has been used.");
    expect(await countAccounts(ws)).toBe(0);
  });

  it("missing scopes are named and nothing is stored", async () => {
    const ws = await createTestWorkspace();
    const { net } = xNetwork();
    net.oauth.grantScopes = ["tweet.read", "users.read"];
    const { callback } = await connectThroughApi(ws, { platform: "x" });
    errorPage(
      callback,
      "X did not grant these permissions: tweet.write, media.write, offline.access. Connect again and allow them.",
    );
    expect(await countAccounts(ws)).toBe(0);
  });

  it("no usable account: a Facebook login whose Pages have no Instagram account", async () => {
    const ws = await createTestWorkspace();
    const net = facebookNetwork();
    const pages = net.data.pages as { instagram_business_account?: unknown }[];
    for (const p of pages) delete p.instagram_business_account;
    const { callback } = await connectThroughApi(ws, {
      platform: "instagram-facebook",
      redirect_url: "https://other.example/back",
    });
    expect(redirectedTo(callback).params).toEqual({
      error: "no_accounts",
      error_description:
        "None of this login's Facebook Pages has an Instagram professional account linked. Link one in the Page settings.",
    });
    expect(await countAccounts(ws)).toBe(0);
  });
});

describe("connect: selection page", () => {
  it("needs its form MAC, refuses cross-site posts, applies one pick once", async () => {
    const ws = await createTestWorkspace();
    facebookNetwork();
    const { callback } = await connectThroughApi(ws, { platform: "facebook" });
    const selectPath = callback.headers.get("location")!;
    const page = await browse("GET", selectPath);
    // No token of the network is in the page.
    expect(page.text).not.toContain("page-token");
    expect(page.text).not.toContain("facebook-access");
    const { action, csrf } = formOf(page.text);
    expect((await postForm(action, [["account", "0"]])).status).toBe(403);
    expect(
      (
        await postForm(
          action,
          [
            ["csrf", csrf],
            ["account", "0"],
          ],
          { "Sec-Fetch-Site": "cross-site" },
        )
      ).status,
    ).toBe(403);
    expect(
      (
        await postForm(
          action,
          [
            ["csrf", csrf],
            ["account", "0"],
          ],
          { "Sec-Fetch-Site": "same-origin", Origin: "https://evil.example" },
        )
      ).status,
    ).toBe(403);
    const none = await postForm(action, [["csrf", csrf]]);
    expect(none.status).toBe(422);
    expect(none.text).toContain("Pick at least one account.");
    expect(await countAccounts(ws)).toBe(0);
    const [first, second] = await Promise.all([
      postForm(action, [
        ["csrf", csrf],
        ["account", "0"],
        ["account", "2"],
      ]),
      postForm(action, [
        ["csrf", csrf],
        ["account", "0"],
        ["account", "2"],
      ]),
    ]);
    // The loser finds the selection gone (404) or consumed under it (409); either way nothing twice.
    expect([200, 404, 409]).toContain(second.status === 200 ? first.status : second.status);
    expect([first.status, second.status].filter((s) => s === 200)).toHaveLength(1);
    expect(await countAccounts(ws)).toBe(2);
  });
});

describe("reconnect", () => {
  it("connecting the same account again updates its tokens on the same row; its posts keep publishing", async () => {
    const ws = await createTestWorkspace();
    const { net, x } = xNetwork("x-first-token");
    await connectThroughApi(ws, { platform: "x" });
    const [before] = (await ws.api("GET", "/api/social-accounts")).body;
    // The account was disconnected (tokens erased) and a post still targets it.
    expect((await ws.api("DELETE", `/api/social-accounts/${before.id}`)).status).toBe(204);
    const post = await seedPost(ws, {
      content: "Still going",
      rows: [{ accountId: before.id, platform: "x", contentType: "x_post" }],
    });

    x.accessTokens.delete("x-first-token");
    x.accessTokens.add("x-second-token");
    net.oauth.nextAccessToken = () => "x-second-token";
    const { callback } = await connectThroughApi(ws, { platform: "x" });
    expect(callback.status).toBe(200);
    const after = (await ws.api("GET", "/api/social-accounts")).body;
    expect(after).toEqual([{ ...before, status: "connected", is_active: true, updated_at: expect.any(String) }]);

    await deliverThroughRuntime(post.messages);
    expect((await readRow(post.rowIds[0]!))?.status).toBe("published");
  });

  it("the credentials endpoint reconnects the same identity instead of adding a row", async () => {
    const ws = await createTestWorkspace();
    const body = (token: string) => ({
      platform: "x",
      display_name: "Alice",
      username: "alice_x",
      platform_user_id: "2244994945",
      credentials: { access_token: token },
    });
    const one = await ws.api("POST", "/api/social-accounts", body("t1"));
    const two = await ws.api("POST", "/api/social-accounts", body("t2"));
    expect(one.status).toBe(201);
    expect(two.status).toBe(201);
    expect(two.body.id).toBe(one.body.id);
    expect(await countAccounts(ws)).toBe(1);
  });
});
