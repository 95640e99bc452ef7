#!/usr/bin/env node
// `npm run dev`: local secrets on first run, the dashboard built into public/app (and rebuilt on every change under
// web/, sdk/ or what they import), the sandbox networks for every network without credentials in .dev.vars
// (README "Local sandbox"), local D1 migrations, `wrangler dev` on 127.0.0.1:8787 with every binding emulated and
// the cron fired each minute, then a demo workspace whose API key and owner sign-in are printed (created once,
// reused on later runs). Ctrl-C stops everything.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DEFAULT_SANDBOX_PORT, ROOT, startStack } from "../sandbox/start.mjs";
import { watchWeb } from "./build-web.mjs";

const host = process.env.HOST ?? "127.0.0.1";
const port = Number(process.env.PORT ?? 8787);
const sandboxPort = Number(process.env.SANDBOX_PORT ?? DEFAULT_SANDBOX_PORT + (port - 8787));
const useSandbox = process.env.SANDBOX !== "0";
const base = `http://${host}:${port}`;
// DEV_STATE_DIR (the tests): .dev.vars, the local state and the demo files there instead of the project's.
const ownState = process.env.DEV_STATE_DIR;
// wrangler's own chatter (two 85-line binding tables, "Ready on", a line per request, the Worker's JSON request log)
// would push the banner out of sight: warnings and errors only, unless DEV_LOGS=1 or a --log-level of your own.
const userArgs = process.argv.slice(2);
const quiet = process.env.DEV_LOGS !== "1" && !userArgs.some((a) => a.startsWith("--log-level"));
const devVarsFile = path.join(ownState ?? ROOT, ".dev.vars");
const stateDir = ownState ?? path.join(ROOT, ".wrangler");
const keyFile = path.join(stateDir, "demo-api-key.txt");
const ownerFile = path.join(stateDir, "demo-owner.json");
const generated = () => randomBytes(32).toString("base64");

/** .dev.vars from the example on first run; later, secrets the example gained since (e.g. AUTH_SECRET) are added. */
function ensureDevVars() {
  const example = readFileSync(path.join(ROOT, ".dev.vars.example"), "utf8");
  if (!existsSync(devVarsFile)) {
    const filled = example
      .replace(/=generate$/gm, () => `=${generated()}`)
      .replace(/^MEDIA_URL=.*$/m, `MEDIA_URL=${base}/media`)
      .replace(/^PUBLIC_URL=.*$/m, `PUBLIC_URL=${base}`);
    writeFileSync(devVarsFile, filled, { mode: 0o600 });
    console.log("[dev] created .dev.vars with fresh local secrets");
    return;
  }
  const current = readFileSync(devVarsFile, "utf8");
  const missing = [...example.matchAll(/^([A-Z0-9_]+)=generate$/gm)]
    .map((m) => m[1])
    .filter((name) => !new RegExp(`^${name}=`, "m").test(current));
  if (missing.length) {
    const lines = missing.map((name) => `${name}=${generated()}`).join("\n");
    writeFileSync(devVarsFile, `${current.replace(/\n*$/, "\n")}${lines}\n`, { mode: 0o600 });
    console.log(`[dev] added fresh ${missing.join(", ")} to .dev.vars`);
  }
}

function readDevVar(name) {
  const line = readFileSync(devVarsFile, "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${name}=`));
  return line ? line.slice(name.length + 1).trim() : "";
}

/** A network is sandboxed when all its app credentials are empty in .dev.vars (Mastodon and Bluesky: always). */
const withoutCredentials = (sandbox) =>
  sandbox.networks.map((n) => n.key).filter((key) => sandbox.secretNames(key).every((name) => !readDevVar(name)));

const api = (p, { method = "GET", key, body, headers = {} } = {}) =>
  fetch(`${base}${p}`, {
    method,
    headers: {
      ...(key ? { Authorization: `Bearer ${key}` } : {}),
      ...(body ? { "Content-Type": "application/json" } : {}),
      ...headers,
    },
    body: body ? JSON.stringify(body) : undefined,
  });

function readOwner() {
  try {
    return JSON.parse(readFileSync(ownerFile, "utf8"));
  } catch {
    return null;
  }
}

function newOwner(email = "demo@example.com") {
  const owner = { email, name: "Demo Owner", password: randomBytes(12).toString("base64url") };
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(ownerFile, `${JSON.stringify(owner, null, 2)}\n`, { mode: 0o600 });
  return owner;
}

/** Whether the owner can sign in (POST /api/session); null when this server has no sign-in. */
async function canSignIn(owner) {
  const body = { email: owner.email, password: owner.password };
  const res = await api("/api/session", { method: "POST", body, headers: { Origin: base } });
  if (res.status === 404 || res.status === 405) return null;
  return res.ok;
}

/** The demo workspace's key: the one kept from an earlier run when it still works, else a new workspace with owner. */
async function demoKey() {
  if (existsSync(keyFile)) {
    const key = readFileSync(keyFile, "utf8").trim();
    const res = await api("/api/workspace", { key });
    if (res.ok) return { key, created: false };
  }
  const owner = readOwner() ?? newOwner();
  const res = await api("/api/admin/workspaces", {
    method: "POST",
    key: readDevVar("ADMIN_TOKEN"),
    body: { name: "Demo workspace", owner },
  });
  if (res.status !== 201) throw new Error(`could not create the demo workspace: ${res.status} ${await res.text()}`);
  const { plain_token } = await res.json();
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(keyFile, `${plain_token}\n`, { mode: 0o600 });
  return { key: plain_token, created: true };
}

/**
 * The demo owner's sign-in. A demo workspace made before people could sign in has no owner: one is invited with
 * the demo key (as admin: a key may not invite an owner) and accepts at once (POST /api/invitations, POST
 * /api/invitations/accept), so the workspace and its key stay. Should demo@example.com exist already with another password (its .wrangler/demo-owner.json deleted),
 * the owner gets an address of its own. Returns {owner} or {unavailable: reason}.
 */
async function demoOwner(key) {
  const kept = readOwner();
  if (kept) {
    const ok = await canSignIn(kept);
    if (ok === null) return { unavailable: "this server has no sign-in yet" };
    if (ok) return { owner: kept };
  }
  const emails = ["demo@example.com", `demo-${randomBytes(3).toString("hex")}@example.com`];
  for (const email of kept ? emails.slice(1) : emails) {
    // An API key may invite up to admin (owners invite owners): the person then joins as the workspace's admin.
    let invited = await api("/api/invitations", { method: "POST", key, body: { email, role: "owner" } });
    if (invited.status === 403) {
      invited = await api("/api/invitations", { method: "POST", key, body: { email, role: "admin" } });
    }
    if (invited.status === 404) return { unavailable: "this server has no invitations yet" };
    if (!invited.ok) return { unavailable: `the demo key may not invite a person (${invited.status})` };
    const { token } = await invited.json();
    const owner = newOwner(email);
    const accepted = await api("/api/invitations/accept", {
      method: "POST",
      body: { token, name: owner.name, email: owner.email, password: owner.password },
      headers: { Origin: base },
    });
    if (accepted.ok && (await canSignIn(owner))) return { owner };
  }
  return { unavailable: "the demo owner could not be created (see the wrangler output above)" };
}

/** Fires the Worker's cron at the start of every minute, as Cloudflare does (wrangler dev does not by itself). */
function tickEachMinute(stack) {
  const next = () => setTimeout(tick, 60_000 - (Date.now() % 60_000) + 50);
  const tick = async () => {
    try {
      await stack.cron();
    } catch {
      // wrangler is restarting or stopping
    }
    next();
  };
  next();
}

ensureDevVars();
// The first build is written before wrangler starts (it serves public/ as static assets); later ones as files change.
const web = await watchWeb({ log: (line) => console.log(line.replace("[build:web]", "[dev] dashboard")) });
console.log(`[dev] ${useSandbox ? "starting the sandbox networks, " : ""}applying migrations, starting wrangler dev…`);
const stack = await startStack({
  host,
  port,
  sandbox: useSandbox,
  sandboxPort,
  sandboxKeys: withoutCredentials,
  stdio: "inherit",
  ...(ownState ? { persistTo: path.join(ownState, "state") } : {}),
  wranglerArgs: [
    ...(ownState ? ["--env-file", devVarsFile] : []),
    ...(quiet ? ["--log-level", "warn"] : []),
    ...userArgs,
  ],
}).catch(async (err) => {
  console.error(`[dev] ${err.message}`);
  await web.dispose();
  process.exit(1);
});
let stopping = false;
const stop = async (code) => {
  if (stopping) return;
  stopping = true;
  await Promise.all([stack.close(), web.dispose()]);
  process.exit(code);
};
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => stop(0));
stack.child.on("exit", (code) => stop(code ?? 0));
if (process.env.DEV_CRON !== "0") tickEachMinute(stack);

const { key } = await demoKey();
const signIn = await demoOwner(key);
const sandboxed = stack.sandbox ? stack.sandbox.networks.filter((n) => stack.sandboxed.includes(n.key)) : [];
const real = stack.sandbox ? stack.sandbox.networks.filter((n) => !stack.sandboxed.includes(n.key)) : [];
const lines = [
  `  API ready on ${base}/api   (docs: ${base}/api/docs)`,
  `  Dashboard: ${base}/app`,
  signIn.owner
    ? `    sign in as ${signIn.owner.email} / ${signIn.owner.password}   (kept in ${path.relative(ROOT, ownerFile)})`
    : `    sign-in: not available (${signIn.unavailable})`,
  "  Demo workspace API key:",
  `    ${key}`,
  `  Try:  curl -H "Authorization: Bearer ${key}" ${base}/api/workspace`,
];
if (sandboxed.length) {
  lines.push("  Sandbox networks (no credentials in .dev.vars; fill them in to use the real network):");
  for (const n of sandboxed) lines.push(`    ${n.label.padEnd(9)} ${n.origin}   ${n.hint}`);
}
if (real.length) lines.push(`  Real networks (credentials in .dev.vars): ${real.map((n) => n.label).join(", ")}`);
if (!useSandbox) lines.push("  Sandbox networks: off (SANDBOX=0)");
lines.push(
  process.env.DEV_CRON === "0"
    ? "  The cron is off (DEV_CRON=0): trigger it with curl " + `${base}/cdn-cgi/handler/scheduled`
    : "  The cron fires at the start of every minute: this script triggers it, so wrangler's warning that scheduled\n" +
        "  Workers are not triggered locally does not apply (DEV_CRON=0 turns it off).",
);
if (quiet) lines.push("  Request logs are off (wrangler --log-level warn): DEV_LOGS=1 npm run dev shows them.");
console.log(`
┌──────────────────────────────────────────────────────────────────────────────┐
${lines.join("\n")}
└──────────────────────────────────────────────────────────────────────────────┘
`);
