// Issue 25 (8): PKCE S256 wherever the network accepts it (docs/connect.md cites each network's page): X and TikTok
// (required), Google, Facebook Login (Facebook Pages and Instagram via Facebook) and Mastodon; not LinkedIn (native
// apps only), Instagram Login, Threads or Pinterest (their authorization requests take no code_challenge). The fake
// providers check the verifier against the challenge like the real ones.
import { afterEach, describe, expect, it } from "vitest";
import { fakeFacebookGraph } from "../support/fakes/meta";
import { createTestWorkspace } from "../support/harness";
import { clearCookies, connectThroughApi, continueHop, pickAccounts } from "../support/oauth/browser";
import { fakeFacebookOAuth, fakeTikTokOAuth } from "../support/oauth/fake-oauth";
import { installOAuthNetwork } from "../support/oauth/install";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const off of cleanups.splice(0).reverse()) off();
  clearCookies();
});

async function s256(verifier: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return btoa(String.fromCharCode(...digest))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

async function s256Hex(verifier: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

describe("PKCE wherever the network accepts it", () => {
  it("each network's consent URL carries an S256 challenge exactly where the network documents PKCE", async () => {
    const ws = await createTestWorkspace();
    const withPkce: Record<string, boolean> = {
      x: true,
      tiktok: true,
      youtube: true,
      facebook: true,
      "instagram-facebook": true,
      linkedin: false,
      "linkedin-page": false,
      instagram: false,
      threads: false,
      pinterest: false,
    };
    const seen: Record<string, boolean> = {};
    for (const platform of Object.keys(withPkce)) {
      const start = await ws.api("POST", "/api/social-accounts/connect", { platform });
      expect(start.status, start.text).toBe(200);
      const consent = new URL(await continueHop(start.body.url));
      const challenge = consent.searchParams.get("code_challenge");
      seen[platform] = challenge !== null;
      if (challenge) {
        // TikTok: hex of SHA-256 (Login Kit: "You must use hex encoding of SHA256 to generate the code challenge").
        expect(challenge).toMatch(platform === "tiktok" ? /^[0-9a-f]{64}$/ : /^[A-Za-z0-9_-]{43}$/);
        expect(consent.searchParams.get("code_challenge_method")).toBe("S256");
      } else {
        expect(consent.searchParams.get("code_challenge_method")).toBeNull();
      }
    }
    expect(seen).toEqual(withPkce);
  });

  it("Facebook Login: the verifier goes to the token request and matches the challenge the dialog got", async () => {
    const ws = await createTestWorkspace();
    const graph = fakeFacebookGraph();
    cleanups.push(graph.uninstall);
    const net = fakeFacebookOAuth({ authOrigin: "https://facebook-auth.fake", graphOrigin: "https://facebook.fake" });
    cleanups.push(installOAuthNetwork(net));
    const { consentAt, callback } = await connectThroughApi(ws, { platform: "facebook" });
    const verifier = net.oauth.tokenRequests[0]!.get("code_verifier")!;
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(new URL(consentAt).searchParams.get("code_challenge")).toBe(await s256(verifier));
    expect((await pickAccounts(callback, [0])).status).toBe(200);
  });

  it("the fake Facebook refuses a code whose verifier does not match its challenge, as Facebook does", async () => {
    const net = fakeFacebookOAuth({ authOrigin: "https://facebook-auth.fake", graphOrigin: "https://facebook.fake" });
    const verifier = "v".repeat(64);
    const authorize = new URL("https://facebook-auth.fake/v26.0/dialog/oauth");
    for (const [k, v] of Object.entries({
      client_id: "fb-app",
      redirect_uri: "https://api.test/api/oauth/facebook/callback",
      response_type: "code",
      scope: "pages_show_list",
      code_challenge: await s256(verifier),
      code_challenge_method: "S256",
    }))
      authorize.searchParams.set(k, v);
    const codeOf = async () => {
      const res = await net.routes["https://facebook-auth.fake"]!(new Request(authorize));
      return new URL(res!.headers.get("location")!).searchParams.get("code")!;
    };
    const exchange = async (code: string, codeVerifier: string | null) => {
      const url = new URL("https://facebook.fake/v26.0/oauth/access_token");
      url.searchParams.set("client_id", "fb-app");
      url.searchParams.set("client_secret", "fb-secret");
      url.searchParams.set("redirect_uri", "https://api.test/api/oauth/facebook/callback");
      url.searchParams.set("code", code);
      if (codeVerifier) url.searchParams.set("code_verifier", codeVerifier);
      return (await net.routes["https://facebook.fake"]!(new Request(url)))!;
    };
    expect((await exchange(await codeOf(), "w".repeat(64))).status).toBe(400);
    expect((await exchange(await codeOf(), null)).status).toBe(400);
    expect((await exchange(await codeOf(), verifier)).status).toBe(200);
  });

  // Issue 35: TikTok's Login Kit ("Code Verifier and Code Challenge", https://developers.tiktok.com/doc/login-kit-desktop)
  // says "You must use hex encoding of SHA256 to generate the code challenge"; RFC 7636's base64url form is refused.
  it("TikTok: the consent URL carries hex(SHA-256(verifier)) and the connect completes through the fake", async () => {
    const ws = await createTestWorkspace();
    const net = fakeTikTokOAuth({ authOrigin: "https://tiktok-auth.fake", apiOrigin: "https://tiktok.fake" });
    cleanups.push(installOAuthNetwork(net));
    const { consentAt, callback } = await connectThroughApi(ws, { platform: "tiktok" });
    const verifier = net.oauth.tokenRequests[0]!.get("code_verifier")!;
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(new URL(consentAt).searchParams.get("code_challenge")).toBe(await s256Hex(verifier));
    expect(callback.status, callback.text).toBe(200);
    const accounts = await ws.api("GET", "/api/social-accounts");
    expect(accounts.status).toBe(200);
    expect(accounts.body.map((a: { platform: string; username: string }) => [a.platform, a.username])).toEqual([
      ["tiktok", "acme.tt"],
    ]);
  });

  it("the fake TikTok refuses a base64url challenge (RFC 7636's form) and accepts the hex one", async () => {
    const net = fakeTikTokOAuth({ authOrigin: "https://tiktok-auth.fake", apiOrigin: "https://tiktok.fake" });
    const verifier = "t".repeat(64);
    const codeOf = async (challenge: string) => {
      const authorize = new URL("https://tiktok-auth.fake/v2/auth/authorize/");
      for (const [k, v] of Object.entries({
        client_key: "tt-key",
        redirect_uri: "https://api.test/api/oauth/tiktok/callback",
        response_type: "code",
        scope: "user.info.basic,video.publish",
        code_challenge: challenge,
        code_challenge_method: "S256",
      }))
        authorize.searchParams.set(k, v);
      const res = await net.routes["https://tiktok-auth.fake"]!(new Request(authorize));
      return new URL(res!.headers.get("location")!).searchParams.get("code")!;
    };
    const exchange = async (code: string) =>
      (await net.routes["https://tiktok.fake"]!(
        new Request("https://tiktok.fake/v2/oauth/token/", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            client_key: "tt-key",
            client_secret: "tt-secret",
            code,
            grant_type: "authorization_code",
            redirect_uri: "https://api.test/api/oauth/tiktok/callback",
            code_verifier: verifier,
          }),
        }),
      ))!;
    const refused = await exchange(await codeOf(await s256(verifier)));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error: "invalid_request",
      error_description: "Code verifier or code challenge is invalid.",
      log_id: "20261124000000FAKE",
    });
    const accepted = await exchange(await codeOf(await s256Hex(verifier)));
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({ open_id: "-000OhfsRdYD7Xbk4D1QXyYE1ldXZsNKTwbu", expires_in: 7200 });
  });
});
