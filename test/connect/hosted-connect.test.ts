// fresh storage: our OAuth app is registered once per Mastodon instance and kept in D1; this file fakes its own.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { BSKY_PDS, FakeBluesky } from "../support/fakes/bluesky";
import { FakeMastodon, MASTODON } from "../support/fakes/mastodon";
import { fakeFacebookGraph } from "../support/fakes/meta";
import { createTestWorkspace, type TestWorkspace } from "../support/harness";
import { connectMcp } from "../support/mcp-client";
import { browse, consent, continueHop, formOf, pickAccounts, postForm } from "../support/oauth/browser";
import { fakeFacebookOAuth, fakeMastodonOAuth } from "../support/oauth/fake-oauth";
import { installOAuthNetwork } from "../support/oauth/install";

/** Issue 18: the hosted connect page, driven as a browser would (the Chromium test does it for real). */
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const off of cleanups.splice(0).reverse()) off();
});

const LINK_URL = /^https:\/\/api\.test\/connect\/([A-Za-z0-9_-]{43})$/;

async function newLink(ws: TestWorkspace, body: Record<string, unknown> = {}) {
  const res = await ws.api("POST", "/api/connect-links", body);
  expect(res.status).toBe(201);
  const token = LINK_URL.exec(res.body.url)![1]!;
  return { token, path: `/connect/${token}`, body: res.body };
}

describe("POST /api/connect-links", () => {
  it("returns a link valid for the default day, or the asked lifetime; checks redirect_url and bounds", async () => {
    const ws = await createTestWorkspace();
    // The lifetime counts from a moment between sending and answering (a slow request may take seconds), and the
    // presented time has whole seconds.
    const expectLifetime = (expiresAt: string, seconds: number, before: number, after: number) => {
      expect(Date.parse(expiresAt)).toBeGreaterThan(before + seconds * 1000 - 1000);
      expect(Date.parse(expiresAt)).toBeLessThanOrEqual(after + seconds * 1000);
    };
    let before = Date.now();
    const { body } = await newLink(ws);
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{64}$/),
      url: expect.stringMatching(LINK_URL),
      purpose: null,
      expires_at: expect.any(String),
    });
    expectLifetime(body.expires_at, 86_400, before, Date.now());
    before = Date.now();
    const short = await newLink(ws, { expires_in: 300, redirect_url: "https://app.example/after" });
    expectLifetime(short.body.expires_at, 300, before, Date.now());

    const outside = await ws.api("POST", "/api/connect-links", { redirect_url: "https://evil.example/" });
    expect(outside.status).toBe(422);
    expect(outside.body.errors).toEqual({ redirect_url: ["The redirect url is not on this server's allow-list."] });
    const tooShort = await ws.api("POST", "/api/connect-links", { expires_in: 299 });
    expect(tooShort.status).toBe(422);
    expect(Object.keys(tooShort.body.errors)).toEqual(["expires_in"]);
    const tooLong = await ws.api("POST", "/api/connect-links", { expires_in: 604_801 });
    expect(tooLong.status).toBe(422);
  });

  it("MCP tools return the same links", async () => {
    const ws = await createTestWorkspace();
    const client = await connectMcp(ws.key);
    const link = await client.callTool({ name: "create-connect-link-tool", arguments: { expires_in: 600 } });
    expect(link.isError).toBeFalsy();
    expect((link.structuredContent as { url: string }).url).toMatch(LINK_URL);
    const oauth = await client.callTool({ name: "connect-social-account-tool", arguments: { platform: "pinterest" } });
    expect(oauth.isError).toBeFalsy();
    const hop = (oauth.structuredContent as { url: string }).url;
    expect(hop).toMatch(/^https:\/\/api\.test\/connect\/authorize\/[A-Za-z0-9_-]{43}$/);
    const url = new URL(await continueHop(hop));
    expect(url.origin + url.pathname).toBe("https://pinterest-auth.fake/oauth/");
    const refused = await client.callTool({
      name: "connect-social-account-tool",
      arguments: { platform: "x", redirect_url: "https://evil.example/" },
    });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toEqual({
      message: "The redirect url is not on this server's allow-list.",
      errors: { redirect_url: ["The redirect url is not on this server's allow-list."] },
    });
  });
});

describe("the hosted page", () => {
  it("lists every configured network and the Mastodon and Bluesky forms, with no secret in it", async () => {
    const ws = await createTestWorkspace();
    const { path } = await newLink(ws);
    const page = await browse("GET", path);
    expect(page.status).toBe(200);
    expect(Object.fromEntries(page.headers)).toMatchObject({
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-frame-options": "DENY",
      "content-security-policy": expect.stringContaining("default-src 'none'"),
    });
    const buttons = [...page.text.matchAll(/<button type="submit">Connect ([^<]+)<\/button>/g)].map((m) => m[1]);
    expect(buttons).toEqual([
      "X",
      "LinkedIn",
      "LinkedIn Page",
      "Facebook Page",
      "Instagram (via Facebook)",
      "Instagram",
      "Threads",
      "TikTok",
      "YouTube",
      "Pinterest",
      "Mastodon",
      "Bluesky",
    ]);
    expect(page.text).toContain('<label for="app_password">');
    expect(page.text).not.toMatch(/<script/i);
    for (const secret of [
      "x-secret",
      "li-secret",
      "fb-secret",
      "tt-secret",
      "g-secret",
      "pin-secret",
      "ig-secret",
      "th-secret",
      ws.key,
    ]) {
      expect(page.text).not.toContain(secret);
    }
  });

  it("an unknown or expired link is a 404 page, for the page and its forms", async () => {
    const ws = await createTestWorkspace();
    const { path, token } = await newLink(ws);
    await env.DB.prepare("UPDATE connect_links SET expires_at = ? WHERE workspace_id = ?")
      .bind(Date.now() - 1, ws.workspaceId)
      .run();
    const page = await browse("GET", path);
    expect(page.status).toBe(404);
    expect(page.text).toContain("This connect link has expired or is unknown. Ask for a new one.");
    expect((await postForm(`/connect/${token}/start`, [["platform", "x"]])).status).toBe(404);
    expect((await browse("GET", `/connect/${"a".repeat(43)}`)).status).toBe(404);
  });

  it("start forms need the page's MAC and a same-site post", async () => {
    const ws = await createTestWorkspace();
    const { path } = await newLink(ws);
    const { action, csrf } = formOf((await browse("GET", path)).text);
    expect((await postForm(action, [["platform", "x"]])).status).toBe(403);
    expect(
      (
        await postForm(action, [
          ["csrf", "0".repeat(32)],
          ["platform", "x"],
        ])
      ).status,
    ).toBe(403);
    expect(
      (
        await postForm(
          action,
          [
            ["csrf", csrf],
            ["platform", "x"],
          ],
          { "Sec-Fetch-Site": "cross-site" },
        )
      ).status,
    ).toBe(403);
    const ok = await postForm(action, [
      ["csrf", csrf],
      ["platform", "x"],
    ]);
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toMatch(/^https:\/\/x-auth\.fake\/i\/oauth2\/authorize\?/);
    const bad = await postForm(action, [
      ["csrf", csrf],
      ["platform", "bluesky"],
    ]);
    expect(bad.status).toBe(422);
    expect(bad.text).toContain("Bluesky connects with an app password");
  });

  it("Facebook through a link: choose, consent, pick two Pages, land on the link's redirect URL", async () => {
    const ws = await createTestWorkspace();
    const graph = fakeFacebookGraph();
    cleanups.push(graph.uninstall);
    cleanups.push(
      installOAuthNetwork(
        fakeFacebookOAuth({ authOrigin: "https://facebook-auth.fake", graphOrigin: "https://facebook.fake" }),
      ),
    );
    const { path } = await newLink(ws, { redirect_url: "https://app.example/connected" });
    const { action, csrf } = formOf((await browse("GET", path)).text);
    const start = await postForm(action, [
      ["csrf", csrf],
      ["platform", "facebook"],
    ]);
    expect(start.status).toBe(303);
    const callback = await browse("GET", await consent(start.headers.get("location")!));
    const done = await pickAccounts(callback, [0, 1]);
    expect(done.status).toBe(303);
    const landed = new URL(done.headers.get("location")!);
    const accounts = (await ws.api("GET", "/api/social-accounts")).body as { id: string; display_name: string }[];
    expect(accounts.map((a) => a.display_name)).toEqual(["Acme Bakery", "Acme Cafe"]);
    expect(landed.origin + landed.pathname).toBe("https://app.example/connected");
    expect(Object.fromEntries(landed.searchParams)).toEqual({
      connected: "facebook",
      accounts: accounts.map((a) => a.id).join(","),
    });
  });

  it("Mastodon through a link: the instance field starts that instance's flow", async () => {
    const ws = await createTestWorkspace();
    const masto = new FakeMastodon();
    cleanups.push(masto.install());
    cleanups.push(installOAuthNetwork(fakeMastodonOAuth({ instance: MASTODON })));
    const { path } = await newLink(ws);
    const { action, csrf } = formOf((await browse("GET", path)).text);
    const start = await postForm(action, [
      ["csrf", csrf],
      ["platform", "mastodon"],
      ["instance", "mastodon.fake"],
    ]);
    expect(start.status).toBe(303);
    expect(start.headers.get("location")).toMatch(/^https:\/\/mastodon\.fake\/oauth\/authorize\?/);
    const bad = await postForm(action, [
      ["csrf", csrf],
      ["platform", "mastodon"],
      ["instance", "http://10.0.0.1"],
    ]);
    expect(bad.status).toBe(422);
    expect(bad.text).toContain("The instance field must be an https address of a Mastodon server.");
  });

  it("Bluesky app password on the page: verified with the PDS, connected, wrong password explained", async () => {
    const ws = await createTestWorkspace();
    const bsky = new FakeBluesky();
    cleanups.push(bsky.install());
    const { path, token } = await newLink(ws);
    const { csrf } = formOf((await browse("GET", path)).text);
    const action = `/connect/${token}/bluesky`;
    const wrong = await postForm(action, [
      ["csrf", csrf],
      ["identifier", bsky.identifier],
      ["app_password", "wrong-wrong-wrong-wrong"],
      ["service", BSKY_PDS],
    ]);
    expect(wrong.status).toBe(422);
    expect(wrong.text).toContain("Bluesky rejected the identifier or app password.");
    expect((await ws.api("GET", "/api/social-accounts")).body).toEqual([]);
    const ok = await postForm(action, [
      ["csrf", csrf],
      ["identifier", bsky.identifier],
      ["app_password", bsky.password],
      ["service", BSKY_PDS],
    ]);
    expect(ok.status).toBe(200);
    expect(ok.text).toContain("Connected alice.test on Bluesky.");
    expect(ok.text).not.toContain(bsky.password);
    const accounts = (await ws.api("GET", "/api/social-accounts")).body as { platform: string; username: string }[];
    expect(accounts.map((a) => [a.platform, a.username])).toEqual([["bluesky", "alice.test"]]);
  });
});
