#!/usr/bin/env node
// Claim benchmark (issue 28): BENCH_POSTS (10,000) posts × 3 platforms all due in the same minute, on `wrangler dev`
// (real local D1, Queues, cron handler). Two cron ticks are fired at once (an overlapping tick); measures the time
// from the ticks until every due post is claimed and every row's publish message enqueued, and checks that no post
// was claimed twice (the claims' `claimed` counts add up to exactly BENCH_POSTS and their `enqueued` to exactly one
// message per row). The publish-jobs consumer is left out of the config for this run, so the measurement is the
// scheduler's alone and the publish messages stay queued.
//
//   npm run bench -- claims    (or: npx node bench/claims/run.mjs)
//
// Writes its section of bench/RESULTS.md. Needs Node ≥ 22.5 (node:sqlite), which `npx node` gives.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { experimental_readRawConfig } from "wrangler";
import { machine, today, writeSection } from "../lib/results.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const POSTS = Number(process.env.BENCH_POSTS ?? 10_000);
const PORT = Number(process.env.BENCH_PORT ?? 8798);
const BASE = `http://127.0.0.1:${PORT}`;
const stateDir = path.join(root, ".wrangler", "bench-claims");
const wrangler = path.join(root, "node_modules", ".bin", "wrangler");
const childEnv = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "true" };
const log = (...a) => console.log("[bench]", ...a);

/** wrangler.jsonc with absolute paths and without the publish-jobs consumer. */
function benchConfig() {
  const { rawConfig } = experimental_readRawConfig({ config: path.join(root, "wrangler.jsonc") });
  const config = structuredClone(rawConfig);
  delete config.env;
  delete config.$schema;
  config.main = path.join(root, config.main);
  for (const d of config.d1_databases) d.migrations_dir = path.join(root, d.migrations_dir);
  if (config.assets?.directory) config.assets.directory = path.join(root, config.assets.directory);
  config.queues.consumers = config.queues.consumers.filter((c) => c.queue !== "publish-jobs");
  const file = path.join(stateDir, "wrangler.bench.json");
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

function d1File() {
  const dir = path.join(stateDir, "v3", "d1", "miniflare-D1DatabaseObject");
  const file = readdirSync(dir).find((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  if (!file) throw new Error(`no D1 sqlite file in ${dir}`);
  return path.join(dir, file);
}

function seed() {
  const db = new DatabaseSync(d1File());
  const now = Date.now();
  const workspaceId = randomUUID();
  db.prepare("INSERT INTO workspaces (id, name, created_at, updated_at) VALUES (?, 'bench', ?, ?)").run(
    workspaceId,
    now,
    now,
  );
  const accounts = ["x", "bluesky", "mastodon"].map((platform) => {
    const id = randomUUID();
    db.prepare(
      "INSERT INTO social_accounts (id, workspace_id, platform, display_name, username, created_at, updated_at) VALUES (?, ?, ?, ?, 'bench', ?, ?)",
    ).run(id, workspaceId, platform, `Bench ${platform}`, now, now);
    return { id, platform, type: `${platform === "bluesky" ? "bluesky" : platform}_post` };
  });
  const insertPost = db.prepare(
    "INSERT INTO posts (id, workspace_id, content, status, scheduled_at, created_at, updated_at) VALUES (?, ?, ?, 'scheduled', ?, ?, ?)",
  );
  const insertRow = db.prepare(
    `INSERT INTO post_platforms (id, post_id, social_account_id, platform, content_type, status, enabled, meta,
       display_name, display_username, position, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'pending', 1, '{}', ?, 'bench', ?, ?, ?)`,
  );
  // Every post due in the same minute (the minute before the tick).
  const minute = Math.floor(now / 60_000) * 60_000 - 60_000;
  db.exec("BEGIN");
  for (let i = 0; i < POSTS; i++) {
    const postId = randomUUID();
    insertPost.run(postId, workspaceId, `Benchmark post ${i}`, minute + (i % 60) * 1000, now, now);
    accounts.forEach((a, position) => {
      insertRow.run(randomUUID(), postId, a.id, a.platform, a.type, a.platform, position, now, now);
    });
  }
  db.exec("COMMIT");
  db.close();
}

function postStatuses() {
  const db = new DatabaseSync(d1File(), { readOnly: true, timeout: 10_000 });
  try {
    return Object.fromEntries(
      db
        .prepare("SELECT status, COUNT(*) AS n FROM posts GROUP BY status")
        .all()
        .map((r) => [r.status, r.n]),
    );
  } finally {
    db.close();
  }
}

async function main() {
  rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });
  const config = benchConfig();
  const migrated = spawnSync(
    wrangler,
    ["d1", "migrations", "apply", "DB", "--local", "--persist-to", stateDir, "-c", config],
    {
      cwd: root,
      env: childEnv,
      encoding: "utf8",
    },
  );
  if (migrated.status !== 0) throw new Error(`migrations failed: ${migrated.stdout}\n${migrated.stderr}`);
  seed();
  log(`seeded ${POSTS} posts × 3 rows`, postStatuses());

  const vars = {
    TOKEN_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    UPLOAD_SIGNING_KEY: randomBytes(32).toString("base64"),
    APP_ENV: "development",
    LOG_LEVEL: "info",
  };
  const args = ["dev", "-c", config, "--ip", "127.0.0.1", "--port", String(PORT), "--persist-to", stateDir];
  args.push("--show-interactive-dev-session=false");
  for (const [k, v] of Object.entries(vars)) args.push("--var", `${k}:${v}`);
  const child = spawn(wrangler, args, { cwd: root, env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  const claims = [];
  const ticks = [];
  let tail = "";
  let buffer = "";
  const onData = (d) => {
    const at = performance.now();
    buffer += d;
    tail = (tail + d).slice(-4000);
    let nl = buffer.indexOf("\n");
    while (nl >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf("\n");
      const start = line.indexOf("{");
      if (start < 0) continue;
      try {
        const entry = JSON.parse(line.slice(start));
        if (entry.event === "scheduler_claim") claims.push({ at, ...entry });
        if (entry.event === "scheduler_tick") ticks.push({ at, ...entry });
      } catch {}
    }
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  for (let i = 0; ; i++) {
    if (child.exitCode !== null || i > 480) throw new Error(`wrangler dev not ready: ${tail}`);
    try {
      if ((await fetch(`${BASE}/api/health`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }

  const t0 = performance.now();
  const tickCalls = await Promise.all(
    [0, 1].map(async () => {
      const res = await fetch(`${BASE}/cdn-cgi/handler/scheduled?cron=*+*+*+*+*`);
      return { status: res.status, ms: Math.round(performance.now() - t0) };
    }),
  );
  log("two overlapping ticks answered", tickCalls);
  const rows = POSTS * 3;
  const deadline = performance.now() + 180_000;
  const sum = (k) => claims.reduce((n, c) => n + c[k], 0);
  while (sum("enqueued") < rows && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  // A moment more, to see any late duplicate claim.
  await new Promise((r) => setTimeout(r, 3000));
  const statuses = postStatuses();
  child.kill("SIGTERM");
  await new Promise((r) => (child.exitCode !== null ? r() : child.once("exit", r)));

  const lastClaim = claims.reduce((m, c) => Math.max(m, c.at), t0);
  const result = {
    posts: POSTS,
    rows,
    tick_responses: tickCalls,
    ticks: ticks.map((t) => ({ due: t.due, claimed_by_tick: t.claimedPosts, fanned_out_chunks: t.fannedOut })),
    claims: claims.length,
    claimed_posts: sum("claimed"),
    enqueued_messages: sum("enqueued"),
    all_claimed_and_enqueued_ms: Math.round(lastClaim - t0),
    duplicate_claims: sum("claimed") - POSTS,
    post_status: statuses,
  };
  console.log(JSON.stringify(result, null, 2));
  writeSection("claims", report(result));
  const ok =
    result.claimed_posts === POSTS && result.enqueued_messages === rows && (statuses.publishing ?? 0) === POSTS;
  if (!ok || result.all_claimed_and_enqueued_ms > 30_000) process.exitCode = 1;
}

function report(r) {
  return `## On time at any volume: ${r.posts.toLocaleString("en")} posts × 3 due in the same minute (\`npm run bench -- claims\`)

${today()} · ${machine()}

Two cron ticks fired at once against \`wrangler dev\` (local D1 and Queues; the publish-jobs consumer left out, so this
is the scheduler alone). Each tick reads every due post, claims the oldest 100 itself and fans the rest out to
\`publish-claims\` in chunks of 100; the claim consumer claims each chunk with one conditional UPDATE and enqueues its
rows (docs/scale.md).

| | |
|---|---|
| posts due / rows | ${r.posts.toLocaleString("en")} / ${r.rows.toLocaleString("en")} |
| tick responses | ${r.tick_responses.map((t) => `${t.status} after ${t.ms} ms`).join(", ")} |
| per tick: due, claimed by the tick, chunks fanned out | ${r.ticks.map((t) => `${t.due}, ${t.claimed_by_tick}, ${t.fanned_out_chunks}`).join(" · ")} |
| claims that claimed something | ${r.claims} |
| **all claimed and enqueued after the ticks** | **${(r.all_claimed_and_enqueued_ms / 1000).toFixed(1)} s** (goal ≤ 30 s) |
| posts claimed (sum over claims) | ${r.claimed_posts.toLocaleString("en")} — **${r.duplicate_claims} claimed twice** |
| publish messages enqueued | ${r.enqueued_messages.toLocaleString("en")} (one per row) |
| posts by status afterwards | ${Object.entries(r.post_status)
    .map(([s, n]) => `${s} ${n}`)
    .join(", ")} |`;
}

await main();
