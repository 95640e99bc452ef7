#!/usr/bin/env node
// `npm run cf-typegen`: regenerates worker-configuration.d.ts from wrangler.jsonc alone. A local .dev.vars is moved
// aside while wrangler runs, so the committed types never depend on one developer's secrets file.
import { spawnSync } from "node:child_process";
import { existsSync, renameSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const devVars = path.join(root, ".dev.vars");
const aside = path.join(root, ".dev.vars.typegen-aside");
const moved = existsSync(devVars);
if (moved) renameSync(devVars, aside);
try {
  const res = spawnSync("wrangler", ["types", "--env-interface", "CloudflareBindings"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" },
  });
  process.exitCode = res.status ?? 1;
} finally {
  if (moved) renameSync(aside, devVars);
}
