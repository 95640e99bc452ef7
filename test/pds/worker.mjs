// The Worker under `wrangler dev` on 127.0.0.1 (D1, R2, KV, Queues, the Durable Object emulated locally, fresh
// state per run), reached only through its HTTP API as a client would.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./local-pds.mjs";

const ROOT = path.resolve(import.meta.dirname, "../..");
// wrangler runs under this Node (24, from the `node` devDependency via npm), not the shell's.
const WRANGLER = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");
export const ADMIN_TOKEN = "pds-admin-token";

/** Runs a command to its end without blocking this process's event loop. */
function run(cmd, args, opts) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...opts, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => {
      output += d;
    });
    child.stderr.on("data", (d) => {
      output += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

export async function startWorker(vars) {
  const started = performance.now();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const stateDir = mkdtempSync(path.join(tmpdir(), "pds-worker-"));
  const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "true" };
  // Not spawnSync: the PDS starts in this same process meanwhile.
  const migrate = await run(
    process.execPath,
    [WRANGLER, "d1", "migrations", "apply", "DB", "--local", "--persist-to", stateDir],
    {
      cwd: ROOT,
      env,
    },
  );
  if (migrate.code !== 0) throw new Error(`migrations failed: ${migrate.output}`);
  const allVars = {
    APP_ENV: "development",
    LOG_LEVEL: "warn",
    PUBLIC_URL: base,
    MEDIA_URL: `${base}/media`,
    TOKEN_ENCRYPTION_KEY: "pds-token-encryption-key",
    UPLOAD_SIGNING_KEY: "pds-upload-signing-key",
    ADMIN_TOKEN,
    // The tests poll the API; the throttles are not what they test.
    API_RATE_LIMIT_PER_MINUTE: "10000",
    API_WORKSPACE_RATE_LIMIT_PER_MINUTE: "10000",
    ...vars,
  };
  const args = [WRANGLER, "dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", stateDir];
  args.push("--show-interactive-dev-session=false");
  for (const [k, v] of Object.entries(allVars)) args.push("--var", `${k}:${v}`);
  const child = spawn(process.execPath, args, { cwd: ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout.on("data", (d) => {
    log += d;
  });
  child.stderr.on("data", (d) => {
    log += d;
  });
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode}:\n${log}`);
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`wrangler dev did not start within 90 s:\n${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }

  /** One API call; answers `{status, body}` (JSON parsed when it is JSON). */
  async function api(method, p, body, key) {
    const headers = {};
    if (key) headers.authorization = `Bearer ${key}`;
    let payload = body;
    if (body !== undefined && !(body instanceof FormData)) {
      headers["content-type"] = "application/json";
      payload = JSON.stringify(body);
    }
    const res = await fetch(base + p, { method, headers, body: payload });
    const text = await res.text();
    let parsed = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.status, body: parsed };
  }

  return {
    base,
    api,
    readyMs: Math.round(performance.now() - started),
    log: () => log,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        try {
          process.kill(-child.pid, "SIGTERM");
        } catch {}
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      }
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
