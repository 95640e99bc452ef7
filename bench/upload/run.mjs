// Streaming upload and upload-guard benchmarks (run: npm run bench -- upload, or node bench/upload/run.mjs).
// Starts `wrangler dev` on 127.0.0.1:8789 with fresh local state (--persist-to a temp dir). Loopback only.
//
// 1. A real MP4 padded to 500 MB and to 1 GB (BENCH_VIDEO_MB="500,1000"), each streamed as multipart to a signed
//    upload URL (same pipeline as POST /posts/{post}/media: streaming multipart parser → R2 multipart upload in
//    8 MiB parts): workerd's peak RSS growth over idle, and throughput against a plain loopback copy of the same
//    bytes to a Node HTTP server that discards them. Also written: the "Does upload memory plateau?" section.
// 2. Added latency of the UploadGuard per request: 404 before the guard (non-UUID token) vs 403 after the per-IP
//    window (one Durable Object call) and HMAC check, and a full 201 upload of a 1×1 GIF (window + claim + spend).
import { createReadStream, createWriteStream, existsSync, readFileSync, statSync } from "node:fs";
import http from "node:http";
import os, { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import { machine, median, quantile, today, writeSection } from "../lib/results.mjs";
import { freshState, startWorker } from "../lib/worker.mjs";
import { findWorkerds, hostLine, watchMemory } from "../media/proc.mjs";

const PORT = Number(process.env.BENCH_PORT ?? 8789);
/** File sizes measured, MB: the 500 MB figure and the 1 GB one that shows whether memory stays flat. */
const VIDEO_SIZES = (process.env.BENCH_VIDEO_MB ?? "500,1000").split(",").map(Number);
const REAL_VIDEO = path.resolve(import.meta.dirname, "../../test/media/fixtures/video/faststart.mp4");
const LATENCY_N = Number(process.env.BENCH_LATENCY_N ?? 200);
const ADMIN = "bench-admin-token";
const MB = 1024 * 1024;
const GIF = Buffer.from("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==", "base64");

/**
 * A real video (ffmpeg's faststart MP4, test/media/fixtures/video/faststart.mp4: moov first) grown to `mb` MB by a
 * trailing `free` box of pseudo-random bytes: a file the upload pipeline accepts (its container is read after
 * the upload, issue 29), the size the benchmark needs. A synthetic ftyp + mdat without a moov is refused (422).
 */
async function videoFile(mb) {
  const file = path.join(tmpdir(), `bench-real-video-${mb}mb.mp4`);
  if (existsSync(file) && statSync(file).size === mb * MB) return file;
  const real = readFileSync(REAL_VIDEO);
  const total = mb * MB;
  if (total - real.length >= 2 ** 32) throw new Error("padding past 4 GB needs a 64-bit free box");
  const out = createWriteStream(file);
  const chunk = Buffer.alloc(MB);
  for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 131 + (i >> 9)) & 255;
  const free = Buffer.alloc(8);
  free.writeUInt32BE(total - real.length, 0);
  free.write("free", 4, "latin1");
  const head = Buffer.concat([real, free]);
  for (let m = 0; m < mb; m++) {
    const c = Buffer.from(chunk);
    if (m === 0) head.copy(c);
    else c.writeUInt32BE(m, 64);
    if (!out.write(c)) await new Promise((r) => out.once("drain", r));
  }
  out.end();
  await finished(out);
  return file;
}

/** A multipart body (one `media` file part) streamed from disk, with its exact length. */
function multipart(file) {
  const boundary = `----bench${Date.now()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="media"; filename="video.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = statSync(file).size;
  async function* gen() {
    yield head;
    for await (const c of createReadStream(file, { highWaterMark: MB })) yield c;
    yield tail;
  }
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    length: head.length + size + tail.length,
    body: () => Readable.toWeb(Readable.from(gen())),
  };
}

async function post(url, mp, headers = {}) {
  return fetch(url, {
    method: "POST",
    body: mp.body(),
    duplex: "half",
    headers: { "Content-Type": mp.contentType, "Content-Length": String(mp.length), ...headers },
  });
}

/** Plain loopback copy: the same bytes POSTed to a Node server that drains them. */
async function loopbackCopy(mp) {
  const server = http.createServer((req, res) => {
    req.on("data", () => {});
    req.on("end", () => res.end("ok"));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  const t0 = performance.now();
  const res = await post(`http://127.0.0.1:${port}/`, mp);
  await res.text();
  const ms = performance.now() - t0;
  server.close();
  return ms;
}

const p95 = (xs) => quantile(xs, 0.95);

/** The same body, multipart-parsed and drained by a bare Worker (no R2): the parser's own footprint. */
async function drainOnly(file, mp) {
  const w = await startWorker({
    config: path.join(import.meta.dirname, "drain-worker/wrangler.jsonc"),
    port: PORT,
    healthPath: "/health",
  });
  try {
    const peak = watchMemory(findWorkerds(w.pid));
    const t0 = performance.now();
    const r = await post(`${w.base}/`, mp);
    const body = await r.json();
    const ms = performance.now() - t0;
    if (body.bytes !== statSync(file).size) throw new Error(`drained ${body.bytes} bytes`);
    return { ms, ...peak() };
  } finally {
    await w.stop();
  }
}

const runs = [];
for (const mb of VIDEO_SIZES) {
  const file = await videoFile(mb);
  const mp = multipart(file);
  const copyMs = await loopbackCopy(mp);
  const drain = await drainOnly(file, mp);
  console.log(`${mb} MB: drain ${drain.ms.toFixed(0)} ms, growth ${drain.growthMb.toFixed(0)} MB`);
  runs.push({ mb, file, mp, copyMs, drain });
}
const loadBefore = os.loadavg()[0];

/** `wrangler dev` of this Worker on fresh local state, a workspace and its key, warmed by one small upload. */
async function startApi() {
  const worker = await startWorker({
    port: PORT,
    persistTo: freshState(),
    vars: {
      ADMIN_TOKEN: ADMIN,
      UPLOAD_SIGNING_KEY: "bench-upload-signing-key",
      TOKEN_ENCRYPTION_KEY: "bench-token-encryption-key",
      UPLOAD_MAX_BYTES: String(1024 * MB),
      UPLOAD_RATE_LIMIT_PER_MINUTE: "100000000",
      API_RATE_LIMIT_PER_MINUTE: "100000000",
      API_WORKSPACE_RATE_LIMIT_PER_MINUTE: "100000000",
      LOG_LEVEL: "warn",
    },
  });
  const boot = await fetch(`${worker.base}/api/admin/workspaces`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "Bench" }),
  }).then((r) => r.json());
  const key = boot.plain_token;
  const issue = async () =>
    (await fetch(`${worker.base}/api/uploads`, { method: "POST", headers: { Authorization: `Bearer ${key}` } })).json();
  // Warm the isolate (and the R2 path) with a small upload first; the idle reading is taken after it.
  const { upload_url } = await issue();
  const form = new FormData();
  form.append("media", new Blob([GIF]), "warm.gif");
  await (await fetch(upload_url, { method: "POST", body: form })).text();
  return { worker, issue };
}

// 1. Streaming uploads (500 MB, 1 GB), each in a Worker of its own on fresh state (so each growth is over the same
//    kind of idle, not over what the previous upload left in the process).
for (const run of runs) {
  const { worker, issue } = await startApi();
  try {
    const peakGrowth = watchMemory(findWorkerds(worker.pid));
    const { upload_url } = await issue();
    const t0 = performance.now();
    const res = await post(upload_url, run.mp, { "CF-Connecting-IP": "198.51.100.1" });
    const text = await res.text();
    run.uploadMs = performance.now() - t0;
    run.mem = peakGrowth();
    if (res.status !== 201) throw new Error(`upload → ${res.status} ${text}`);
    if (JSON.parse(text).type !== "video") throw new Error(`upload stored ${text}`);
    console.log(
      `${run.mb} MB: upload ${run.uploadMs.toFixed(0)} ms, loopback copy ${run.copyMs.toFixed(0)} ms, RSS idle ${run.mem.idleMb.toFixed(0)} MB, peak ${run.mem.peakMb.toFixed(0)} MB`,
    );
  } finally {
    await worker.stop();
  }
}

const { worker, issue } = await startApi();
const lines = [];
try {
  const loadAfter = os.loadavg()[0];
  for (const { mb, uploadMs, copyMs, mem, drain } of runs) {
    const mbps = (mb / (uploadMs / 1000)).toFixed(0);
    const copyMbps = (mb / (copyMs / 1000)).toFixed(0);
    lines.push(
      `### Streaming upload of a ${mb} MB MP4 (signed upload URL, multipart → R2 multipart in 8 MiB parts)`,
      "",
      "| measure | value |",
      "|---|---|",
      `| workerd (Worker runtime) RSS when idle, after one warm-up upload | ${mem.idleMb.toFixed(0)} MB |`,
      `| workerd peak RSS during the upload (VmHWM) | ${mem.peakMb.toFixed(0)} MB |`,
      `| growth over idle | **${mem.growthMb.toFixed(0)} MB** for a ${mb} MB file |`,
      `| upload through the Worker | ${(uploadMs / 1000).toFixed(1)} s, **${mbps} MB/s** |`,
      `| plain loopback copy of the same body to a Node server | ${(copyMs / 1000).toFixed(1)} s, ${copyMbps} MB/s |`,
      `| Worker vs plain copy | ${(uploadMs / copyMs).toFixed(1)}× the time |`,
      `| same body multipart-parsed and drained by a bare Worker (no R2) | ${(drain.ms / 1000).toFixed(1)} s, ${(mb / (drain.ms / 1000)).toFixed(0)} MB/s, RSS growth ${drain.growthMb.toFixed(0)} MB |`,
      "",
    );
  }
  lines.push(
    "The file is a real video (ffmpeg's `faststart.mp4`, test/media/fixtures/video/, moov first) grown to size by a",
    "trailing `free` box, so the upload is accepted and its container read as for any upload (issue 29). Each size",
    "is uploaded to a `wrangler dev` of its own on fresh local state.",
    "",
    "The full upload includes local R2: miniflare's R2 simulator runs inside the same workerd process and writes every",
    "part to disk under --persist-to, so the process's growth includes the simulator's buffers. The drain row isolates",
    "the Worker's own streaming path (parser + one network chunk at a time); in production the R2 binding is a remote",
    "service and the Worker holds at most two 8 MiB parts (src/media/storage.ts).",
    "",
    `Load average (1 min) on the shared 2-core machine: ${loadBefore.toFixed(1)} before the uploads, ${loadAfter.toFixed(1)} after`,
    "(other engineers' test runs), so the throughputs here are lower bounds and the latencies below upper bounds; the",
    "memory figures do not depend on load.",
    "",
  );

  // 2. Guard latency
  const token = crypto.randomUUID();
  const form = () => {
    const f = new FormData();
    f.append("media", new Blob([GIF]), "a.gif");
    return f;
  };
  const time = async (fn) => {
    const t = performance.now();
    await fn();
    return performance.now() - t;
  };
  const noGuard = [];
  const window = [];
  const full = [];
  for (let i = 0; i < LATENCY_N; i++) {
    const ip = `198.51.100.${(i % 250) + 2}`;
    noGuard.push(
      await time(async () => {
        const r = await fetch(`${worker.base}/api/uploads/not-a-uuid`, {
          method: "POST",
          headers: { "CF-Connecting-IP": ip },
        });
        if (r.status !== 404) throw new Error(`expected 404, got ${r.status}`);
        await r.text();
      }),
    );
    window.push(
      await time(async () => {
        const r = await fetch(`${worker.base}/api/uploads/${token}?expires=1&workspace_id=x&signature=y`, {
          method: "POST",
          headers: { "CF-Connecting-IP": ip },
        });
        if (r.status !== 403) throw new Error(`expected 403, got ${r.status}`);
        await r.text();
      }),
    );
  }
  for (let i = 0; i < Math.min(LATENCY_N, 100); i++) {
    const { upload_url } = await issue();
    full.push(
      await time(async () => {
        const r = await fetch(upload_url, {
          method: "POST",
          body: form(),
          headers: { "CF-Connecting-IP": "198.51.100.254" },
        });
        if (r.status !== 201) throw new Error(`expected 201, got ${r.status} ${await r.text()}`);
        await r.text();
      }),
    );
  }
  const fmt = (xs) => `${median(xs).toFixed(2)} ms (p95 ${p95(xs).toFixed(2)})`;
  console.log(`no guard ${fmt(noGuard)}, window ${fmt(window)}, full ${fmt(full)}`);
  lines.push(
    "### Added latency of the UploadGuard (Durable Object) per request",
    "",
    `Sequential requests on loopback, median and p95 of ${LATENCY_N} (full uploads: ${full.length}).`,
    "",
    "| request | what runs | latency |",
    "|---|---|---|",
    `| \`POST /api/uploads/not-a-uuid\` → 404 | routing only, before the guard | ${fmt(noGuard)} |`,
    `| bad signature → 403 | per-IP window (1 DO call) + HMAC | ${fmt(window)} |`,
    `| 1×1 GIF with a fresh signed URL → 201 | window + claim + spend (3 DO calls), D1 insert, R2 put, multipart parse | ${fmt(full)} |`,
    "",
    `Guard cost per request ≈ 403 − 404 = **${(median(window) - median(noGuard)).toFixed(2)} ms** for the per-IP window; the token`,
    "claim and spend are two more calls of the same kind on a successful upload.",
  );
} finally {
  await worker.stop();
}

writeSection(
  "upload",
  `## Uploads (\`npm run bench -- upload\`)

${today()} · ${machine()}

${hostLine()}

${lines.join("\n")}
`,
);

if (runs.length > 1) {
  const rows = runs.map(
    ({ mb, drain, mem, uploadMs }) =>
      `| ${mb} MB | ${drain.growthMb.toFixed(0)} MB | ${mem.growthMb.toFixed(0)} MB | ${(mb / (uploadMs / 1000)).toFixed(0)} MB/s |`,
  );
  writeSection(
    "upload-plateau",
    `## Does upload memory plateau? (\`npm run bench -- upload\`, written by bench/upload/run.mjs)

${today()} · same run as "Uploads" above (current figures). The same real video padded to each size:

| file | drain-only Worker (parser, no R2): RSS growth | full upload (parser + local R2 simulator): RSS growth | throughput |
| --- | --- | --- | --- |
${rows.join("\n")}

The Worker's own streaming path (the drain column) does not grow with the file: memory is bounded by the pipeline
(workerd's network buffers), not by the upload size. The full-upload column includes miniflare's R2 simulator,
which runs in the same process and writes every part to local disk; in production R2 is a remote service and the
Worker holds at most two 8 MiB parts.
`,
  );
}
