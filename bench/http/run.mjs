// Request overhead of the API against a bare Worker, D1 queries per request, bundle size and startup time.
// Run: npm run bench -- http   (or node bench/http/run.mjs). Loopback only.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { machine, quantile, today, writeSection } from "../lib/results.mjs";
import { freshState, ROOT, startWorker } from "../lib/worker.mjs";
import { seed, VARS } from "./seed.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 3);
// wrangler dev records every span of every request into a local SQLite trace store (X_LOCAL_OBSERVABILITY, on by
// default since wrangler 4.1xx). On Cloudflare tracing happens outside the request; locally it costs each D1 or
// Durable Object call a span write. Off for both workers unless BENCH_LOCAL_TRACES=1.
const LOCAL_TRACES = process.env.BENCH_LOCAL_TRACES === "1";
const WORKER_ENV = { X_LOCAL_OBSERVABILITY: LOCAL_TRACES ? "true" : "false" };
/** One autocannon run, with every response's own latency (autocannon's percentiles are whole milliseconds). */
function cannon(opts) {
  return new Promise((resolve, reject) => {
    const times = [];
    const instance = autocannon({ duration: DURATION_S, ...opts }, (err, result) =>
      err ? reject(err) : resolve({ result, times }),
    );
    instance.on("response", (_client, _status, _bytes, responseTime) => times.push(responseTime));
  });
}

/**
 * CPU time (ms) of each process in the tree under `rootPid` (the worker's `wrangler dev`: its Node process and the
 * workerd processes it starts — the runtime that runs the Worker and the D1/R2/KV/DO simulators, and the proxy in
 * front of it), from /proc (Linux). Used to show which process bounds throughput at 32 connections.
 */
function cpuOfTree(rootPid) {
  const stats = new Map();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      stats.set(Number(pid), { ppid: Number(fields[1]), ms: (Number(fields[11]) + Number(fields[12])) * 10 });
    } catch {}
  }
  const tree = new Map();
  const visit = (pid) => {
    if (!stats.has(pid) || tree.has(pid)) return;
    tree.set(pid, stats.get(pid).ms);
    for (const [child, s] of stats) if (s.ppid === pid) visit(child);
  };
  visit(rootPid);
  return tree;
}

/** µs of CPU per request between two `cpuOfTree` readings: all processes, and the busiest one. */
function cpuPerRequest(before, after, requests) {
  const per = [...after].map(([pid, ms]) => ((ms - (before.get(pid) ?? ms)) * 1000) / Math.max(requests, 1));
  return { total: per.reduce((a, b) => a + b, 0), busiest: Math.max(0, ...per) };
}

/** Percentiles and mean over all rounds' responses; req/s averaged over the rounds. */
function summary({ times, rps }) {
  return {
    p50: quantile(times, 0.5) ?? Number.NaN,
    p99: quantile(times, 0.99) ?? Number.NaN,
    mean: times.reduce((a, b) => a + b, 0) / times.length,
    rps: Math.round(rps.reduce((a, b) => a + b, 0) / rps.length),
  };
}

/**
 * D1 statements and round trips of one request, from the `Server-Timing` header the Worker adds outside production
 * (`d1` counts statements, `d1rt` calls that each wait for D1 — a batch is one).
 */
async function queriesOf(base, method, url, key, body, headers = {}) {
  // Warm the key first (the isolate keeps a key lookup for a minute, and the first use also writes last_used_at),
  // so the count is the route's own.
  await (await fetch(`${base}/api/workspace`, { headers: { Authorization: `Bearer ${key}` } })).arrayBuffer();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const res = await fetch(base + url, {
    method,
    headers: {
      Authorization: `Bearer ${key}`,
      ...(body ? { "Content-Type": "application/json" } : {}),
      ...headers,
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  await res.arrayBuffer();
  const timing = res.headers.get("Server-Timing") ?? "";
  if (process.env.BENCH_VERBOSE) console.log(url, res.status, timing);
  if (res.status >= 300) throw new Error(`${method} ${url} → ${res.status}`);
  return {
    statements: /d1;desc="(\d+) statements"/.exec(timing)?.[1] ?? "n/a",
    roundTrips: /d1rt;desc="(\d+) round trips"/.exec(timing)?.[1] ?? "n/a",
    rows: /d1rows;desc="(\d+ read, \d+ written)"/.exec(timing)?.[1] ?? "n/a",
  };
}

/** A fresh Idempotency-Key per request (autocannon's `setupRequest`), so every request creates a post. */
let keyCounter = 0;
const freshKey = (req) => ({
  ...req,
  headers: { ...req.headers, "Idempotency-Key": `bench-${process.pid}-${++keyCounter}` },
});

/**
 * `PUT /api/posts/{post}` over `ids` in turn, so concurrent requests edit different posts: an edit applies only to
 * the post as its request read it (docs/posts.md), and 32 connections on one post would mostly answer 409.
 */
function rotatePosts(ids) {
  let i = 0;
  return (req) => ({ ...req, path: `/api/posts/${ids[i++ % ids.length]}` });
}

function bundle() {
  const out = mkdtempSync(path.join(tmpdir(), "bench-bundle-"));
  const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };
  const dry = spawnSync("wrangler", ["deploy", "--dry-run", "--outdir", out], { cwd: ROOT, env, encoding: "utf8" });
  const m = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(dry.stdout + dry.stderr);
  const profile = path.join(out, "startup.cpuprofile");
  spawnSync("wrangler", ["check", "startup", "--outfile", profile], { cwd: ROOT, env, encoding: "utf8" });
  let startupMs = "n/a";
  try {
    const p = JSON.parse(readFileSync(profile, "utf8"));
    startupMs = ((p.endTime - p.startTime) / 1000).toFixed(0);
  } catch {}
  return { upload: m?.[1] ?? "n/a", gzip: m?.[2] ?? "n/a", startupMs };
}

const state = freshState();
const app = await startWorker({
  port: Number(process.env.BENCH_PORT ?? 8790),
  persistTo: state,
  vars: VARS,
  env: WORKER_ENV,
});
console.log(`API worker ready in ${Math.round(app.readyMs)} ms`);
const bare = await startWorker({
  port: Number(process.env.BENCH_PORT ?? 8790) + 1,
  config: path.join(ROOT, "bench/bare-worker/wrangler.jsonc"),
  persistTo: mkdtempSync(path.join(tmpdir(), "bench-bare-")),
  healthPath: "/",
  env: WORKER_ENV,
});
try {
  const { key, postId, labelId } = await seed(app.base);
  const auth = { Authorization: `Bearer ${key}` };
  // The writes go to a workspace of their own, so the listed workspace keeps its 20 posts all session.
  const writer = await seed(app.base, { posts: 0 });
  const writerHeaders = { Authorization: `Bearer ${writer.key}`, "Content-Type": "application/json" };
  // PUT edits these in turn (more posts than requests in flight, so two never edit the same post at once).
  const edited = [];
  for (let i = 0; i < 256; i++) {
    const res = await fetch(`${app.base}/api/posts`, {
      method: "POST",
      headers: writerHeaders,
      body: JSON.stringify(writer.createBody),
    });
    if (res.status !== 201) throw new Error(`POST /api/posts → ${res.status} ${await res.text()}`);
    edited.push((await res.json()).id);
  }
  const editBody = { content: "Bench edit", label_ids: writer.createBody.label_ids };
  const routes = [
    { name: "GET /api/health", url: "/api/health" },
    { name: "GET /api/posts (15 posts × 3 platforms, 2 labels, 2 media)", url: "/api/posts", headers: auth },
    { name: "GET /api/posts/{post}", url: `/api/posts/${postId}`, headers: auth },
    {
      name: "POST /api/posts",
      url: "/api/posts",
      method: "POST",
      headers: writerHeaders,
      body: JSON.stringify(writer.createBody),
    },
    {
      name: "POST /api/posts with Idempotency-Key",
      url: "/api/posts",
      method: "POST",
      headers: writerHeaders,
      body: JSON.stringify(writer.createBody),
      setupRequest: freshKey,
      countHeaders: { "Idempotency-Key": "bench-count" },
    },
    {
      name: "PUT /api/posts/{post} (content and labels)",
      url: `/api/posts/${edited[0]}`,
      method: "PUT",
      headers: writerHeaders,
      body: JSON.stringify(editBody),
      setupRequest: rotatePosts(edited),
    },
    { name: "GET /api/content-types", url: "/api/content-types", headers: auth },
  ];
  const listPage = await fetch(`${app.base}/api/posts`, { headers: auth });
  const listBytes = (await listPage.arrayBuffer()).byteLength;
  // Every row is compared with the bare Worker measured at the same concurrency, in the same rounds: each round runs
  // every row of its phase once for DURATION_S, so slow drifts of this VM hit the floor and the routes alike. Reads
  // run first at both concurrencies and the write (POST) last, so every read sees the same database.
  const bareRow = { name: "bare Worker (constant response)", url: `${bare.base}/` };
  const floorRows = [
    bareRow,
    { name: "bare Worker + one D1 `SELECT 1` (floor of any D1 route)", url: `${bare.base}/d1` },
    { name: "bare Worker + one D1 `SELECT 1` in a session (as every API request)", url: `${bare.base}/d1-session` },
    {
      name: `bare Worker, constant ${(listBytes / 1024).toFixed(1)} KiB body (size of the list page)`,
      url: `${bare.base}/sized?bytes=${listBytes}`,
    },
  ];
  // The floor of a create: its D1 work (one read batch, one write batch, in a session) without the API's code.
  const createFloor = {
    name: "bare Worker + the create's D1 work alone (1 read + 1 write batch in a session, no app code)",
    url: `${bare.base}/d1-create`,
    method: "POST",
  };
  // The floor of a create whose rows the isolate remembers (src/services/posts/reference-memory.ts): the write alone.
  const createWriteFloor = {
    name: "bare Worker + the create's write batch alone (1 round trip in a session, no app code)",
    url: `${bare.base}/d1-create-write`,
    method: "POST",
  };
  const appRow = (r) => ({ ...r, url: app.base + r.url });
  const phases = [
    [...floorRows, ...routes.filter((r) => !r.method).map(appRow)],
    [bareRow, createFloor, createWriteFloor, ...routes.filter((r) => r.method).map(appRow)],
  ];
  /** Per concurrency and row: every response time, and each round's p50 next to the bare Worker's of that round. */
  const runs = new Map();
  for (const rowsOfPhase of phases) {
    for (const c of [1, 32]) {
      for (let round = 0; round < ROUNDS; round++) {
        let bareP50 = 0;
        for (const row of rowsOfPhase) {
          const serverPid = row.url.startsWith(bare.base) ? bare.pid : app.pid;
          const cpuBefore = cpuOfTree(serverPid);
          const { result, times } = await cannon({
            url: row.url,
            ...(row.setupRequest
              ? {
                  requests: [
                    { method: row.method, headers: row.headers, body: row.body, setupRequest: row.setupRequest },
                  ],
                }
              : { method: row.method ?? "GET", headers: row.headers, body: row.body }),
            connections: c,
          });
          if (times.length === 0) console.warn(`${row.name} at ${c} connections: no response in this round`);
          const key = `${c}|${row.name}`;
          const acc = runs.get(key) ?? {
            c,
            route: row.name,
            times: [],
            rps: [],
            errors: 0,
            roundRatios: [],
            cpu: { total: 0, busiest: 0, requests: 0 },
          };
          const cpu = cpuPerRequest(cpuBefore, cpuOfTree(serverPid), times.length);
          acc.cpu.total += cpu.total * times.length;
          acc.cpu.busiest += cpu.busiest * times.length;
          acc.cpu.requests += times.length;
          runs.set(key, acc);
          const p50 = quantile(times, 0.5);
          if (row === bareRow) bareP50 = p50;
          acc.times.push(...times);
          acc.rps.push(result.requests.average);
          acc.errors += result.errors + result.non2xx;
          acc.roundRatios.push(p50 / bareP50);
        }
      }
    }
  }
  const measured = [...runs.values()].map((r) => ({ ...r, ...summary(r) }));
  const floors = new Map(measured.filter((r) => r.route === bareRow.name).map((r) => [r.c, r]));
  const floorNames = [...floorRows, createFloor, createWriteFloor].map((r) => r.name);
  const order = (name) => {
    const i = routes.findIndex((r) => r.name === name);
    return i < 0 ? floorNames.indexOf(name) - floorNames.length : i;
  };
  const rows = measured
    .sort((a, b) => a.c - b.c || order(a.route) - order(b.route))
    .map((r) => {
      const floor = floors.get(r.c);
      return {
        ...r,
        ratio: (r.p50 / Math.max(floor.p50, 0.001)).toFixed(2),
        meanRatio: (r.mean / Math.max(floor.mean, 0.001)).toFixed(2),
        roundRange: `${Math.min(...r.roundRatios).toFixed(2)}–${Math.max(...r.roundRatios).toFixed(2)}`,
      };
    });
  const queries = [];
  for (const r of routes) {
    queries.push({
      route: r.name,
      n: await queriesOf(
        app.base,
        r.method ?? "GET",
        r.url,
        r.headers?.Authorization?.slice("Bearer ".length) ?? key,
        r.body ? JSON.parse(r.body) : undefined,
        r.countHeaders,
      ),
    });
  }
  queries.push({
    route: "POST /api/posts with Idempotency-Key, replayed",
    n: await queriesOf(app.base, "POST", "/api/posts", writer.key, writer.createBody, {
      "Idempotency-Key": "bench-count",
    }),
  });
  // The list's two other paths: a page this isolate has not read yet (another filter, the same 15 posts) is one full
  // statement; a page read before in which posts changed is the light statement plus one rendering those posts.
  queries.push({
    route: "GET /api/posts?label_id=… (the same page, first read in this isolate)",
    n: await queriesOf(app.base, "GET", `/api/posts?label_id=${labelId}`, key),
  });
  // A change the list did not render itself (an edit through PUT /api/posts answers with the post, which refreshes
  // the isolate's rendering): a label every post carries is renamed, so all 15 are rendered again.
  const rename = await fetch(`${app.base}/api/labels/${labelId}`, {
    method: "PUT",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "renamed", color: "#654321" }),
  });
  if (!rename.ok) throw new Error(`PUT /api/labels/{label} → ${rename.status} ${await rename.text()}`);
  queries.push({
    route: "GET /api/posts after a label its 15 posts carry was renamed",
    n: await queriesOf(app.base, "GET", "/api/posts", key),
  });
  const timingRes = await fetch(`${app.base}/api/posts`, { headers: auth });
  await timingRes.arrayBuffer();
  const listTiming = timingRes.headers.get("Server-Timing") ?? "n/a";
  const b = bundle();
  const ratiosOf = (name) => {
    const of = rows.filter((r) => r.route === name);
    return {
      text: of.map((r) => `${r.ratio}× at ${r.c} connection${r.c > 1 ? "s" : ""}`).join(", "),
      met: of.every((r) => Number(r.ratio) <= 3),
    };
  };
  const list = ratiosOf(routes[1].name);
  const create = ratiosOf("POST /api/posts");
  const createLine = [1, 32]
    .map((c) => {
      const bareAt = rows.find((r) => r.c === c && r.route === bareRow.name);
      const session = rows.find((r) => r.c === c && r.route.includes("in a session (as every"));
      const floor = rows.find((r) => r.c === c && r.route === createFloor.name);
      const writeFloor = rows.find((r) => r.c === c && r.route === createWriteFloor.name);
      const api = rows.find((r) => r.c === c && r.route === "POST /api/posts");
      return `at ${c} connection${c > 1 ? "s" : ""}: one \`SELECT 1\` in a session ${session.ratio}×, the create's D1 work alone ${floor.ratio}× (${floor.p50.toFixed(2)} of ${bareAt.p50.toFixed(2)} ms) and its write batch alone ${writeFloor.ratio}×, the API's create ${api.ratio}× — ${(api.p50 / writeFloor.p50).toFixed(2)}× its one-round-trip floor`;
    })
    .join("; ");
  const floorLine = [1, 32]
    .map((c) => {
      const f = rows.find((r) => r.c === c && r.route.startsWith("bare Worker + one D1"));
      const z = rows.find((r) => r.c === c && r.route.startsWith("bare Worker, constant"));
      const l = rows.find((r) => r.c === c && r.route.startsWith("GET /api/posts (15"));
      return `at ${c} connection${c > 1 ? "s" : ""}, one \`SELECT 1\` alone is ${f.meanRatio}× the bare Worker (mean), a constant body the size of the list page alone ${z.meanRatio}×, and the list is ${(l.mean / f.mean).toFixed(2)}× the D1 floor`;
    })
    .join("; ");
  const table = rows
    .map(
      (r) =>
        `| ${r.route} | ${r.c} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.mean.toFixed(2)} | ${r.rps} | ${r.ratio} | ${r.roundRange} | ${r.meanRatio} | ${(r.cpu.total / Math.max(r.cpu.requests, 1)).toFixed(0)} | ${(r.cpu.busiest / Math.max(r.cpu.requests, 1)).toFixed(0)} | ${r.errors} |`,
    )
    .join("\n");
  writeSection(
    "http",
    `## Request overhead, D1 queries, bundle (issue 9)

Command: \`node bench/http/run.mjs\` (part of \`npm run bench\`) · ${today()} · ${machine()}
\`wrangler dev\` on 127.0.0.1, local D1/R2/KV/DO, local trace store ${LOCAL_TRACES ? "on" : "off (`X_LOCAL_OBSERVABILITY=false` for both workers; `BENCH_LOCAL_TRACES=1` keeps it)"}.
The bare Worker (bench/bare-worker) runs with the API's runtime settings: compatibility date, \`nodejs_compat\` and
Workers Observability (which wraps every binding call in a span). autocannon, ${ROUNDS} rounds × ${DURATION_S} s per row (\`BENCH_ROUNDS\`, \`BENCH_DURATION_S\`): each round runs every row once, so
the bare Worker and the routes share the VM's slow drifts. Reads run first at both concurrencies, then the write rows
(with the bare Worker again), so every read sees the same database; the writes go to a workspace of their own (the
create body: 3 targets and 2 labels; each idempotent create with a key of its own; the edit rotates over 256 posts
so that no two requests in flight edit the same one). Percentiles and means are over every response of
all rounds, from each response's own latency (autocannon's \`response\` event; its histogram rounds to whole
milliseconds). p50 ratio = p50 / bare Worker p50 at the same concurrency; the per-round column is the same ratio
within each round, to show the spread.

| route | connections | p50 ms | p99 ms | mean ms | req/s | p50 ratio | p50 ratio per round | mean ratio | server CPU µs/req | busiest process µs/req | errors |
|---|---|---|---|---|---|---|---|---|---|---|---|
${table}

D1 statements per request (\`Server-Timing\` header, also \`d1_queries\` in the request log; a warm key needs none
for auth), measured on the seeded workspace — the count does not depend on how many platforms, labels and media the
posts carry (test/routes/posts-list.test.ts compares a plain page with a rich one). The list has three paths, each
with a fixed count: a page this isolate read before and that did not change (the timed rows), a page it has not read
yet, and a page in which posts changed (test/routes/posts-rendered.test.ts):

| route | D1 statements | D1 round trips | D1 rows (as D1 reports them) |
|---|---|---|---|
${queries.map((q) => `| ${q.route} | ${q.n.statements} | ${q.n.roundTrips} | ${q.n.rows} |`).join("\n")}

Bundle (\`wrangler deploy --dry-run\`): ${b.upload} KiB uploaded, **${b.gzip} KiB gzip** (target < 1024 KiB:
${Number(b.gzip) < 1024 ? "met" : "NOT met"}), codecs included.
Startup (\`wrangler check startup\` CPU profile span): ${b.startupMs} ms (the MCP SDK is imported on first use).

Targets: \`GET /api/posts\` p50 ratio ${list.text} (target ≤ 3×: ${list.met ? "met" : "**not met**"});
\`POST /api/posts\` p50 ratio ${create.text} (issue 28's target ≤ 3× at both: ${create.met ? "met" : "**not met**"}); every write
verb at most one read round trip and one write batch (the table above; test/routes/round-trips.test.ts). The timed
creates are one round trip: the isolate remembers the accounts and labels an earlier create read, and the write batch
alone runs, its post INSERT guarded by those rows' fingerprints (docs/consistency.md, "Creates from remembered
rows"; so is the counted row above — a workspace's first create in an isolate reads first: 2 round trips,
test/routes/round-trips.test.ts). At 32 connections the creates also share D1 calls: those that arrive while
another create's write is in flight go together in the next call, one transaction for up to 16 posts whose posts,
platform rows and label links are each one INSERT (group commit, docs/consistency.md); the floors below do not (each
is one call per request). Before group commit the
create's runtime CPU at 32 connections was 2,142 µs per response and its ratio 4.32× (2026-11-28, before this change). The
create's floors (p50 ratio to the bare Worker of the same phase): ${createLine}. The two CPU columns are the CPU time
of the serving \`wrangler dev\` tree per response (its Node process, the workerd proxy in front, and the workerd
runtime that runs the Worker together with the D1, R2, KV and Durable Object simulators), read from /proc around each
row: at 32 connections the p50 is set by the busiest of those processes, the runtime, one thread for the Worker and
every simulator, so a route's ratio there is close to its runtime CPU over the bare Worker's busiest process (its
proxy). Auth adds
at most one D1 read (here: none for a key this isolate has seen in the last minute, one otherwise; concurrent first
requests share it). A busy key costs no Durable Object call either: the throttle is spent from leases of at most
1 s, which is also the documented revocation bound in other isolates (at once in the revoking one —
docs/decisions.md). One renewal at a time per key and isolate: before that, the 32-connection rows renewed the lease
from every request in flight (one Durable Object call of one hit each). A \`/proc\` CPU count at 32 connections put
that at ≈ 0.35 ms of server CPU per authenticated request (\`GET /api/content-types\` 711 → 318 µs per request in the
workerd process that runs the Worker and its simulators, \`GET /api/posts\` 2,100 → 1,694 µs), and the list went from
3.2× to ≈ 2.5× at 32 connections.

Where the time goes (\`Server-Timing\` on one request, outside production): ${listTiming}. Under \`wrangler dev\` every
D1 call crosses into miniflare's SQLite simulator, and D1 cost grows with each statement and each column returned,
so the list is one statement: the count, the page's ids, and each post's whole resource (platforms with accounts,
media, labels) built as JSON by SQLite (src/services/posts/load-posts.ts). A page this isolate has read before costs
less: its statement reads only the count, ids and revisions, and a second statement renders just the posts whose
trigger-maintained revision moved (src/services/posts/rendered-posts.ts). Here every list read after the first
finds the page unchanged, as a client polling an unchanged feed would, so it is one light statement. The
second and third rows are floors no route can go below: the same bare Worker plus one \`SELECT 1\` (any route that
reads D1), and the same bare Worker answering a constant body as large as the list page (any route that sends that
much through wrangler's proxy) — ${floorLine}. The run-to-run spread, and paired comparisons of the list with and
without the reuse, are in the section above. On Cloudflare, D1 and Durable
Objects are remote services with different costs, so these ratios say little about production latency.`,
  );
  console.log(table);
  console.log(queries, b);
} finally {
  await app.stop();
  await bare.stop();
}
