// Issue 18: a real headless Chromium drives the hosted connect page end to end against `wrangler dev` and the fake
// Facebook OAuth provider (the same fake the workerd tests use, served by a Node HTTP server on 127.0.0.1):
// open a connect link → choose Facebook → consent → pick two Pages → land on the redirect URL.
// Runs under `node --test` (part of `npm test`); skipped with a message where Chromium is not installed.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { startStack } from "../../sandbox/start.mjs";
import { fakeFacebookOAuth } from "../support/oauth/fake-oauth.ts";
import { ARTIFACTS, CHROMIUM, chromiumMissing, freePort, launchChromium } from "./kit.mjs";

const ADMIN_TOKEN = "e2e-admin-token";

/**
 * Serves the fake network on two ports (its consent host and its Graph host, as Facebook has two origins), plus the
 * caller's landing page; every handler sees requests with its own origin.
 */
async function startFakeProvider(authPort, graphPort) {
  const authOrigin = `http://127.0.0.1:${authPort}`;
  const graphOrigin = `http://127.0.0.1:${graphPort}`;
  const net = fakeFacebookOAuth({ authOrigin, graphOrigin });
  const serve = (origin) =>
    createServer(async (req, res) => {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const request = new Request(`${origin}${req.url}`, { method: req.method, headers: req.headers, body });
      let answer = null;
      if (req.url.startsWith("/landed")) {
        answer = new Response("<!doctype html><title>Back in the app</title><h1>Back in the app</h1>", {
          headers: { "content-type": "text/html" },
        });
      }
      answer ??= (await net.routes[origin]?.(request)) ?? new Response("Not Found", { status: 404 });
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
  const servers = [serve(authOrigin), serve(graphOrigin)];
  await new Promise((resolve) => servers[0].listen(authPort, "127.0.0.1", resolve));
  await new Promise((resolve) => servers[1].listen(graphPort, "127.0.0.1", resolve));
  return { servers, origin: authOrigin, authOrigin, graphOrigin, net };
}

let fake;
let stack;
let stateDir;
let base;

before(async () => {
  if (chromiumMissing) return;
  fake = await startFakeProvider(await freePort(), await freePort());
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  stateDir = mkdtempSync(path.join(tmpdir(), "connect-e2e-"));
  const vars = {
    APP_ENV: "development",
    LOG_LEVEL: "warn",
    PUBLIC_URL: base,
    MEDIA_URL: `${base}/media`,
    TOKEN_ENCRYPTION_KEY: "e2e-token-encryption-key",
    UPLOAD_SIGNING_KEY: "e2e-upload-signing-key",
    ADMIN_TOKEN,
    FACEBOOK_APP_ID: "fb-app",
    FACEBOOK_APP_SECRET: "fb-secret",
    FACEBOOK_AUTH_URL: fake.authOrigin,
    FACEBOOK_GRAPH_URL: fake.graphOrigin,
    CONNECT_REDIRECT_ALLOWLIST: fake.origin,
  };
  stack = await startStack({ port, persistTo: stateDir, sandbox: false, vars });
});

after(async () => {
  await stack?.close();
  for (const server of fake?.servers ?? []) server.close();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

test("hosted connect page in Chromium: choose Facebook, consent, pick two Pages, land on the redirect URL", {
  skip: chromiumMissing
    ? `Chromium not installed at ${CHROMIUM} (apt-get install chromium); browser test skipped`
    : false,
  timeout: 120_000,
}, async () => {
  const api = async (method, p, body, key) => {
    const res = await fetch(`${base}${p}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: await res.json() };
  };
  const ws = await api("POST", "/api/admin/workspaces", { name: "E2E" }, ADMIN_TOKEN);
  assert.equal(ws.status, 201, stack.log());
  const key = ws.body.plain_token;
  const link = await api(
    "POST",
    "/api/connect-links",
    { redirect_url: `${fake.origin}/landed`, purpose: "Spring campaign" },
    key,
  );
  assert.equal(link.status, 201);

  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(link.body.url);
    assert.equal(await page.title(), "Connect your social accounts");
    // Issue 25: the page names who asks.
    assert.match(await page.locator(".who").textContent(), /Workspace: E2E\s*Purpose: Spring campaign/);
    await page.getByRole("button", { name: "Connect Facebook Page" }).click();
    // The fake consent page approves at once and sends the browser back to the callback → selection page.
    await page.waitForURL(/\/connect\/select\//, { waitUntil: "domcontentloaded" });
    // The start bound the flow to this browser with a __Host- cookie (the callback checked it to get here).
    const [binding] = (await page.context().cookies(base)).filter((c) => c.name === "__Host-esp-connect");
    assert.ok(binding, "the binding cookie was set");
    assert.deepEqual([binding.httpOnly, binding.secure, binding.sameSite, binding.path], [true, true, "Lax", "/"]);
    assert.match(await page.locator(".who").textContent(), /Workspace: E2E/);
    await page.getByLabel(/Acme Bakery/).check();
    await page.getByLabel(/Acme Cafe/).check();
    await page.screenshot({ path: path.join(ARTIFACTS, "connect-select-pages.png"), fullPage: true });
    await page.getByRole("button", { name: "Connect" }).click();
    await page.waitForURL(/\/landed\?/, { waitUntil: "domcontentloaded" });
    await page.screenshot({ path: path.join(ARTIFACTS, "connect-landed.png"), fullPage: true });

    const landed = new URL(page.url());
    assert.equal(landed.origin + landed.pathname, `${fake.origin}/landed`);
    const accounts = await api("GET", "/api/social-accounts", undefined, key);
    assert.deepEqual(
      accounts.body.map((a) => [a.platform, a.display_name, a.status]),
      [
        ["facebook", "Acme Bakery", "connected"],
        ["facebook", "Acme Cafe", "connected"],
      ],
    );
    assert.deepEqual(Object.fromEntries(landed.searchParams), {
      connected: "facebook",
      accounts: accounts.body.map((a) => a.id).join(","),
    });
    // The consent request carried the callback URL built from PUBLIC_URL.
    assert.equal(fake.net.oauth.tokenRequests[0].get("redirect_uri"), `${base}/api/oauth/facebook/callback`);
    // Facebook Login takes PKCE (issue 25): the verifier went along, and the fake checked it against the challenge.
    assert.match(fake.net.oauth.tokenRequests[0].get("code_verifier"), /^[A-Za-z0-9_-]{64}$/);
  } catch (err) {
    const last = browser
      .contexts()
      .flatMap((c) => c.pages())
      .at(-1);
    if (last)
      await last.screenshot({ path: path.join(ARTIFACTS, "connect-failure.png"), fullPage: true }).catch(() => {});
    const where = last ? `${last.url()}\n${(await last.content().catch(() => "")).slice(0, 1500)}` : "no page";
    throw new Error(`${err.message}\nbrowser at: ${where}\nwrangler: ${stack.log().slice(-2000)}`);
  } finally {
    await browser.close();
  }
});
