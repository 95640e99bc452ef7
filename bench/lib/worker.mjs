// Starts a `wrangler dev` instance on loopback for a benchmark and stops it afterwards.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../../sandbox/free-port.mjs";

export { freePort };

export const ROOT = path.resolve(import.meta.dirname, "../..");
/** The bearer token of the benchmarks' admin bootstrap (`BENCH_VARS.ADMIN_TOKEN`). */
export const BENCH_ADMIN = "bench-admin-token";

/**
 * The API worker's bench configuration: throttles out of the way (the benchmarks measure the routes, not the
 * limits), request logs off (wrangler dev's console pipe would dominate the latencies).
 */
export const BENCH_VARS = {
  ADMIN_TOKEN: BENCH_ADMIN,
  TOKEN_ENCRYPTION_KEY: "bench-token-encryption-key",
  UPLOAD_SIGNING_KEY: "bench-upload-signing-key",
  API_RATE_LIMIT_PER_MINUTE: "100000000",
  API_WORKSPACE_RATE_LIMIT_PER_MINUTE: "100000000",
  LOG_LEVEL: "warn",
  APP_ENV: "development",
};

const ENV = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "true" };

/** Fresh local state with the D1 migrations applied. */
export function freshState(configPath = path.join(ROOT, "wrangler.jsonc")) {
  const dir = mkdtempSync(path.join(tmpdir(), "bench-state-"));
  const res = spawnSync(
    "wrangler",
    ["d1", "migrations", "apply", "DB", "--local", "-c", configPath, "--persist-to", dir],
    {
      cwd: ROOT,
      env: ENV,
      encoding: "utf8",
    },
  );
  if (res.status !== 0) throw new Error(`migrations failed: ${res.stderr}`);
  return dir;
}

/**
 * @param {{config?: string, port: number, persistTo?: string, vars?: Record<string,string>, healthPath?: string,
 *   extraArgs?: string[], env?: Record<string,string>}} opts
 */
export async function startWorker(opts) {
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(opts.port), "--log-level", "warn"];
  if (opts.config) args.push("-c", opts.config);
  if (opts.persistTo) args.push("--persist-to", opts.persistTo);
  for (const [k, v] of Object.entries(opts.vars ?? {})) args.push("--var", `${k}:${v}`);
  args.push(...(opts.extraArgs ?? []));
  const child = spawn("wrangler", args, {
    cwd: ROOT,
    env: { ...ENV, ...(opts.env ?? {}) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines = [];
  let buf = "";
  const onData = (d) => {
    buf += d.toString();
    const parts = buf.split("\n");
    buf = parts.pop() ?? "";
    lines.push(...parts);
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const base = `http://127.0.0.1:${opts.port}`;
  const started = performance.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wrangler exited: ${lines.slice(-20).join("\n")}`);
    try {
      const res = await fetch(base + (opts.healthPath ?? "/api/health"));
      if (res.ok) break;
    } catch {}
    if (performance.now() - started > 60_000) throw new Error("worker not ready in 60 s");
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    pid: child.pid,
    lines,
    readyMs: performance.now() - started,
    async stop() {
      child.kill("SIGTERM");
      await new Promise((r) => (child.exitCode !== null ? r() : child.on("exit", r)));
    },
  };
}

/** The bare-Worker floor (bench/bare-worker): a constant response, and `/d1` for one `SELECT 1`. */
export async function startBareWorker(env) {
  return startWorker({
    port: await freePort(),
    config: path.join(ROOT, "bench/bare-worker/wrangler.jsonc"),
    persistTo: mkdtempSync(path.join(tmpdir(), "bench-bare-")),
    healthPath: "/",
    env,
  });
}
