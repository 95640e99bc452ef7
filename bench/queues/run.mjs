// Issue 37: add-to-queue under concurrency and the slot listing of a full queue, beside the bare-Worker floor
// (bench/bare-worker) measured in the same run.
// 1. 1,000 `POST /api/posts` with `queue_id` from 32 concurrent clients on one queue: every answer 201, all 1,000
//    slots distinct (and the queue's first 1,000), p50/p90 against the bare Worker under the same 32 clients;
// 2. `GET /api/queues/{queue}/slots?count=100` on that queue (1,000 posts), sequential, against the bare Worker.
// Run: npm run bench -- queues   (or node bench/queues/run.mjs). Loopback only.
import os from "node:os";
import { machine, quantile, today, writeSection } from "../lib/results.mjs";
import { BENCH_ADMIN, BENCH_VARS, freePort, freshState, startBareWorker, startWorker } from "../lib/worker.mjs";

const ADMIN = BENCH_ADMIN;
const ADDS = Number(process.env.BENCH_QUEUE_ADDS ?? 1000);
const CLIENTS = Number(process.env.BENCH_QUEUE_CLIENTS ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PER_ROUND = Number(process.env.BENCH_PER_ROUND ?? 20);
const WORKER_ENV = { X_LOCAL_OBSERVABILITY: "false" };

async function timed(url, init) {
  const t0 = performance.now();
  const res = await fetch(url, init);
  const text = await res.text();
  return { ms: performance.now() - t0, status: res.status, text };
}

/** `total` requests from `clients` concurrent loops; each loop sends its next request when the last answered. */
async function concurrent(total, clients, send) {
  const results = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < total) {
        const i = next++;
        results[i] = await send(i);
      }
    }),
  );
  return results;
}

const loadNow = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const loadAtStart = loadNow();
const vars = BENCH_VARS;
const app = await startWorker({ port: await freePort(), persistTo: freshState(), vars, env: WORKER_ENV });
const bare = await startBareWorker(WORKER_ENV);

try {
  const boot = await (
    await fetch(`${app.base}/api/admin/workspaces`, {
      method: "POST",
      headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "Queue bench" }),
    })
  ).json();
  const auth = { Authorization: `Bearer ${boot.plain_token}`, "Content-Type": "application/json" };
  const post = async (p, body) => {
    const r = await fetch(`${app.base}${p}`, { method: "POST", headers: auth, body: JSON.stringify(body) });
    const json = await r.json();
    if (r.status !== 201) throw new Error(`${p} → ${r.status} ${JSON.stringify(json)}`);
    return json;
  };
  const account = await post("/api/social-accounts", {
    platform: "x",
    display_name: "Bench X",
    username: "bench",
    credentials: { access_token: "token" },
  });
  // 14 slots a day, every day (98 a week): 1,000 posts fill about ten weeks.
  const slots = [1, 2, 3, 4, 5, 6, 7].flatMap((weekday) =>
    Array.from({ length: 14 }, (_, h) => ({ weekday, time: `${String(h + 8).padStart(2, "0")}:00` })),
  );
  const queue = await post("/api/queues", { name: "Bench", time_zone: "Europe/Paris", slots });
  const body = (i) =>
    JSON.stringify({
      content: `Queued post ${i}`,
      platforms: [{ social_account_id: account.id, content_type: "x_post" }],
      queue_id: queue.id,
    });
  // Warm both workers.
  await timed(`${bare.base}/`);
  await timed(`${app.base}/api/queues/${queue.id}/slots?count=1`, { headers: auth });

  const t0 = performance.now();
  const adds = await concurrent(ADDS, CLIENTS, (i) =>
    timed(`${app.base}/api/posts`, { method: "POST", headers: auth, body: body(i) }),
  );
  const addsWall = performance.now() - t0;
  const bareConcurrent = await concurrent(ADDS, CLIENTS, () => timed(`${bare.base}/`));
  // The same creates without a queue (drafts): what the slot costs on top of creating the post.
  const draftBody = (i) =>
    JSON.stringify({ content: `Draft ${i}`, platforms: [{ social_account_id: account.id, content_type: "x_post" }] });
  const drafts = await concurrent(ADDS, CLIENTS, (i) =>
    timed(`${app.base}/api/posts`, { method: "POST", headers: auth, body: draftBody(i) }),
  );
  if (drafts.some((r) => r.status !== 201)) throw new Error("a draft create was refused");
  const refused = adds.filter((r) => r.status !== 201);
  if (refused.length) throw new Error(`${refused.length} adds refused: ${refused[0].text}`);
  const times = adds.map((r) => JSON.parse(r.text).scheduled_at);
  const distinct = new Set(times).size;
  if (distinct !== ADDS) throw new Error(`${ADDS - distinct} slots given twice`);
  const listed = JSON.parse(
    (await timed(`${app.base}/api/queues/${queue.id}/slots?count=100`, { headers: auth })).text,
  );
  const firstHundredHeld = listed.every((s) => s.post_id !== null);
  const sortedTimes = [...times].sort();
  const firstListedMatches = listed.every((s, i) => s.at === sortedTimes[i]);

  // Sequential reads of the full queue's listing, interleaved with the bare Worker.
  const listing = { app: [], bare: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < PER_ROUND; i++)
      listing.app.push((await timed(`${app.base}/api/queues/${queue.id}/slots?count=100`, { headers: auth })).ms);
    for (let i = 0; i < PER_ROUND; i++) listing.bare.push((await timed(`${bare.base}/`)).ms);
  }

  const p = (xs, q) => quantile(xs, q).toFixed(2);
  const addMs = adds.map((r) => r.ms);
  const bareMs = bareConcurrent.map((r) => r.ms);
  const draftMs = drafts.map((r) => r.ms);
  const ratio = (a, b) => (quantile(a, 0.5) / quantile(b, 0.5)).toFixed(2);
  const table = `| measurement | p50 ms | p90 ms | p50 / bare Worker (same load) |
|---|---|---|---|
| bare Worker, ${CLIENTS} concurrent clients × ${ADDS} requests | ${p(bareMs, 0.5)} | ${p(bareMs, 0.9)} | 1.00 |
| \`POST /api/posts\` with \`queue_id\`, ${CLIENTS} concurrent clients × ${ADDS} | ${p(addMs, 0.5)} | ${p(addMs, 0.9)} | ${ratio(addMs, bareMs)} |
| \`POST /api/posts\` (a draft, no queue), ${CLIENTS} concurrent clients × ${ADDS}, after the adds | ${p(draftMs, 0.5)} | ${p(draftMs, 0.9)} | ${ratio(draftMs, bareMs)} |
| bare Worker, sequential | ${p(listing.bare, 0.5)} | ${p(listing.bare, 0.9)} | 1.00 |
| \`GET /api/queues/{queue}/slots?count=100\`, queue holding ${ADDS} posts, sequential | ${p(listing.app, 0.5)} | ${p(listing.app, 0.9)} | ${ratio(listing.app, listing.bare)} |`;
  const checks = `${ADDS} adds in ${(addsWall / 1000).toFixed(1)} s wall (${(ADDS / (addsWall / 1000)).toFixed(0)} adds/s); all 201; ${distinct} distinct slots; the listing's first 100 slots all held: ${firstHundredHeld}; they are the 100 earliest times given: ${firstListedMatches}.`;
  writeSection(
    "queues",
    `## Queues: 1,000 concurrent adds and a full queue's slot listing (issue 37, \`npm run bench -- queues\`)

Command: \`node bench/queues/run.mjs\` · ${today()} · ${machine()} · load average (1/5/15 min) at the start
${loadAtStart}, at the end ${loadNow()} (a shared 2-core VM: compare the ratios, not the absolute times).
\`wrangler dev\` on 127.0.0.1, local D1, local trace store off. One workspace, one X account, one queue in
Europe/Paris with 98 weekly slots. The adds are \`POST /api/posts\` with \`queue_id\` (create and queue in one call),
${CLIENTS} client loops each sending its next request when the last answered; the bare Worker is measured the same way
right after. The listing is read ${ROUNDS} × ${PER_ROUND} times, sequentially, interleaved with the bare Worker.

${table}

${checks}
`,
  );
  console.log(table);
  console.log(checks);
} finally {
  await app.stop();
  await bare.stop();
}
