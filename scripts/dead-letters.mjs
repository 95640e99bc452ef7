#!/usr/bin/env node
// `npm run dead-letters [-- list|replay] [-- --url https://…] [-- --ids id1,id2] [-- --env staging]`: lists or replays
// dead-lettered publish jobs through the admin API (GET /api/admin/dead-letters, POST /api/admin/dead-letters/replay).
// The admin token comes from ADMIN_TOKEN; the URL from --url, else PUBLIC_URL, else the one `npm run deploy` recorded.
import { readFileSync } from "node:fs";
import path from "node:path";

const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const valued = new Set(["--url", "--ids", "--env", "--state"].map(flag));
const command = args.find((a) => !a.startsWith("--") && !valued.has(a)) ?? "list";
const env = flag("--env") ?? "production";

function deployedUrl() {
  try {
    const file = path.resolve(import.meta.dirname, "..", ".wrangler", "deploy", `${env}.json`);
    return JSON.parse(readFileSync(file, "utf8")).url;
  } catch {
    return undefined;
  }
}

const base = (flag("--url") ?? process.env.PUBLIC_URL ?? deployedUrl())?.replace(/\/$/, "");
const token = process.env.ADMIN_TOKEN;
if (!base || !token) {
  console.error("usage: ADMIN_TOKEN=… npm run dead-letters -- [list|replay] --url https://<worker> [--ids a,b]");
  process.exit(2);
}
const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };

let res;
if (command === "replay") {
  const ids = flag("--ids")?.split(",").filter(Boolean);
  res = await fetch(`${base}/api/admin/dead-letters/replay`, {
    method: "POST",
    headers,
    body: JSON.stringify(ids ? { ids } : {}),
  });
} else if (command === "list") {
  res = await fetch(`${base}/api/admin/dead-letters?state=${flag("--state") ?? "pending"}`, { headers });
} else {
  console.error(`unknown command ${command}: list or replay`);
  process.exit(2);
}
const body = await res.json().catch(() => null);
console.log(JSON.stringify(body, null, 2));
if (!res.ok) process.exit(1);
