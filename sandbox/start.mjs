// The local sandbox networks (README "Local sandbox") and the local stack that `npm run dev` and the browser tests
// share: `startSandbox()` serves the fake networks on 127.0.0.1 ports, `startStack()` applies the D1 migrations
// and runs `wrangler dev` with the sandbox's vars, then waits for the API to answer.
// The networks are TypeScript built from the test suite's fakes (sandbox/networks.ts); esbuild bundles them at
// start (a few hundred ms), so nothing here is ever part of the deployed Worker.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { build } from "esbuild";

export const ROOT = path.resolve(import.meta.dirname, "..");
const WRANGLER = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");
/** The first sandbox port of `npm run dev` (network i listens on SANDBOX_PORT + i). */
export const DEFAULT_SANDBOX_PORT = 8801;

const stub = (name) => path.join(ROOT, "sandbox/stubs", name);

let loaded;
/**
 * sandbox/networks.ts, bundled for Node with the workerd-only imports of the fakes replaced by stubs (once per
 * process): `createNetworks`, `NETWORK_KEYS`, `sandboxMetrics`.
 */
export function loadNetworks() {
  loaded ??= bundle();
  return loaded;
}

async function bundle() {
  const out = await build({
    entryPoints: [path.join(ROOT, "sandbox/networks.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    write: false,
    logLevel: "silent",
    plugins: [
      {
        name: "sandbox-stubs",
        setup(b) {
          b.onResolve({ filter: /^cloudflare:workers$/ }, () => ({ path: stub("cloudflare-workers.ts") }));
          b.onResolve({ filter: /^vitest$/ }, () => ({ path: stub("vitest.ts") }));
          b.onResolve({ filter: /\/fake-fetch$/ }, () => ({ path: stub("fake-fetch.ts") }));
        },
      },
    ],
  });
  const code = out.outputFiles[0].text;
  return import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`);
}

function listen(server, host, port) {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server.address().port);
    });
  });
}

/** Node request → fetch Request → the network's handler → Node response. */
function serve(getHandler, getOrigin) {
  return createServer(async (req, res) => {
    try {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const body = chunks.length && req.method !== "GET" && req.method !== "HEAD" ? Buffer.concat(chunks) : undefined;
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, String(v));
      const answer = await getHandler()(new Request(`${getOrigin()}${req.url}`, { method: req.method, headers, body }));
      const out = Buffer.from(await answer.arrayBuffer());
      const head = Object.fromEntries(answer.headers);
      delete head["content-encoding"];
      head["content-length"] = String(out.length);
      res.writeHead(answer.status, head);
      res.end(out);
    } catch (err) {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "sandbox_error", message: String(err?.stack ?? err) }));
    }
  });
}

/**
 * Starts the sandbox networks on `host`: network i of `keys` (default: all) on `port + i`, or each on a free port
 * when `port` is 0. Returns the networks ({key, label, origin, hint}), `vars(keys)` — the Worker vars that point
 * those networks at the sandbox (client ids and secrets, API and consent origins, POST_LINK_ORIGINS) — the
 * deterministic `metrics(text, n)` the networks report, and `close()`.
 */
export async function startSandbox({ host = "127.0.0.1", port = 0, keys } = {}) {
  const mod = await loadNetworks();
  const wanted = keys ?? [...mod.NETWORK_KEYS];
  const servers = [];
  const origins = {};
  const handlers = {};
  try {
    for (const key of wanted) {
      const index = mod.NETWORK_KEYS.indexOf(key);
      if (index < 0) throw new Error(`unknown sandbox network: ${key}`);
      let origin = "";
      const server = serve(
        () => handlers[key],
        () => origin,
      );
      servers.push(server);
      let bound;
      try {
        bound = await listen(server, host, port ? port + index : 0);
      } catch (err) {
        if (err.code !== "EADDRINUSE") throw err;
        console.warn(`[sandbox] port ${port + index} is taken: ${key} listens on a free port instead`);
        bound = await listen(server, host, 0);
      }
      origin = `http://${host}:${bound}`;
      origins[key] = origin;
    }
  } catch (err) {
    for (const s of servers) s.close();
    throw err;
  }
  const networks = mod.createNetworks(origins);
  for (const n of networks) handlers[n.key] = n.handle;
  return {
    networks: networks.map(({ key, label, origin, hint }) => ({ key, label, origin, hint })),
    /** The Worker vars that send `keys` (default: all started) to the sandbox. */
    vars(only = wanted) {
      const picked = networks.filter((n) => only.includes(n.key));
      const vars = {};
      for (const n of picked) Object.assign(vars, n.secrets, n.vars);
      const links = picked.flatMap((n) => n.links.map((l) => `${l}=${n.origin}`));
      if (links.length) vars.POST_LINK_ORIGINS = links.join(",");
      return vars;
    },
    /** The .dev.vars secrets that, all empty, make a network sandboxed (none: always). */
    secretNames(key) {
      return Object.keys(networks.find((n) => n.key === key)?.secrets ?? {});
    },
    metrics: mod.sandboxMetrics,
    close: () => Promise.all(servers.map((s) => new Promise((r) => s.close(() => r())))),
  };
}

/** `wrangler` run by this Node (24, from the `node` devDependency), not the shell's. */
function wrangler(args, opts) {
  return spawn(process.execPath, [WRANGLER, ...args], opts);
}

const wranglerEnv = (env = process.env) => ({
  ...env,
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
});

/** Applies the D1 migrations to the local database (`persistTo`: wrangler's `--persist-to`, default .wrangler/state). */
export function applyMigrations({ persistTo } = {}) {
  const args = [WRANGLER, "d1", "migrations", "apply", "DB", "--local"];
  if (persistTo) args.push("--persist-to", persistTo);
  const res = spawnSync(process.execPath, args, {
    cwd: ROOT,
    env: { ...wranglerEnv(), CI: "true" },
    encoding: "utf8",
  });
  if (res.status !== 0) throw new Error(`D1 migrations failed:\n${res.stdout}\n${res.stderr}`);
}

async function waitForHealth(base, child, log, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode}\n${log()}`);
    try {
      const res = await fetch(`${base}/api/health`);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`wrangler dev did not answer within ${timeoutMs / 1000} s\n${log()}`);
}

/**
 * The local stack of `npm run dev` and the browser tests: the sandbox networks (unless `sandbox: false`), the D1
 * migrations into `persistTo`, then `wrangler dev` on `host:port` with `--var` for the sandbox's networks — those
 * in `sandboxKeys` (default: every network; or a function of the started sandbox returning them — `npm run dev`
 * picks the ones without credentials in .dev.vars) — and
 * `vars` (tests pass their secrets here), and waits for /api/health.
 * With `persistTo` the project's .dev.vars is not read (`vars` carries everything).
 * `stdio: "inherit"` shows wrangler's own output (dev); otherwise it is kept for `log()` (tests).
 * `close()` stops wrangler (its whole process group) and the sandbox.
 */
export async function startStack({
  host = "127.0.0.1",
  port = 8787,
  persistTo,
  sandbox = true,
  sandboxPort = 0,
  sandboxKeys,
  vars = {},
  stdio = "pipe",
  wranglerArgs = [],
} = {}) {
  const networks = sandbox ? await startSandbox({ host, port: sandboxPort }) : null;
  let child;
  try {
    applyMigrations({ persistTo });
    const base = `http://${host}:${port}`;
    const keys = typeof sandboxKeys === "function" && networks ? sandboxKeys(networks) : sandboxKeys;
    const allVars = { ...(networks ? networks.vars(keys) : {}), ...vars };
    const args = ["dev", "--ip", host, "--port", String(port)];
    if (persistTo) {
      args.push("--persist-to", persistTo);
      // A stack with a state directory of its own (tests) does not read the project's .dev.vars either: an empty
      // env file stands in for it (wrangler loads .dev.vars only without --env-file).
      mkdirSync(persistTo, { recursive: true });
      const empty = path.join(persistTo, "empty.env");
      writeFileSync(empty, "");
      args.push("--env-file", empty);
    }
    if (stdio !== "inherit") args.push("--show-interactive-dev-session=false");
    // `--var key:value` overrides vars of wrangler.jsonc and .dev.vars alike (checked with wrangler 4.164):
    // https://developers.cloudflare.com/workers/wrangler/commands/#dev
    for (const [k, v] of Object.entries(allVars)) args.push("--var", `${k}:${v}`);
    args.push(...wranglerArgs);
    let output = "";
    child = wrangler(args, {
      cwd: ROOT,
      env: wranglerEnv(),
      detached: stdio !== "inherit",
      stdio: stdio === "inherit" ? "inherit" : ["ignore", "pipe", "pipe"],
    });
    if (stdio !== "inherit") {
      const keep = (d) => {
        output = (output + d).slice(-20_000);
      };
      child.stdout.on("data", keep);
      child.stderr.on("data", keep);
    }
    const log = () => output;
    await waitForHealth(base, child, log);
    const stop = async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        try {
          if (stdio === "inherit") child.kill("SIGTERM");
          else process.kill(-child.pid, "SIGTERM");
        } catch {
          // already gone
        }
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      }
      await networks?.close();
    };
    return {
      base,
      child,
      sandbox: networks,
      sandboxed: networks ? (keys ?? networks.networks.map((n) => n.key)) : [],
      /** The Worker's cron, as Cloudflare would fire it (wrangler dev does not by itself). */
      cron: () => fetch(`${base}/cdn-cgi/handler/scheduled?cron=*+*+*+*+*`),
      log,
      close: stop,
    };
  } catch (err) {
    if (child && child.exitCode === null) {
      try {
        if (stdio === "inherit") child.kill("SIGTERM");
        else process.kill(-child.pid, "SIGTERM");
      } catch {}
    }
    await networks?.close();
    throw err;
  }
}
