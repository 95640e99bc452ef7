// Issue 25 (4): an OAuth flow is bound to the browser that started it (RFC 9700 §4.7: a `__Host-` cookie set by a
// first-party hop, checked at the callback), and every hosted page names the workspace that asks.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fakeFacebookGraph } from "../support/fakes/meta";
import { createTestWorkspace, type TestWorkspace } from "../support/harness";
import { browse, clearCookies, consent, cookieJar, formOf, postForm } from "../support/oauth/browser";
import { type FakeNetwork, fakeFacebookOAuth } from "../support/oauth/fake-oauth";
import { countSocialAccounts, installConnectedX, installOAuthNetwork } from "../support/oauth/install";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const off of cleanups.splice(0).reverse()) off();
  clearCookies();
});

const OTHER_BROWSER =
  "This sign-in was started in another browser, or this browser did not keep its sign-in cookie. Open the connect link again in this browser, with cookies allowed for this site.";
const NAME = "Acme & <Bakery>";
const NAMED = "Workspace: <strong>Acme &amp; &lt;Bakery&gt;</strong>";
const HOP = /^https:\/\/api\.test\/connect\/authorize\/([A-Za-z0-9_-]{43})$/;
// Max-Age: CONNECT_STATE_TTL_SECONDS (600) and the day an expired state is kept (issue 35).
const COOKIE = /^__Host-esp-connect=[A-Za-z0-9_-]{43}; Max-Age=87000; Path=\/; Secure; HttpOnly; SameSite=Lax$/;

const xNetwork = (): FakeNetwork => installConnectedX(cleanups).net;

const countAccounts = (ws: TestWorkspace) => countSocialAccounts(ws.workspaceId);

async function linkPath(ws: TestWorkspace, body: Record<string, unknown> = {}) {
  const res = await ws.api("POST", "/api/connect-links", body);
  expect(res.status).toBe(201);
  return new URL(res.body.url).pathname;
}

describe("the flow is bound to the browser that started it", () => {
  it("a link's start sets the __Host- cookie; the callback in another browser is refused and spends nothing", async () => {
    const ws = await createTestWorkspace(NAME);
    const net = xNetwork();
    const { action, csrf } = formOf((await browse("GET", await linkPath(ws))).text);
    const start = await postForm(action, [
      ["csrf", csrf],
      ["platform", "x"],
    ]);
    expect(start.status).toBe(303);
    expect(start.headers.getSetCookie()).toEqual([expect.stringMatching(COOKIE)]);
    const callbackPath = await consent(start.headers.get("location")!);

    // The attacker's browser (no cookie, or its own): refused with a page, before any token request.
    for (const cookie of [null, `__Host-esp-connect=${"a".repeat(43)}`]) {
      const stolen = await browse("GET", callbackPath, cookie ? { headers: { Cookie: cookie } } : { cookies: false });
      expect(stolen.status).toBe(403);
      expect(stolen.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(stolen.text).toContain(OTHER_BROWSER);
      expect(stolen.headers.get("location")).toBeNull();
    }
    expect(net.oauth.tokenRequests).toHaveLength(0);
    expect(await countAccounts(ws)).toBe(0);

    // The state was not spent: the browser that started the flow completes it, and the page names the workspace.
    const done = await browse("GET", callbackPath);
    expect(done.status).toBe(200);
    expect(done.text).toContain("Account connected");
    expect(done.text).toContain(NAMED);
    expect(await countAccounts(ws)).toBe(1);
  });

  it("an API-started flow hands out our hop: its page names the workspace, only Continue binds, once", async () => {
    const ws = await createTestWorkspace(NAME);
    const net = xNetwork();
    const start = await ws.api("POST", "/api/social-accounts/connect", { platform: "x" });
    expect(start.status).toBe(200);
    expect(start.body.url).toMatch(HOP);
    const path = new URL(start.body.url).pathname;

    // A link preview or mail scanner may GET it any number of times: nothing is bound.
    for (let i = 0; i < 2; i++) {
      const page = await browse("GET", path, { cookies: false });
      expect(page.status).toBe(200);
      expect(page.text).toContain("<h1>Connect your X account</h1>");
      expect(page.text).toContain(NAMED);
      expect(page.headers.getSetCookie()).toEqual([]);
    }
    const { action, csrf } = formOf((await browse("GET", path)).text);
    const crossSite = await postForm(action, [["csrf", csrf]], { "Sec-Fetch-Site": "cross-site" });
    expect(crossSite.status).toBe(403);
    const go = await postForm(action, [["csrf", csrf]]);
    expect(go.status).toBe(303);
    expect(go.headers.get("location")).toMatch(/^https:\/\/x-auth\.fake\/i\/oauth2\/authorize\?/);
    expect(go.headers.getSetCookie()).toEqual([expect.stringMatching(COOKIE)]);

    // Another browser continuing the same hop afterwards gets nothing.
    const second = await browse("POST", path, {
      cookies: false,
      body: new URLSearchParams([["csrf", csrf]]).toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "same-origin" },
    });
    expect(second.status).toBe(410);
    expect((await browse("GET", path, { cookies: false })).status).toBe(410);

    const callbackPath = await consent(go.headers.get("location")!);
    const stolen = await browse("GET", callbackPath, { cookies: false });
    expect(stolen.status).toBe(403);
    expect(net.oauth.tokenRequests).toHaveLength(0);
    expect((await browse("GET", callbackPath)).status).toBe(200);
  });

  it("an API-started flow whose hop was never continued cannot complete", async () => {
    const ws = await createTestWorkspace();
    const net = xNetwork();
    const start = await ws.api("POST", "/api/social-accounts/connect", { platform: "x" });
    const nonce = HOP.exec(start.body.url)![1]!;
    // The network's consent URL carries the state; a callback built from it without the hop has no binding.
    const row = await env.DB.prepare("SELECT authorize_url FROM oauth_states WHERE workspace_id = ?")
      .bind(ws.workspaceId)
      .first<{ authorize_url: string }>();
    expect(new URL(row!.authorize_url).searchParams.get("state")).toContain(nonce);
    const callbackPath = await consent(row!.authorize_url);
    const res = await browse("GET", callbackPath);
    expect(res.status).toBe(403);
    expect(res.text).toContain(OTHER_BROWSER);
    expect(net.oauth.tokenRequests).toHaveLength(0);
  });

  it("flows in two tabs of one browser share its cookie", async () => {
    const ws = await createTestWorkspace();
    xNetwork();
    const path = await linkPath(ws);
    const { action, csrf } = formOf((await browse("GET", path)).text);
    const one = await postForm(action, [
      ["csrf", csrf],
      ["platform", "x"],
    ]);
    const cookie = cookieJar().get("__Host-esp-connect");
    const two = await postForm(action, [
      ["csrf", csrf],
      ["platform", "x"],
    ]);
    expect(cookieJar().get("__Host-esp-connect")).toBe(cookie);
    const first = await consent(one.headers.get("location")!);
    const second = await consent(two.headers.get("location")!);
    expect((await browse("GET", second)).status).toBe(200);
    expect((await browse("GET", first)).status).toBe(200);
  });
});

describe("a consent that comes back after CONNECT_STATE_TTL_SECONDS (issue 35)", () => {
  const TTL_MS = 600_000;
  const EXPIRED = "This sign-in link has expired. Start connecting the account again.";
  const countStates = async (ws: TestWorkspace) =>
    (
      await env.DB.prepare("SELECT COUNT(*) AS n FROM oauth_states WHERE workspace_id = ?")
        .bind(ws.workspaceId)
        .first<{ n: number }>()
    )?.n;
  afterEach(() => {
    vi.useRealTimers();
  });

  it("says it expired and goes back to the link's redirect_url, in the browser that started it", async () => {
    // Only Date is faked: the Worker's clock moves when the test says so, timers and I/O stay real.
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.now();
    const ws = await createTestWorkspace();
    const net = xNetwork();
    const path = await linkPath(ws, { redirect_url: "https://app.example/after" });
    const { action, csrf } = formOf((await browse("GET", path)).text);
    const start = await postForm(action, [
      ["csrf", csrf],
      ["platform", "x"],
    ]);
    expect(start.status).toBe(303);
    // The browser keeps the binding cookie as long as its Max-Age says, and drops it after (RFC 6265 §5.2.2).
    const [setCookie] = start.headers.getSetCookie();
    const maxAgeMs = Number(/Max-Age=(\d+)/.exec(setCookie!)![1]) * 1000;
    const cookie = setCookie!.split(";")[0]!;
    const callbackPath = await consent(start.headers.get("location")!);

    // The user lingers on the consent page past the state's lifetime; meanwhile another flow starts (and sweeps).
    vi.setSystemTime(t0 + TTL_MS + 60_000);
    const other = await createTestWorkspace();
    expect((await other.api("POST", "/api/social-accounts/connect", { platform: "x" })).status).toBe(200);

    // Another browser (or one without the cookie) is told it expired, and learns nothing else; the state stays.
    const elsewhere = await browse("GET", callbackPath, { cookies: false });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.headers.get("location")).toBeNull();
    expect(elsewhere.text).toContain("<h1>The account was not connected</h1>");
    expect(elsewhere.text).toContain(EXPIRED);
    expect(await countStates(ws)).toBe(1);

    // The browser that started it still holds its cookie, and goes back to the link's redirect_url.
    expect(Date.now() - t0).toBeLessThan(maxAgeMs);
    const back = await browse("GET", callbackPath, { headers: { Cookie: cookie } });
    expect(back.status).toBe(303);
    const to = new URL(back.headers.get("location")!);
    expect({ at: to.origin + to.pathname, params: Object.fromEntries(to.searchParams) }).toEqual({
      at: "https://app.example/after",
      params: { error: "invalid_state", error_description: EXPIRED },
    });
    expect(net.oauth.tokenRequests).toHaveLength(0);
    expect(await countAccounts(ws)).toBe(0);
    expect(await countStates(ws)).toBe(0);

    // Used once: a second visit is the unknown state (no redirect_url to go back to).
    const again = await browse("GET", callbackPath, { headers: { Cookie: cookie } });
    expect(again.status).toBe(400);
    expect(again.text).toContain("This sign-in link is invalid or was already used.");
  });

  it("an expired state is kept a day (then swept when a new state is made)", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.now();
    const ws = await createTestWorkspace();
    xNetwork();
    expect((await ws.api("POST", "/api/social-accounts/connect", { platform: "x" })).status).toBe(200);
    const sweep = async () => {
      const other = await createTestWorkspace();
      expect((await other.api("POST", "/api/social-accounts/connect", { platform: "x" })).status).toBe(200);
    };
    vi.setSystemTime(t0 + TTL_MS + 86_400_000 - 60_000);
    await sweep();
    expect(await countStates(ws)).toBe(1);
    vi.setSystemTime(t0 + TTL_MS + 86_400_000 + 60_000);
    await sweep();
    expect(await countStates(ws)).toBe(0);
  });
});

describe("every hosted page names the workspace (and the link's purpose)", () => {
  it("link page, selection page, success and error pages", async () => {
    const ws = await createTestWorkspace(NAME);
    const graph = fakeFacebookGraph();
    cleanups.push(graph.uninstall);
    const net = fakeFacebookOAuth({ authOrigin: "https://facebook-auth.fake", graphOrigin: "https://facebook.fake" });
    cleanups.push(installOAuthNetwork(net));
    const path = await linkPath(ws, { purpose: "Spring <campaign>" });
    const purpose = "<br>Purpose: Spring &lt;campaign&gt;</p>";

    const linkPage = await browse("GET", path);
    expect(linkPage.text).toContain(NAMED + purpose);
    const { action, csrf } = formOf(linkPage.text);
    const start = async () =>
      postForm(action, [
        ["csrf", csrf],
        ["platform", "facebook"],
      ]);

    const callback = await browse("GET", await consent((await start()).headers.get("location")!));
    const selection = await browse("GET", callback.headers.get("location")!);
    expect(selection.status).toBe(200);
    expect(selection.text).toContain(NAMED + purpose);
    const form = formOf(selection.text);
    const done = await postForm(form.action, [
      ["csrf", form.csrf],
      ["account", "0"],
    ]);
    expect(done.status).toBe(200);
    expect(done.text).toContain("Account connected");
    expect(done.text).toContain(NAMED + purpose);

    net.oauth.decision = "deny";
    const denied = await browse("GET", await consent((await start()).headers.get("location")!));
    expect(denied.status).toBe(400);
    expect(denied.text).toContain("The account was not connected");
    expect(denied.text).toContain(NAMED + purpose);
  });
});
