#!/usr/bin/env node
// `npm run deploy [-- --env staging] [-- --dry-run]`: deploys to an account that has nothing yet, and changes nothing
// on a second run.
//   1. queues the config names (producers, consumers, dead-letter queues) created when missing;
//   2. D1, R2 and KV provisioned by `wrangler deploy` itself (bindings without ids; wrangler ≥ 4.45 creates them and
//      links them to the Worker: https://developers.cloudflare.com/changelog/2025-10-24-automatic-resource-provisioning);
//   3. random secrets (`generate` in .dev.vars.example) generated when missing, never overwritten, uploaded with the
//      deploy (`--secrets-file`, which also works before the Worker exists);
//   4. D1 migrations applied remotely: before the deploy when the database exists (new code meets its schema),
//      right after it when the deploy just created the database;
//   5. PUBLIC_URL: when the config leaves it empty, the workers.dev URL wrangler reports (remembered in
//      .wrangler/deploy/<env>.json so later runs pass it from the start);
//   6. prints the URL, the OAuth redirect URIs to register and how to create the first workspace.
// Before anything is deployed (and before a dry run's bundle) the dashboard is built into public/app
// (scripts/build-web.mjs), which the deploy uploads with the other static assets.
// --dry-run needs no account and no network: prints the plan and runs `wrangler deploy --dry-run --outdir` to record
// the bundle size in bench/RESULTS.md.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { machine, today, writeSection } from "../bench/lib/results.mjs";
import { buildWeb, describe as describeWeb } from "./build-web.mjs";
import { deployPlan, root } from "./deploy-plan.mjs";

const args = process.argv.slice(2);
const dryRun = args.includes("--dry-run");
const envIdx = args.indexOf("--env");
const env = envIdx >= 0 ? args[envIdx + 1] : undefined;
const envArgs = env ? ["--env", env] : [];
// --config <file>: plan from another config (the drift test); --no-bundle: a dry run that skips the bundle build.
const configIdx = args.indexOf("--config");
const configPath = configIdx >= 0 ? path.resolve(args[configIdx + 1]) : undefined;
const bundle = !args.includes("--no-bundle");
// --bundle-json <file>: write the bundle size there instead of bench/RESULTS.md (the drift test, in CI).
const bundleJsonIdx = args.indexOf("--bundle-json");
const bundleJson = bundleJsonIdx >= 0 ? path.resolve(args[bundleJsonIdx + 1]) : undefined;
// DEPLOY_WRANGLER_BIN / DEPLOY_STATE_DIR: test/e2e/deploy-script.test.mjs runs the script against a fake wrangler.
const wranglerBin = process.env.DEPLOY_WRANGLER_BIN ?? path.join(root, "node_modules", ".bin", "wrangler");
const stateDir = process.env.DEPLOY_STATE_DIR ?? path.join(root, ".wrangler", "deploy");
const childEnv = { ...process.env, WRANGLER_SEND_METRICS: "false" };

const say = (...a) => console.log("[deploy]", ...a);

/** Runs wrangler non-interactively (stdin closed: no prompts, provisioning creates what is missing). */
function wrangler(argv, { echo = false, allowFail = false } = {}) {
  const res = spawnSync(wranglerBin, argv, {
    cwd: root,
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const out = `${res.stdout ?? ""}${res.stderr ?? ""}`;
  if (echo) process.stdout.write(out);
  if (res.status !== 0 && !allowFail) {
    if (!echo) process.stderr.write(out);
    throw new Error(`wrangler ${argv.join(" ")} exited ${res.status}`);
  }
  return { ok: res.status === 0, out, stdout: res.stdout ?? "" };
}

const randomSecret = () => randomBytes(32).toString("base64");

function printPlan(plan) {
  say(`plan for ${plan.env} (Worker ${plan.worker}), from wrangler.jsonc:`);
  for (const d of plan.d1) say(`  D1 ${d.name} (binding ${d.binding}): provisioned by wrangler deploy if missing`);
  for (const b of plan.r2)
    say(`  R2 bucket ${b.name} (binding ${b.binding}): provisioned by wrangler deploy if missing`);
  for (const k of plan.kv)
    say(`  KV namespace ${k.name} (binding ${k.binding}): provisioned by wrangler deploy if missing`);
  for (const q of plan.queues) {
    const producers = plan.queueProducers.filter((p) => p.queue === q).map((p) => `binding ${p.binding}`);
    say(`  queue ${q}: created if missing${producers.length ? ` (${producers.join(", ")})` : ""}`);
  }
  for (const d of plan.durableObjects)
    say(`  Durable Object ${d.className} (binding ${d.binding}): created by the deploy`);
  for (const a of plan.analyticsEngine)
    say(`  Analytics Engine dataset ${a.dataset} (binding ${a.binding}): created on first write`);
  if (plan.assets) {
    say(`  static assets ${plan.assets.directory} (binding ${plan.assets.binding}): uploaded by wrangler deploy`);
    say(`  dashboard: built into ${plan.assets.directory}/app by npm run build:web before the upload`);
  }
  for (const c of plan.crons) say(`  cron "${c}"`);
  for (const s of plan.secrets.generated) say(`  secret ${s}: 32 random bytes (base64) if not set yet`);
  say(`  optional secrets, set by you when needed: ${plan.secrets.optional.join(", ")}`);
  say(`  D1 migrations applied remotely: ${plan.migrations.length} files (${plan.migrations.at(-1)} last)`);
}

function bundleSize(plan) {
  const outdir = mkdtempSync(path.join(os.tmpdir(), "esp-bundle-"));
  try {
    const { out } = wrangler(["deploy", "--dry-run", "--outdir", outdir, ...envArgs]);
    // "Total Upload: 3076.90 KiB / gzip: 1012.34 KiB"
    const m = /Total Upload:\s*([\d.]+) KiB \/ gzip:\s*([\d.]+) KiB/.exec(stripVTControlCharacters(out));
    const js = statSync(path.join(outdir, "index.js")).size;
    return { totalKiB: m ? Number(m[1]) : null, gzipKiB: m ? Number(m[2]) : null, jsBytes: js, worker: plan.worker };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

function recordBundle(size) {
  writeSection(
    "deploy-bundle",
    `## Deploy bundle (\`npm run deploy -- --dry-run\`)

${today()} · ${machine()}

\`wrangler deploy --dry-run --outdir\` of ${size.worker}: total upload **${size.totalKiB} KiB**, gzip **${size.gzipKiB} KiB**
(index.js ${(size.jsBytes / 1024).toFixed(1)} KiB plus the WASM codecs). test/e2e/deploy-drift.test.mjs keeps it under
3 MB compressed, the smallest Worker size limit Cloudflare publishes (Free plan;
https://developers.cloudflare.com/workers/platform/limits/#worker-size).`,
  );
}

function stateFile(plan) {
  return path.join(stateDir, `${plan.env}.json`);
}

function readState(plan) {
  try {
    return JSON.parse(readFileSync(stateFile(plan), "utf8"));
  } catch {
    return {};
  }
}

function finalWords(plan, url, adminToken) {
  const base = plan.vars.PUBLIC_URL || url || "https://<your-worker>.workers.dev";
  console.log(`
┌──────────────────────────────────────────────────────────────────────────────┐
  Deployed ${plan.worker} (${plan.env}): ${base}
  Health: ${base}/api/health    API reference: ${base}/api/docs

  OAuth redirect URIs to register in each network's developer console
  (docs/connect.md lists the scopes; set the client id/secret with
  npx wrangler secret put <NAME>${env ? ` --env ${env}` : ""}):
${plan.oauthCallbacks.map((p) => `    ${base}/api/oauth/${p}/callback`).join("\n")}

  First workspace, its API key and its owner (open the answer's owner_invitation.url to set a password;
  then sign in to the dashboard at ${base}/app):
    curl -X POST -H "Authorization: Bearer $ADMIN_TOKEN" -H "Content-Type: application/json" \\
         -d '{"name":"Acme","owner":{"email":"you@example.com"}}' ${base}/api/admin/workspaces
  ${
    adminToken
      ? `ADMIN_TOKEN was generated now; it is shown this once:\n    ADMIN_TOKEN=${adminToken}`
      : "ADMIN_TOKEN was set on an earlier run (lost it? docs/runbook.md → rotate the admin token)."
  }
└──────────────────────────────────────────────────────────────────────────────┘`);
}

async function main() {
  const plan = deployPlan(env, configPath);
  printPlan(plan);
  if (dryRun) {
    if (!bundle) return;
    say("dry run: nothing created. Building the dashboard, then bundling with wrangler deploy --dry-run …");
    say(describeWeb(await buildWeb()));
    const size = bundleSize(plan);
    if (bundleJson) {
      writeFileSync(bundleJson, JSON.stringify(size));
      say(`bundle: ${size.totalKiB} KiB, gzip ${size.gzipKiB} KiB`);
    } else {
      recordBundle(size);
      say(`bundle: ${size.totalKiB} KiB, gzip ${size.gzipKiB} KiB (recorded in bench/RESULTS.md)`);
    }
    return;
  }

  const whoami = wrangler(["whoami"], { allowFail: true });
  if (!whoami.ok || /not authenticated/i.test(whoami.out)) {
    throw new Error("not logged in: run `npx wrangler login` (or set CLOUDFLARE_API_TOKEN) and try again");
  }
  say(describeWeb(await buildWeb()));

  // 1. Queues (a consumer or dead-letter queue that does not exist fails the deploy).
  for (const q of plan.queues) {
    const info = wrangler(["queues", "info", q], { allowFail: true });
    if (info.ok) continue;
    if (!/does not exist/i.test(info.out)) throw new Error(`wrangler queues info ${q}: ${info.out}`);
    say(`creating queue ${q}`);
    wrangler(["queues", "create", q], { echo: true });
  }

  // 2. Does the database exist yet? (Decides whether migrations go before or after the deploy.)
  const d1List = JSON.parse(wrangler(["d1", "list", "--json"]).stdout || "[]");
  const dbExists = plan.d1.every((d) => d1List.some((x) => x.name === d.name));
  if (dbExists) {
    say("applying D1 migrations (remote) before the deploy");
    wrangler(["d1", "migrations", "apply", "DB", "--remote", ...envArgs], { echo: true });
  }

  // 3. Secrets: the ones already set are never overwritten.
  const listed = wrangler(["secret", "list", "--format", "json", ...envArgs], { allowFail: true });
  let existing = [];
  if (listed.ok) existing = JSON.parse(listed.stdout).map((s) => s.name);
  else if (!/10007|does not exist|not found/i.test(listed.out)) throw new Error(`wrangler secret list: ${listed.out}`);
  const missing = plan.secrets.generated.filter((s) => !existing.includes(s));
  const generated = Object.fromEntries(missing.map((s) => [s, randomSecret()]));
  const tmp = mkdtempSync(path.join(os.tmpdir(), "esp-secrets-"));
  const secretsFile = path.join(tmp, "secrets.json");
  writeFileSync(secretsFile, JSON.stringify(generated), { mode: 0o600 });
  for (const s of missing) say(`secret ${s}: generated`);
  for (const s of plan.secrets.generated.filter((x) => existing.includes(x))) say(`secret ${s}: already set, kept`);

  // 4. Deploy (provisions D1/R2/KV that do not exist yet).
  const state = readState(plan);
  const publicUrlArgs = (url) => (!plan.vars.PUBLIC_URL && url ? ["--var", `PUBLIC_URL:${url}`] : []);
  let url = state.url;
  try {
    const deployArgs = ["deploy", ...envArgs, ...publicUrlArgs(url)];
    if (missing.length > 0) deployArgs.push("--secrets-file", secretsFile);
    const deployed = wrangler(deployArgs, { echo: true });
    const reported = /https:\/\/[\w.-]+\.workers\.dev/.exec(deployed.out)?.[0];
    if (!dbExists) {
      say("applying D1 migrations (remote) to the database the deploy just created");
      wrangler(["d1", "migrations", "apply", "DB", "--remote", ...envArgs], { echo: true });
    }
    if (reported && reported !== url) {
      url = reported;
      mkdirSync(path.dirname(stateFile(plan)), { recursive: true });
      writeFileSync(stateFile(plan), `${JSON.stringify({ url }, null, 2)}\n`);
      if (!plan.vars.PUBLIC_URL) {
        say(`PUBLIC_URL is empty in wrangler.jsonc: deploying again with PUBLIC_URL=${url}`);
        wrangler(["deploy", ...envArgs, ...publicUrlArgs(url)], { echo: true });
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  finalWords(plan, url, generated.ADMIN_TOKEN);
}

try {
  await main();
} catch (err) {
  console.error(`[deploy] ${err.message}`);
  process.exitCode = 1;
}
