#!/usr/bin/env node
// Publishing benchmark: N due posts × 3 platforms (X, Bluesky, Mastodon) against loopback fakes, through
// `wrangler dev` (real local D1, Queues and cron handler). Measures the time from the cron tick
// (GET /cdn-cgi/handler/scheduled) until every post is published, and counts duplicate platform posts.
//
//   npm run bench -- publish   (or: npx node bench/publish/run.mjs; BENCH_POSTS=1000 by default)
//
// Writes its section of bench/RESULTS.md (bench/lib/results.mjs).
//
// Needs Node ≥ 22.5 (node:sqlite), which `npx node` gives from devDependencies.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { machine, today, writeSection } from "../lib/results.mjs";
import { startFakePlatforms } from "./fake-platforms.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const POSTS = Number(process.env.BENCH_POSTS ?? 1000);
// bench/publish/webhooks.mjs runs this twice, without and with one webhook endpoint subscribed to every event
// (BENCH_WEBHOOK=1), and reads the result from BENCH_OUT instead of writing the publish section.
const WEBHOOK = process.env.BENCH_WEBHOOK === "1";
const PUT_SAMPLES = Number(process.env.BENCH_PUT_SAMPLES ?? 100);
const PORT = Number(process.env.BENCH_PORT ?? 8799);
const BASE = `http://127.0.0.1:${PORT}`;
const stateDir = path.join(root, ".wrangler", "bench-publish");
const wrangler = path.join(root, "node_modules", ".bin", "wrangler");
const childEnv = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "true" };

const secrets = {
  TOKEN_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
  UPLOAD_SIGNING_KEY: randomBytes(32).toString("base64"),
  ADMIN_TOKEN: randomBytes(24).toString("hex"),
};

const log = (...a) => console.log("[bench]", ...a);

function migrate() {
  const res = spawnSync(wrangler, ["d1", "migrations", "apply", "DB", "--local", "--persist-to", stateDir], {
    cwd: root,
    env: childEnv,
    encoding: "utf8",
  });
  if (res.status !== 0) throw new Error(`migrations failed: ${res.stdout}\n${res.stderr}`);
}

/** The running `wrangler dev` (its output is printed when the API answers 5xx). */
let currentDev = null;

async function startDev(fakeOrigin) {
  const vars = {
    ...secrets,
    APP_ENV: "development",
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "warn",
    MEDIA_URL: `${BASE}/media`,
    // The webhook receiver is on loopback (both runs set it, so they differ only in the endpoint).
    MEDIA_FETCH_ALLOW_PRIVATE: "true",
    // The PUT timing makes 3 requests per sample: above the default per-key throttle.
    API_RATE_LIMIT_PER_MINUTE: "100000",
    API_WORKSPACE_RATE_LIMIT_PER_MINUTE: "100000",
    X_API_URL: fakeOrigin,
    BLUESKY_APPVIEW_URL: fakeOrigin,
    BLUESKY_PLC_URL: fakeOrigin,
  };
  const args = [
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(PORT),
    "--persist-to",
    stateDir,
    "--show-interactive-dev-session=false",
  ];
  for (const [k, v] of Object.entries(vars)) args.push("--var", `${k}:${v}`);
  const child = spawn(wrangler, args, { cwd: root, env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => {
    output += d;
  });
  child.stderr.on("data", (d) => {
    output += d;
  });
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited: ${output}`);
    try {
      if ((await fetch(`${BASE}/api/health`)).ok) {
        currentDev = { child, output: () => output };
        return currentDev;
      }
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`wrangler dev not ready: ${output}`);
}

async function stopDev(dev) {
  dev.child.kill("SIGTERM");
  await new Promise((r) => (dev.child.exitCode !== null ? r() : dev.child.once("exit", r)));
}

async function api(method, p, body, token) {
  const res = await fetch(`${BASE}${p}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json().catch(() => null);
  if (!res.ok) {
    if (res.status >= 500) console.error(currentDev?.output().slice(-4000));
    throw new Error(`${method} ${p} → ${res.status} ${JSON.stringify(json)}`);
  }
  return json;
}

function d1File() {
  const dir = path.join(stateDir, "v3", "d1", "miniflare-D1DatabaseObject");
  const file = readdirSync(dir).find((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  if (!file) throw new Error(`no D1 sqlite file in ${dir}`);
  return path.join(dir, file);
}

function seedPosts(workspaceId, accounts) {
  const db = new DatabaseSync(d1File());
  const now = Date.now();
  const insertPost = db.prepare(
    "INSERT INTO posts (id, workspace_id, content, status, scheduled_at, created_at, updated_at) VALUES (?, ?, ?, 'scheduled', ?, ?, ?)",
  );
  const insertRow = db.prepare(
    `INSERT INTO post_platforms (id, post_id, social_account_id, platform, content_type, status, enabled, meta,
       display_name, display_username, position, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'pending', 1, '{}', ?, ?, ?, ?, ?)`,
  );
  db.exec("BEGIN");
  for (let i = 0; i < POSTS; i++) {
    const postId = randomUUID();
    insertPost.run(postId, workspaceId, `Benchmark post ${i} #bench https://example.com/${i}`, now - 60_000, now, now);
    accounts.forEach((a, position) => {
      insertRow.run(randomUUID(), postId, a.id, a.platform, a.type, a.platform, "bench", position, now, now);
    });
  }
  db.exec("COMMIT");
  db.close();
}

function statusCounts() {
  const db = new DatabaseSync(d1File(), { readOnly: true, timeout: 10_000 });
  try {
    const posts = Object.fromEntries(
      db
        .prepare("SELECT status, COUNT(*) AS n FROM posts GROUP BY status")
        .all()
        .map((r) => [r.status, r.n]),
    );
    const rows = Object.fromEntries(
      db
        .prepare("SELECT status, COUNT(*) AS n FROM post_platforms GROUP BY status")
        .all()
        .map((r) => [r.status, r.n]),
    );
    return { posts, rows };
  } finally {
    db.close();
  }
}

async function main() {
  rmSync(stateDir, { recursive: true, force: true });
  const fake = await startFakePlatforms();
  log(`fake platforms on ${fake.origin}; ${POSTS} posts × 3 platforms`);
  migrate();

  // Phase 1: workspace and accounts through the API (credentials sealed by the Worker, Bluesky/Mastodon verified).
  let dev = await startDev(fake.origin);
  const boot = await fetch(`${BASE}/api/admin/workspaces`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${secrets.ADMIN_TOKEN}` },
    body: JSON.stringify({ name: "bench" }),
  }).then((r) => r.json());
  const token = boot.plain_token;
  const x = await api(
    "POST",
    "/api/social-accounts",
    {
      platform: "x",
      display_name: "Bench X",
      username: "bench",
      platform_user_id: "1",
      credentials: { access_token: "bench-x", expires_at: new Date(Date.now() + 7200_000).toISOString() },
    },
    token,
  );
  const bsky = await api(
    "POST",
    "/api/social-accounts",
    {
      platform: "bluesky",
      display_name: "Bench Bluesky",
      credentials: { identifier: "bench.test", app_password: "aaaa-bbbb-cccc-dddd" },
      meta: { service: fake.origin },
    },
    token,
  );
  const masto = await api(
    "POST",
    "/api/social-accounts",
    {
      platform: "mastodon",
      display_name: "Bench Mastodon",
      username: "bench",
      credentials: { access_token: "bench-m" },
      meta: { instance: fake.origin },
    },
    token,
  );
  const receiver = WEBHOOK ? await startReceiver() : null;
  if (receiver) {
    await api(
      "POST",
      "/api/webhooks",
      {
        url: receiver.url,
        events: [
          "post.scheduled",
          "post.platform.published",
          "post.platform.failed",
          "post.published",
          "post.partially_published",
          "post.failed",
        ],
      },
      token,
    );
  }
  const putMs = await timeSchedulingPuts(token, x.id);
  await stopDev(dev);

  // Phase 2: due posts written straight into the local D1 file (wrangler dev stopped).
  seedPosts(boot.workspace.id, [
    { id: x.id, platform: "x", type: "x_post" },
    { id: bsky.id, platform: "bluesky", type: "bluesky_post" },
    { id: masto.id, platform: "mastodon", type: "mastodon_post" },
  ]);
  log("seeded", statusCounts());

  // Phase 3: the cron tick, repeated every minute as the real cron does while posts are still due (a tick claims every
  // due post through its fan-out since issue 28, docs/scale.md), and wait until every post has settled.
  dev = await startDev(fake.origin);
  const t0 = performance.now();
  const tickRes = await fetch(`${BASE}/cdn-cgi/handler/scheduled?cron=*+*+*+*+*`);
  const tickMs = performance.now() - t0;
  log(`cron tick answered ${tickRes.status} in ${tickMs.toFixed(0)} ms`);
  let counts = statusCounts();
  let enqueuedMs = null;
  const deadline = Date.now() + 15 * 60_000;
  let ticks = 1;
  let lastTick = performance.now();
  while (Date.now() < deadline) {
    counts = statusCounts();
    if (counts.posts.scheduled && performance.now() - lastTick >= 60_000) {
      await fetch(`${BASE}/cdn-cgi/handler/scheduled?cron=*+*+*+*+*`);
      ticks++;
      lastTick = performance.now();
    }
    if (enqueuedMs === null && !counts.posts.scheduled) enqueuedMs = performance.now() - t0;
    const settled =
      (counts.posts.published ?? 0) + (counts.posts.partially_published ?? 0) + (counts.posts.failed ?? 0);
    if (settled >= POSTS) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const totalMs = performance.now() - t0;
  // Every row's and every post's event reached the receiver (4 per post: 3 rows + the post).
  let webhooksMs = null;
  if (receiver) {
    while (Date.now() < deadline && receiver.count() < POSTS * 4) await new Promise((r) => setTimeout(r, 100));
    webhooksMs = Math.round(performance.now() - t0);
  }
  await stopDev(dev);
  const result = {
    posts: POSTS,
    rows: POSTS * 3,
    tick_response_ms: Math.round(tickMs),
    cron_ticks: ticks,
    all_claimed_ms: enqueuedMs === null ? null : Math.round(enqueuedMs),
    all_published_ms: Math.round(totalMs),
    rows_per_second: Math.round((POSTS * 3) / (totalMs / 1000)),
    post_status: counts.posts,
    row_status: counts.rows,
    platform_posts_created: fake.created(),
    duplicate_platform_posts: fake.duplicates(),
    fake_requests: fake.stats.requests,
    webhook: WEBHOOK,
    put_schedule_ms: putMs,
    webhooks_received: receiver?.count() ?? null,
    webhooks_duplicates: receiver?.duplicates() ?? null,
    all_webhooks_received_ms: webhooksMs,
  };
  await fake.close();
  await receiver?.close();
  console.log(JSON.stringify(result, null, 2));
  if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, JSON.stringify(result));
  else writeSection("publish", report(result));
  if (result.duplicate_platform_posts !== 0 || (counts.posts.published ?? 0) !== POSTS) process.exitCode = 1;
}

/**
 * A loopback webhook receiver: answers 204 at once, counts the publish run's deliveries (every type but
 * `post.scheduled`, which the PUT timing causes) and repeated `webhook-id`s.
 */
function startReceiver() {
  const ids = new Set();
  let count = 0;
  let duplicates = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => {
      body += d;
    });
    req.on("end", () => {
      if (!body.startsWith('{"type":"post.scheduled"')) count++;
      const id = req.headers["webhook-id"];
      if (ids.has(id)) duplicates++;
      ids.add(id);
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}/hook`,
        count: () => count,
        duplicates: () => duplicates,
        close: () => new Promise((r) => server.close(r)),
      }),
    ),
  );
}

/**
 * `PUT /api/posts/{post}` with `status=scheduled`, timed from the client for PUT_SAMPLES drafts (one X row each);
 * the drafts are deleted afterwards so the publish run sees only its own posts. Returns the latencies in ms.
 */
async function timeSchedulingPuts(token, accountId) {
  const times = [];
  for (let i = 0; i < PUT_SAMPLES; i++) {
    const post = await api(
      "POST",
      "/api/posts",
      { content: `PUT timing ${i}`, platforms: [{ social_account_id: accountId, content_type: "x_post" }] },
      token,
    );
    const t = performance.now();
    await api(
      "PUT",
      `/api/posts/${post.id}`,
      { status: "scheduled", scheduled_at: new Date(Date.now() + 86400_000).toISOString() },
      token,
    );
    times.push(performance.now() - t);
    await api("DELETE", `/api/posts/${post.id}`, undefined, token);
  }
  return times;
}

function report(r) {
  const n = (v) => v.toLocaleString("en-US");
  const claimed = r.all_claimed_ms === null ? "n/a" : `${n(r.all_claimed_ms)} ms`;
  return `## Publishing: ${n(r.posts)} due posts × 3 platforms (bench/publish)

\`npm run bench -- publish\` (\`BENCH_POSTS\` changes the count). A loopback Node fake answers for X
(\`POST /2/tweets\`), a Bluesky PDS (\`createSession\`, \`getRecord\`, \`createRecord\` with the TID check and a 500 for
an existing key) and a Mastodon instance (\`verify_credentials\`, statuses with \`Idempotency-Key\`), with their
rate-limit header families. \`wrangler dev\` runs on its own state with \`X_API_URL\` pointed at the fake; a workspace
and one account per platform are created through the API (Bluesky/Mastodon verified against the fake); the due posts
(3 enabled rows each) are written into the local D1 file; then the cron tick
(\`GET /cdn-cgi/handler/scheduled?cron=*+*+*+*+*\`), repeated each minute while posts are still due (since issue 28 a
tick claims every due post, fanned out to publish-claims), and the D1 file is polled until every post has settled.
Duplicates = platform posts created more than once for one text (all three) or one record key (Bluesky).

${today()} · ${machine()} · local Queues, consumer \`max_batch_size: 10\`, \`max_batch_timeout: 1\`

| measure | value |
|---|---|
| cron tick answered | ${n(r.tick_response_ms)} ms (${r.cron_ticks} tick(s), one a minute) |
| all posts claimed, ${n(r.rows)} messages enqueued | ≤ ${claimed} |
| **cron tick → every post \`published\`** | **${(r.all_published_ms / 1000).toFixed(1)} s** (${n(r.rows_per_second)} rows/s) |
| post statuses | ${JSON.stringify(r.post_status)} |
| row statuses | ${JSON.stringify(r.row_status)} |
| platform posts created | ${n(r.platform_posts_created)} |
| **duplicate platform posts** | **${r.duplicate_platform_posts}** |

The claim and the batched sends (100 per \`sendBatch\`) finish inside the tick; the rest is the local queue handing
batches of 10 to the consumer (per message: claim UPDATE, account and media reads, the platform call, one D1 batch for
row + post status). Earlier runs on the same machine: 18.8 s, 19.2 s and 22.7 s (the last with vitest running
alongside), 0 duplicates each. Since the post-revision triggers (migrations/0001_post_revisions.sql: every status
write to a row or a post also moves the post's revision, one more row written), four other runs took 20.3–24.5 s; in
runs interleaved with the commit before the triggers, 18.9 s and 20.6 s before against 20.3 s and 24.5 s after —
about 10–15 % slower here, the price of the list's rendered-post reuse (bench/RESULTS.md, http). Not measured here: throttled or failing platforms (covered by tests), media uploads, and
production Queues concurrency (which scales consumers; local dev does not).`;
}

main().catch((err) => {
  console.error(err);
  // A failed run must not leave `wrangler dev` holding the port (the next run would talk to the stale one).
  currentDev?.child.kill("SIGTERM");
  process.exit(1);
});
