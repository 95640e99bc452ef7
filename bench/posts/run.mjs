// Issue 15: D1 statements per request and p50 latency of POST /api/posts with 1 target and with the maximum
// (POST_TARGETS_MAX = 100, over all twelve platforms), and of GET /api/posts on a workspace with 10,000 posts —
// beside the bare-Worker floor (bench/bare-worker) measured in the same rounds.
// Run: npm run bench -- posts   (or node bench/posts/run.mjs). Loopback only.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { machine, quantile, today, writeSection } from "../lib/results.mjs";
import { BENCH_ADMIN, BENCH_VARS, freePort, freshState, ROOT, startBareWorker, startWorker } from "../lib/worker.mjs";

const ADMIN = BENCH_ADMIN;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PER_ROUND = Number(process.env.BENCH_PER_ROUND ?? 20);
const POSTS = Number(process.env.BENCH_POSTS ?? 10_000);
const TARGETS_MAX = 100;
const PLATFORMS = [
  ["x", "x_post"],
  ["linkedin", "linkedin_post"],
  ["linkedin-page", "linkedin_page_post"],
  ["facebook", "facebook_post"],
  ["instagram", "instagram_feed"],
  ["instagram-facebook", "instagram_feed"],
  ["tiktok", "tiktok_video"],
  ["youtube", "youtube_short"],
  ["threads", "threads_post"],
  ["pinterest", "pinterest_pin"],
  ["bluesky", "bluesky_post"],
  ["mastodon", "mastodon_post"],
];
const ENV = { CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "true" };
// As bench/http: local span store off for both workers (it costs every D1 call a write that Cloudflare does not).
const WORKER_ENV = { X_LOCAL_OBSERVABILITY: "false" };

const uuid = (n, kind) => `${n.toString(16).padStart(8, "0")}-${kind}-4000-8000-${n.toString(16).padStart(12, "0")}`;

/** SQL seeding the two workspaces: accounts of every platform, and POSTS posts × 3 rows in the listed one. */
function seedSql({ writer, reader }) {
  const now = Date.now();
  const account = (id, ws, [platform], i) =>
    `('${id}', '${ws}', '${platform}', 'Account ${i}', 'user_${i}', NULL, 1, 'connected', '{}', ${now}, ${now})`;
  const writerAccounts = Array.from({ length: TARGETS_MAX }, (_, i) => ({
    id: uuid(i + 1, "aaaa"),
    platform: PLATFORMS[i % PLATFORMS.length],
  }));
  const readerAccounts = PLATFORMS.slice(0, 3).map((p, i) => ({ id: uuid(i + 1, "bbbb"), platform: p }));
  const lines = [
    `INSERT INTO social_accounts (id, workspace_id, platform, display_name, username, avatar_url, is_active, status, meta, created_at, updated_at) VALUES ${[
      ...writerAccounts.map((a, i) => account(a.id, writer, a.platform, i)),
      ...readerAccounts.map((a, i) => account(a.id, reader, a.platform, i)),
    ].join(", ")};`,
    // 10,000 posts spread over a year of schedules, each on the three accounts.
    `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ${POSTS})
     INSERT INTO posts (id, workspace_id, content, status, scheduled_at, created_at, updated_at)
     SELECT printf('%08x-cccc-4000-8000-%012x', n, n), '${reader}', 'Post number ' || n, 'draft',
       ${now} + n * 3153600, ${now} + n, ${now} + n FROM seq;`,
    ...readerAccounts.map(
      (a, i) => `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ${POSTS})
     INSERT INTO post_platforms (id, post_id, social_account_id, platform, content_type, enabled, display_name,
       display_username, position, created_at, updated_at)
     SELECT printf('%08x-dd0${i}-4000-8000-%012x', n, n), printf('%08x-cccc-4000-8000-%012x', n, n), '${a.id}',
       '${a.platform[0]}', '${a.platform[1]}', 1, 'Account ${i}', 'user_${i}', ${i}, ${now}, ${now} FROM seq;`,
    ),
  ];
  return { sql: lines.join("\n"), writerAccounts };
}

async function bootstrap(base, name) {
  const res = await fetch(`${base}/api/admin/workspaces`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name }),
  });
  const body = await res.json();
  if (!body.plain_token) throw new Error(`bootstrap: ${res.status} ${JSON.stringify(body)}`);
  return { id: body.workspace.id, key: body.plain_token };
}

/** One request: its latency (ms), status and the D1 statement count from `Server-Timing`. */
async function timed(row) {
  const t0 = performance.now();
  const res = await fetch(row.url, { method: row.method ?? "GET", headers: row.headers, body: row.body?.() });
  await res.arrayBuffer();
  const ms = performance.now() - t0;
  const statements = /d1;desc="(\d+) statements"/.exec(res.headers.get("Server-Timing") ?? "")?.[1];
  return { ms, status: res.status, statements: statements === undefined ? null : Number(statements) };
}

const loadAtStart = (await import("node:os"))
  .loadavg()
  .map((l) => l.toFixed(2))
  .join(" ");
const state = freshState();
const appPort = await freePort();
const vars = BENCH_VARS;
let app = await startWorker({ port: appPort, persistTo: state, vars, env: WORKER_ENV });
const writer = await bootstrap(app.base, "Writer");
const reader = await bootstrap(app.base, "Reader (10,000 posts)");
// Seeded with wrangler's own D1 client while the dev server is stopped (one SQL file, a few seconds).
await app.stop();
const { sql, writerAccounts } = seedSql({ writer: writer.id, reader: reader.id });
const file = path.join(mkdtempSync(path.join(tmpdir(), "bench-posts-")), "seed.sql");
writeFileSync(file, sql);
const seeded = spawnSync(
  "wrangler",
  ["d1", "execute", "DB", "--local", "--persist-to", state, "--file", file, "--yes"],
  { cwd: ROOT, env: { ...process.env, ...ENV }, encoding: "utf8" },
);
if (seeded.status !== 0) throw new Error(`seed failed: ${seeded.stderr}\n${seeded.stdout}`);
app = await startWorker({ port: appPort, persistTo: state, vars, env: WORKER_ENV });
const bare = await startBareWorker(WORKER_ENV);

try {
  const json = (key, body) => ({
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: () => JSON.stringify(body),
  });
  const targets = (n) =>
    writerAccounts.slice(0, n).map((a) => ({ social_account_id: a.id, content_type: a.platform[1] }));
  const rows = [
    { name: "bare Worker (constant response)", url: `${bare.base}/` },
    { name: "bare Worker + one D1 `SELECT 1`", url: `${bare.base}/d1` },
    {
      name: "POST /api/posts, 1 target",
      url: `${app.base}/api/posts`,
      method: "POST",
      ...json(writer.key, { content: "One", platforms: targets(1) }),
    },
    {
      name: `POST /api/posts, ${TARGETS_MAX} targets (all twelve platforms)`,
      url: `${app.base}/api/posts`,
      method: "POST",
      ...json(writer.key, { content: "Everyone", platforms: targets(TARGETS_MAX) }),
    },
    {
      name: `GET /api/posts, workspace with ${POSTS.toLocaleString("en")} posts (page 1)`,
      url: `${app.base}/api/posts`,
      headers: { Authorization: `Bearer ${reader.key}` },
    },
    {
      name: `GET /api/posts?page=500, same workspace`,
      url: `${app.base}/api/posts?page=500`,
      headers: { Authorization: `Bearer ${reader.key}` },
    },
  ];
  // Check the seeded workspace through the API, and warm every row once.
  const listed = await (await fetch(rows[4].url, { headers: rows[4].headers })).json();
  if (listed.meta?.total !== POSTS) throw new Error(`listed workspace holds ${listed.meta?.total} posts`);
  for (const row of rows) {
    const r = await timed(row);
    if (r.status >= 300) throw new Error(`${row.name} → ${r.status}`);
  }
  const results = new Map(rows.map((r) => [r.name, { times: [], statements: new Set(), errors: 0 }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const row of rows) {
      const acc = results.get(row.name);
      for (let i = 0; i < PER_ROUND; i++) {
        const r = await timed(row);
        acc.times.push(r.ms);
        if (r.statements !== null) acc.statements.add(r.statements);
        if (r.status >= 300) acc.errors++;
      }
    }
  }
  const floor = quantile(results.get(rows[0].name).times, 0.5);
  const table = rows
    .map((row) => {
      const r = results.get(row.name);
      const p50 = quantile(r.times, 0.5);
      const statements = r.statements.size ? [...r.statements].sort((a, b) => a - b).join(", ") : "—";
      return `| ${row.name} | ${statements} | ${p50.toFixed(2)} | ${quantile(r.times, 0.9).toFixed(2)} | ${(p50 / floor).toFixed(2)} | ${r.errors} |`;
    })
    .join("\n");
  const load = (await import("node:os"))
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  writeSection(
    "posts",
    `## Posts at the bounds: statements and latency (issue 15)

Command: \`node bench/posts/run.mjs\` (part of \`npm run bench\`) · ${today()} · ${machine()} · load average (1/5/15 min) at
the start ${loadAtStart}, at the end ${load} (a shared 2-core VM: compare the ratios, not the absolute times). \`wrangler dev\` on 127.0.0.1, local D1, local trace store off. Sequential requests (one connection),
${ROUNDS} rounds × ${PER_ROUND} requests per row, the rows interleaved in each round so the bare Worker and the routes
share the machine's drifts; percentiles over all rounds. The writer workspace has ${TARGETS_MAX} accounts over the
twelve platforms; every POST creates a draft there. The listed workspace holds ${POSTS.toLocaleString("en")} posts × 3
platform rows, seeded with \`wrangler d1 execute\`. D1 statements per request from the \`Server-Timing\` header
(outside production).

| route | D1 statements | p50 ms | p90 ms | p50 / bare Worker | errors |
|---|---|---|---|---|---|
${table}

The statement count of \`POST /api/posts\` is the same at 1 and at ${TARGETS_MAX} targets (every id list and multi-row
insert is one bound JSON array, src/db/json-params.ts), and that of \`GET /api/posts\` does not depend on how many
posts the workspace holds or which page is read (an indexed \`LIMIT 15 OFFSET …\`).
`,
  );
  console.log(table);
} finally {
  await app.stop();
  await bare.stop();
}
