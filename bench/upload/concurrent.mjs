// Concurrent worst-case image uploads against the isolate's memory budget (issue 25 finding 6).
// Run: node bench/upload/concurrent.mjs   (BENCH_CONCURRENT=8, BENCH_PORT=8791)
// For each budget (the production default, then one large enough to be off), a fresh `wrangler dev` of this Worker
// on fresh state, N signed uploads of a ≈9.7 MB photo-like PNG (1,800 × 1,800 RGB noise: the largest PNG under
// MEDIA_IMAGE_MAX_BYTES, decoded and re-encoded at ingest) sent at once, and workerd's peak RSS growth over idle.
import { randomBytes } from "node:crypto";
import sharp from "sharp";
import { machine, today, writeSection } from "../lib/results.mjs";
import { freshState, startWorker } from "../lib/worker.mjs";
import { findWorkerds, hostLine, watchMemory } from "../media/proc.mjs";

const PORT = Number(process.env.BENCH_PORT ?? 8791);
const N = Number(process.env.BENCH_CONCURRENT ?? 8);
const ADMIN = "bench-admin-token";
const MB = 1024 * 1024;

const side = 1800;
const raw = randomBytes(side * side * 3);
const png = await sharp(raw, { raw: { width: side, height: side, channels: 3 } })
  .png({ compressionLevel: 9 })
  .toBuffer();

async function run(budgetBytes) {
  const worker = await startWorker({
    port: PORT,
    persistTo: freshState(),
    vars: {
      ADMIN_TOKEN: ADMIN,
      UPLOAD_SIGNING_KEY: "bench-upload-signing-key",
      TOKEN_ENCRYPTION_KEY: "bench-token-encryption-key",
      UPLOAD_RATE_LIMIT_PER_MINUTE: "100000000",
      API_RATE_LIMIT_PER_MINUTE: "100000000",
      API_WORKSPACE_RATE_LIMIT_PER_MINUTE: "100000000",
      MEDIA_MEMORY_BUDGET_BYTES: String(budgetBytes),
      MEDIA_MEMORY_WAIT_SECONDS: "120",
      LOG_LEVEL: "warn",
    },
  });
  try {
    const boot = await fetch(`${worker.base}/api/admin/workspaces`, {
      method: "POST",
      headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "Bench" }),
    }).then((r) => r.json());
    const issue = async () =>
      (
        await fetch(`${worker.base}/api/uploads`, {
          method: "POST",
          headers: { Authorization: `Bearer ${boot.plain_token}` },
        })
      ).json();
    const urls = [];
    for (let i = 0; i <= N; i++) urls.push((await issue()).upload_url);
    const send = (url, bytes, name) => {
      const form = new FormData();
      form.append("media", new Blob([bytes]), name);
      return fetch(url, { method: "POST", body: form }).then(async (r) => ({ status: r.status, body: await r.text() }));
    };
    // Warm the isolate and the codecs with one small PNG; the idle reading is taken after it.
    const small = await sharp(raw.subarray(0, 64 * 64 * 3), { raw: { width: 64, height: 64, channels: 3 } })
      .png()
      .toBuffer();
    await send(urls[N], small, "warm.png");
    const peak = watchMemory(findWorkerds(worker.pid));
    const started = performance.now();
    const results = await Promise.all(urls.slice(0, N).map((u, i) => send(u, png, `p${i}.png`)));
    const seconds = (performance.now() - started) / 1000;
    const statuses = results.map((r) => r.status).join(", ");
    return { growth: peak().growthMb, seconds, statuses };
  } finally {
    await worker.stop();
  }
}

const rows = [];
for (const [label, budget] of [
  ["100 MiB (default)", 100 * MB],
  ["52 MiB (one file at a time)", 52 * MB],
  ["off (100 GiB)", 100 * 1024 * MB],
]) {
  const r = await run(budget);
  const line = `| ${label} | ${N} × ${(png.length / MB).toFixed(1)} MB PNG | ${r.statuses} | ${r.seconds.toFixed(1)} | ${r.growth.toFixed(0)} |`;
  console.log(line);
  rows.push(line);
}

writeSection(
  "upload-concurrent",
  `## Concurrent image uploads and the memory budget (\`node bench/upload/concurrent.mjs\`, issue 25)

${today()} · ${machine()}

${hostLine()}

${N} signed uploads of the same ${(png.length / MB).toFixed(1)} MB PNG (${side} × ${side} RGB noise, transcoded to JPEG at
ingest) sent at once to a fresh \`wrangler dev\`, after one small warm-up upload; peak RSS growth = workerd's VmHWM
− its idle VmRSS. The budget's share of each file: its Content-Length × 2 + the decode (2 × 9.7 MB of inflated
rows + 12 MiB) ≈ 51 MiB, so the default 100 MiB lets one or two in at a time, 52 MiB one; "off" is the behaviour
before. RSS growth is an upper bound of the isolate's live memory: it also holds garbage the collector has not
reclaimed yet (the inflater's buffers, each transcode's output), and \`wrangler dev\` does not enforce the 128 MB
limit, so a collection is never forced. The budget bounds what requests hold at once (the buffered files and one
decode); it cannot bound garbage.

| budget | files | statuses | seconds | peak RSS growth MB |
|---|---|---|---|---|
${rows.join("\n")}
`,
);
