// CPU profile of the API Worker's isolate under load: `node bench/http/profile.mjs [path] [POST]` (default
// GET /api/posts; `/api/posts POST` creates the seeded create body in a workspace of its own).
// Starts `wrangler dev` with an inspector on loopback, seeds like run.mjs, records a V8 CPU profile over an
// autocannon run at one connection (BENCH_CONNECTIONS for more), and prints the isolate's busy time per request and its top functions by samples.
// The profile is written to $TMPDIR/api.cpuprofile (open it in Chrome DevTools).
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { freshState, startWorker } from "../lib/worker.mjs";
import { seed, VARS } from "./seed.mjs";

const INSPECTOR_PORT = 9239;
const route = process.argv[2] ?? "/api/posts";
const app = await startWorker({
  port: 8790,
  persistTo: freshState(),
  vars: VARS,
  extraArgs: ["--inspector-port", String(INSPECTOR_PORT)],
  env: { X_LOCAL_OBSERVABILITY: "false" }, // as in run.mjs: no local trace store
});
try {
  const post = process.argv[3] === "POST";
  const seeded = await seed(app.base, post ? { posts: 0 } : undefined);
  const { key } = seeded;
  const [target] = await (await fetch(`http://127.0.0.1:${INSPECTOR_PORT}/json`)).json();
  // wrangler's inspector proxy only accepts its own DevTools origin.
  const ws = new WebSocket(target.webSocketDebuggerUrl, {
    headers: { Origin: "https://devtools.devprod.cloudflare.dev" },
  });
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve);
    ws.addEventListener("error", reject);
  });
  let nextId = 0;
  const pending = new Map();
  ws.addEventListener("message", (e) => {
    const msg = JSON.parse(e.data);
    if (msg.id && pending.has(msg.id)) pending.get(msg.id)(msg.result);
  });
  const send = (method, params = {}) =>
    new Promise((resolve) => {
      const id = ++nextId;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 100 });
  await send("Profiler.start");
  const run = await autocannon({
    url: app.base + route,
    connections: Number(process.env.BENCH_CONNECTIONS ?? 1),
    duration: 5,
    headers: { Authorization: `Bearer ${key}`, ...(post ? { "Content-Type": "application/json" } : {}) },
    ...(post ? { method: "POST", body: JSON.stringify(seeded.createBody) } : {}),
  });
  const { profile } = await send("Profiler.stop");
  ws.close();
  const file = path.join(tmpdir(), "api.cpuprofile");
  writeFileSync(file, JSON.stringify(profile));

  // Busy time: samples that are not idle and follow the previous one closely (a long gap means the thread waited).
  const nodes = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const bySamples = new Map();
  let busyUs = 0;
  profile.samples.forEach((id, i) => {
    const frame = nodes.get(id);
    const name = `${frame.functionName || "(anonymous)"} ${frame.url.split("/").pop()}:${frame.lineNumber + 1}`;
    bySamples.set(name, (bySamples.get(name) ?? 0) + 1);
    const gap = profile.timeDeltas[i + 1] ?? 0;
    if (frame.functionName !== "(idle)" && gap < 1000) busyUs += gap;
  });
  const requests = run.requests.total;
  console.log(`${route}: ${requests} requests, mean ${run.latency.average.toFixed(2)} ms`);
  console.log(`isolate busy ≈ ${(busyUs / 1000 / requests).toFixed(2)} ms per request; profile: ${file}`);
  for (const [name, n] of [...bySamples].sort((a, b) => b[1] - a[1]).slice(0, 25))
    console.log(`${((100 * n) / profile.samples.length).toFixed(1).padStart(5)}%  ${name}`);
} finally {
  await app.stop();
}
