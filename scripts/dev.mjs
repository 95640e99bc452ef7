#!/usr/bin/env node
// `npm run dev`: local secrets on first run, local D1 migrations, the dashboard built into public/app (and rebuilt on
// every change under web/, sdk/ or what they import), `wrangler dev` on 127.0.0.1:8787 with every binding emulated,
// then a demo workspace whose API key is printed (created once, reused on later runs).
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { watchWeb } from "./build-web.mjs";

const root = path.resolve(import.meta.dirname, "..");
const host = process.env.HOST ?? "127.0.0.1";
const port = Number(process.env.PORT ?? 8787);
const base = `http://${host}:${port}`;
const stateDir = path.join(root, ".wrangler");
const keyFile = path.join(stateDir, "demo-api-key.txt");
const childEnv = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };

function ensureDevVars() {
  const file = path.join(root, ".dev.vars");
  if (existsSync(file)) return;
  const example = readFileSync(path.join(root, ".dev.vars.example"), "utf8");
  const filled = example
    .replace(/=generate$/gm, () => `=${randomBytes(32).toString("base64")}`)
    .replace(/^MEDIA_URL=.*$/m, `MEDIA_URL=${base}/media`)
    .replace(/^PUBLIC_URL=.*$/m, `PUBLIC_URL=${base}`);
  writeFileSync(file, filled, { mode: 0o600 });
  console.log("[dev] created .dev.vars with fresh local secrets");
}

function readDevVar(name) {
  const line = readFileSync(path.join(root, ".dev.vars"), "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${name}=`));
  return line ? line.slice(name.length + 1).trim() : "";
}

function applyMigrations() {
  const res = spawnSync("wrangler", ["d1", "migrations", "apply", "DB", "--local"], {
    cwd: root,
    env: { ...childEnv, CI: "true" },
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
  });
  if (res.status !== 0) {
    console.error(res.stdout, res.stderr);
    process.exit(res.status ?? 1);
  }
  console.log("[dev] local D1 migrations applied");
}

async function waitForHealth(child) {
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) process.exit(child.exitCode);
    try {
      const res = await fetch(`${base}/api/health`);
      if (res.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("wrangler dev did not become ready within 60 s");
}

async function demoKey() {
  if (existsSync(keyFile)) {
    const key = readFileSync(keyFile, "utf8").trim();
    const res = await fetch(`${base}/api/workspace`, { headers: { Authorization: `Bearer ${key}` } });
    if (res.ok) return key;
  }
  const res = await fetch(`${base}/api/admin/workspaces`, {
    method: "POST",
    headers: { Authorization: `Bearer ${readDevVar("ADMIN_TOKEN")}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "Demo workspace" }),
  });
  if (res.status !== 201) throw new Error(`could not create the demo workspace: ${res.status} ${await res.text()}`);
  const { plain_token } = await res.json();
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(keyFile, `${plain_token}\n`, { mode: 0o600 });
  return plain_token;
}

ensureDevVars();
applyMigrations();
// The first build is written before wrangler starts (it serves public/ as static assets); later ones as files change.
const web = await watchWeb({ log: (line) => console.log(line.replace("[build:web]", "[dev] dashboard")) });
const child = spawn("wrangler", ["dev", "--ip", host, "--port", String(port), ...process.argv.slice(2)], {
  cwd: root,
  env: childEnv,
  stdio: "inherit",
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", async (code) => {
  await web.dispose();
  process.exit(code ?? 0);
});

await waitForHealth(child);
const key = await demoKey();
console.log(`
┌──────────────────────────────────────────────────────────────────────────────┐
  Dashboard: ${base}/app
  API ready on ${base}/api   (docs: ${base}/api/docs)
  Demo workspace API key:
    ${key}
  Try:  curl -H "Authorization: Bearer ${key}" ${base}/api/workspace
└──────────────────────────────────────────────────────────────────────────────┘
`);
