// The local sandbox (README "Local sandbox"), through `npm run dev` itself: scripts/dev.mjs runs in a state
// directory of its own (DEV_STATE_DIR: its .dev.vars, D1 state and demo files) on a free port, and starts the
// sandbox networks and `wrangler dev` with `startStack()` (sandbox/start.mjs, the mechanism the browser tests use).
// 1. What it prints: a working demo API key, the dashboard URL, the owner's sign-in, the sandboxed networks.
// 2. Through the API's connect flow, followed with fetch (our Continue form, the sandbox's consent form, the
//    callback), an X account (OAuth with PKCE) and a Mastodon account (the sandbox's origin typed as the instance)
//    connect; a post scheduled for both is published by the cron, its links open the sandbox's post pages, and its
//    metrics are the sandbox's non-zero deterministic numbers.
// 3. Ctrl-C (SIGINT to the dev script) stops wrangler and the sandbox.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { loadNetworks, ROOT } from "../../sandbox/start.mjs";
import { freePort, waitFor } from "./kit.mjs";

/** The first form of an HTML page: its action (absolute) and its fields (hidden inputs and the pressed button). */
function formOf(html, pageUrl, button) {
  const form = /<form[^>]*method="post"[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  assert.ok(form, `a form on ${pageUrl}:\n${html.slice(0, 800)}`);
  const unhtml = (s) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&");
  const fields = new URLSearchParams();
  for (const input of form[2].matchAll(/<input[^>]*type="hidden"[^>]*>/gi)) {
    const name = /name="([^"]*)"/.exec(input[0])?.[1];
    const value = /value="([^"]*)"/.exec(input[0])?.[1] ?? "";
    if (name) fields.append(unhtml(name), unhtml(value));
  }
  if (button) {
    const b = new RegExp(`<button[^>]*name="([^"]*)"[^>]*value="([^"]*)"[^>]*>${button}</button>`).exec(form[2]);
    assert.ok(b, `a "${button}" button on ${pageUrl}`);
    fields.append(b[1], b[2]);
  }
  return { action: new URL(unhtml(form[1]), pageUrl).toString(), fields };
}

let dev;
let own;
let out = "";
let base;
let banner;
let key;
/** The sandbox networks the banner lists: [label, origin]. */
let sandboxes;

before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  own = mkdtempSync(path.join(tmpdir(), "dev-sandbox-e2e-"));
  dev = spawn(process.execPath, [path.join(ROOT, "scripts/dev.mjs")], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), SANDBOX_PORT: "0", DEV_STATE_DIR: own, DEV_CRON: "0" },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const keep = (d) => {
    out = (out + d).slice(-50_000);
  };
  dev.stdout.on("data", keep);
  dev.stderr.on("data", keep);
  await waitFor(() => out.includes("└──") || dev.exitCode !== null, "the dev banner", 90_000).catch((err) => {
    throw new Error(`${err.message}:\n${out.slice(-3000)}`);
  });
  assert.equal(dev.exitCode, null, `npm run dev exited:\n${out.slice(-3000)}`);
  banner = out.slice(out.lastIndexOf("┌──"));
  key = /Demo workspace API key:\s+(esp_\S+)/.exec(banner)?.[1];
  sandboxes = [...banner.matchAll(/^ {4}(\S+) +(http:\/\/127\.0\.0\.1:\d+) /gm)].map((m) => [m[1], m[2]]);
});

after(() => {
  try {
    process.kill(-dev.pid, "SIGKILL");
  } catch {
    // already gone
  }
  if (own) rmSync(own, { recursive: true, force: true });
});

const origin = (label) => sandboxes.find(([l]) => l === label)?.[1];

test("npm run dev prints a working API key, the dashboard URL, the owner's sign-in and the sandbox networks", async () => {
  assert.ok(banner.includes(`API ready on ${base}/api   (docs: ${base}/api/docs)`), out.slice(-3000));
  assert.ok(banner.includes(`Dashboard: ${base}/app`), banner);
  const [, email, password] = /sign in as (\S+) \/ (\S+) {3}\(kept in \S+demo-owner\.json\)/.exec(banner) ?? [];
  assert.equal(email, "demo@example.com", banner);
  const signIn = await fetch(`${base}/api/session`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: base },
    body: JSON.stringify({ email, password }),
  });
  assert.equal(signIn.status, 200, await signIn.clone().text());
  const cookie = signIn.headers.get("set-cookie").split(";")[0];
  const me = await fetch(`${base}/api/me`, { headers: { Cookie: cookie } });
  assert.deepEqual(
    (await me.json()).memberships.map((m) => [m.workspace_name, m.role]),
    [["Demo workspace", "owner"]],
  );
  assert.ok(key, banner);
  const workspace = await fetch(`${base}/api/workspace`, { headers: { Authorization: `Bearer ${key}` } });
  assert.equal(workspace.status, 200);
  assert.equal((await workspace.json()).name, "Demo workspace");
  // A fresh .dev.vars has no network credentials: every network is sandboxed.
  assert.deepEqual(
    sandboxes.map(([label]) => label),
    ["X", "Mastodon", "Bluesky", "LinkedIn", "Facebook", "Instagram", "Threads", "TikTok", "YouTube", "Pinterest"],
  );
  // Each sandbox answers where the banner says, with a home page saying what it is.
  for (const [label, o] of sandboxes) {
    const home = await fetch(`${o}/`);
    assert.equal(home.status, 200, o);
    assert.ok((await home.text()).includes(`<h1>${label} sandbox</h1>`), o);
  }
  // The banner is the last thing on screen: wrangler's binding tables and request lines stay quiet (DEV_LOGS=1 shows
  // them); DEV_CRON=0 here, so the banner says how to fire the cron by hand.
  assert.ok(!out.includes("Your Worker has access to the following bindings"), out.slice(0, 3000));
  assert.ok(!out.slice(out.lastIndexOf("└──")).includes("[wrangler:info]"), out.slice(-3000));
  assert.ok(
    banner.includes(`The cron is off (DEV_CRON=0): trigger it with curl ${base}/cdn-cgi/handler/scheduled`),
    banner,
  );
  // The secrets of .dev.vars stay out of the banner.
  const adminToken = /^ADMIN_TOKEN=(.+)$/m.exec(readFileSync(path.join(own, ".dev.vars"), "utf8"))[1];
  assert.ok(!out.includes(adminToken));
});

/** The sandbox's metrics of a post text: the module the dev script runs. */
const { sandboxMetrics } = await loadNetworks();

/**
 * The API's connect flow as a browser follows it: `url` (our page naming the workspace) → its Continue form (sets
 * the browser-binding cookie) → the network's consent page → its Authorize form → our callback.
 */
async function connectThroughBrowser(key, body) {
  const started = await fetch(`${base}/api/social-accounts/connect`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  assert.equal(started.status, 200, await started.clone().text());
  const { url } = await started.json();
  const hop = await fetch(url);
  assert.equal(hop.status, 200);
  const cont = formOf(await hop.text(), url);
  const bound = await fetch(cont.action, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: base },
    body: cont.fields,
  });
  assert.equal(bound.status, 303, out.slice(-1500));
  const cookie = bound.headers.get("set-cookie").split(";")[0];
  const consentUrl = bound.headers.get("location");
  const consent = await fetch(consentUrl);
  assert.equal(consent.status, 200);
  const page = await consent.text();
  assert.match(page, /<title>Authorize access — [^<]+ sandbox<\/title>/);
  const authorize = formOf(page, consentUrl, "Authorize");
  const back = await fetch(authorize.action, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: authorize.fields,
  });
  assert.equal(back.status, 302, await back.clone().text());
  const callback = back.headers.get("location");
  assert.ok(callback.startsWith(`${base}/api/oauth/${body.platform}/callback?`), callback);
  const done = await fetch(callback, { headers: { Cookie: cookie } });
  const text = await done.text();
  assert.equal(done.status, 200, text.slice(0, 800));
  return text;
}

test("sandbox: connect X and Mastodon through their consent forms and Bluesky with an app password; publish by the cron, open the links, read metrics", {
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
  await connectThroughBrowser(key, { platform: "x" });
  await connectThroughBrowser(key, { platform: "mastodon", instance: origin("Mastodon") });
  // Bluesky: any handle and app password log in at the sandbox's PDS, whose DID document (the sandbox's PLC
  // directory) names that same server.
  const bsky = await api(
    "POST",
    "/api/social-accounts",
    {
      platform: "bluesky",
      display_name: "Me on Bluesky",
      credentials: { identifier: "me.example", app_password: "abcd-efgh-ijkl-mnop" },
      meta: { service: origin("Bluesky") },
    },
    key,
  );
  assert.equal(bsky.status, 201, JSON.stringify(bsky.body));
  const accounts = await api("GET", "/api/social-accounts", undefined, key);
  assert.deepEqual(accounts.body.map((a) => [a.platform, a.username, a.status]).sort(), [
    // The handle typed is the account's handle (issue 35): the sandbox answers createSession with it.
    ["bluesky", "me.example", "connected"],
    ["mastodon", `alice@${new URL(origin("Mastodon")).host}`, "connected"],
    ["x", "alice_x", "connected"],
  ]);
  const idOf = (platform) => accounts.body.find((a) => a.platform === platform).id;

  const text = "Hello from the sandbox 👋 #launch";
  const created = await api(
    "POST",
    "/api/posts",
    {
      content: text,
      platforms: [
        { social_account_id: idOf("x"), content_type: "x_post" },
        { social_account_id: idOf("mastodon"), content_type: "mastodon_post" },
        { social_account_id: idOf("bluesky"), content_type: "bluesky_post" },
      ],
    },
    key,
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const postId = created.body.id;
  // The earliest whole second that is still in the future when the request arrives.
  const at = new Date(Math.ceil((Date.now() + 1500) / 1000) * 1000);
  const scheduled = await api(
    "PUT",
    `/api/posts/${postId}`,
    { status: "scheduled", scheduled_at: at.toISOString().replace("T", " ").slice(0, 19) },
    key,
  );
  assert.equal(scheduled.status, 200, JSON.stringify(scheduled.body));

  // The cron (as `npm run dev` fires it each minute) claims the post once it is due; the queue publishes it.
  const post = await waitFor(async () => {
    if (Date.now() >= at.getTime()) await fetch(`${base}/cdn-cgi/handler/scheduled?cron=*+*+*+*+*`);
    const shown = await api("GET", `/api/posts/${postId}`, undefined, key);
    return shown.body.status === "published" ? shown.body : null;
  }, "the post to be published");

  const links = Object.fromEntries(post.platforms.map((p) => [p.platform, p.platform_url]));
  assert.match(links.x, new RegExp(`^${origin("X")}/alice_x/status/\\d+$`));
  assert.match(links.mastodon, new RegExp(`^${origin("Mastodon")}/@alice/\\d+$`));
  assert.match(links.bluesky, new RegExp(`^${origin("Bluesky")}/profile/me\\.example/post/[a-z0-9]{13}$`));
  for (const link of Object.values(links)) {
    const page = await fetch(link);
    assert.equal(page.status, 200, link);
    assert.ok((await page.text()).includes("Hello from the sandbox 👋 #launch"), link);
  }

  const metrics = await api("GET", `/api/posts/${postId}/metrics`, undefined, key);
  assert.equal(metrics.status, 200, JSON.stringify(metrics.body));
  const byPlatform = Object.fromEntries(metrics.body.platforms.map((p) => [p.platform, p.metrics]));
  const [impressions, likes, retweets, replies, quotes, bookmarks] = sandboxMetrics(text, 6);
  assert.deepEqual(byPlatform.x, [
    { label: "Impressions", value: impressions },
    { label: "Likes", value: likes },
    { label: "Retweets", value: retweets },
    { label: "Replies", value: replies },
    { label: "Quotes", value: quotes },
    { label: "Bookmarks", value: bookmarks },
  ]);
  const [, favourites, reblogs, mastodonReplies] = sandboxMetrics(text, 4);
  assert.deepEqual(byPlatform.mastodon, [
    { label: "Favourites", value: favourites },
    { label: "Reblogs", value: reblogs },
    { label: "Replies", value: mastodonReplies },
  ]);
  const [, blueskyLikes, reposts, blueskyReplies, blueskyQuotes] = sandboxMetrics(text, 5);
  assert.deepEqual(byPlatform.bluesky, [
    { label: "Likes", value: blueskyLikes },
    { label: "Reposts", value: reposts },
    { label: "Quotes", value: blueskyQuotes },
    { label: "Replies", value: blueskyReplies },
  ]);
  // Deterministic and non-zero: the same text always gives these numbers.
  assert.deepEqual(sandboxMetrics(text, 6), [impressions, likes, retweets, replies, quotes, bookmarks]);
  assert.ok([...byPlatform.x, ...byPlatform.mastodon, ...byPlatform.bluesky].every((m) => m.value > 0));
  assert.deepEqual(sandboxMetrics("A fixed text", 4), SANDBOX_METRICS_OF_A_FIXED_TEXT);
});

const SANDBOX_METRICS_OF_A_FIXED_TEXT = [7049, 379, 13, 48];

test("Ctrl-C (SIGINT to the dev script only) stops wrangler and the sandbox too", async () => {
  assert.equal(dev.exitCode, null, "npm run dev is still running");
  const exited = new Promise((r) => dev.once("exit", r));
  dev.kill("SIGINT");
  await exited;
  await assert.rejects(fetch(`${base}/api/health`));
  for (const [, o] of sandboxes) await assert.rejects(fetch(o));
});
