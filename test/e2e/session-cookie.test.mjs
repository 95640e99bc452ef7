// Issue 27: the dashboard's `__Host-esp-session` cookie in a real headless Chromium against `wrangler dev` on
// http://127.0.0.1 — a secure context, so the browser keeps a Secure, `__Host-` cookie over plain HTTP there. Signs in
// from a page of the Worker's origin with fetch (the browser adds Origin itself), reads and writes with the cookie
// alone, is refused from another origin, signs out. Skipped with a message where Chromium is not installed.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { CHROMIUM, chromiumMissing, freePort, launchChromium } from "./kit.mjs";
import { createWorkspace, sharedStack } from "./shared-stack.mjs";

let stack;
let base;
let otherOrigin;
let other;

before(async () => {
  if (chromiumMissing) return;
  stack = sharedStack();
  base = stack.base;
  // A page of another origin (another port is another origin) that tries to write with the visitor's cookie.
  const otherPort = await freePort();
  otherOrigin = `http://127.0.0.1:${otherPort}`;
  other = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<!doctype html><title>Elsewhere</title>");
  });
  await new Promise((resolve) => other.listen(otherPort, "127.0.0.1", resolve));
});

after(() => other?.close());

test("the __Host- session cookie in Chromium on http://127.0.0.1: sign in, act, refused cross-origin, sign out", {
  skip: chromiumMissing
    ? `Chromium not installed at ${CHROMIUM} (apt-get install chromium); browser test skipped`
    : false,
  timeout: 120_000,
}, async () => {
  const email = "owner@example.com";
  const password = "correct horse battery";
  const boot = await createWorkspace(base, "E2E", { email, name: "Owner", password });
  assert.equal(boot.status, 201, stack.log());

  const browser = await launchChromium();
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/api/health`);
    const call = (method, p, body) =>
      page.evaluate(
        async ([m, url, b]) => {
          const res = await fetch(url, {
            method: m,
            headers: b ? { "Content-Type": "application/json" } : {},
            body: b ? JSON.stringify(b) : undefined,
          });
          const text = await res.text();
          return { status: res.status, body: text ? JSON.parse(text) : null };
        },
        [method, p, body],
      );

    const signIn = await call("POST", "/api/session", { email, password });
    assert.equal(signIn.status, 200, JSON.stringify(signIn.body));
    const cookies = await context.cookies(base);
    const session = cookies.find((c) => c.name === "__Host-esp-session");
    assert.ok(session, `the browser kept no session cookie: ${JSON.stringify(cookies)}`);
    assert.equal(session.secure, true);
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, "Lax");
    assert.equal(session.path, "/");
    assert.equal(session.domain, "127.0.0.1");
    const week = Date.now() / 1000 + 7 * 86_400;
    assert.ok(Math.abs(session.expires - week) < 120, `expires ${session.expires}, expected about ${week}`);
    // No script reads it.
    assert.equal(await page.evaluate(() => document.cookie.includes("esp-session")), false);

    const me = await call("GET", "/api/me");
    assert.equal(me.status, 200);
    assert.equal(me.body.user.email, email);
    const label = await call("POST", "/api/labels", { name: "From the browser", color: "#1D4ED8" });
    assert.equal(label.status, 201, JSON.stringify(label.body));

    // A page on another origin: the browser sends its own Origin, and the write is refused.
    const foreign = await context.newPage();
    await foreign.goto(otherOrigin);
    const attempt = await foreign.evaluate(async (url) => {
      const res = await fetch(url, {
        method: "POST",
        credentials: "include",
        mode: "no-cors",
        headers: { "Content-Type": "text/plain" },
        body: JSON.stringify({ name: "Forged", color: "#000000" }),
      });
      return res.type;
    }, `${base}/api/labels`);
    assert.equal(attempt, "opaque");
    const labels = await call("GET", "/api/labels");
    assert.deepEqual(
      labels.body.map((l) => l.name),
      ["From the browser"],
    );

    const out = await call("DELETE", "/api/session");
    assert.equal(out.status, 204);
    assert.equal(
      (await context.cookies(base)).some((c) => c.name === "__Host-esp-session"),
      false,
    );
    assert.equal((await call("GET", "/api/me")).status, 401);
  } finally {
    await browser.close();
  }
});
