// `npm run bench [-- name ...]`: runs every benchmark (or the named ones) in sequence; each writes its own
// section of bench/RESULTS.md.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";

const dir = import.meta.dirname;
const order = ["http", "media", "upload", "publish"];
const found = readdirSync(dir, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, "run.mjs")))
  .map((d) => d.name)
  .sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
const wanted = process.argv.slice(2);
const selected = wanted.length ? found.filter((n) => wanted.includes(n)) : found;
let failed = 0;
for (const name of selected) {
  console.log(`\n=== bench ${name} ===`);
  const res = spawnSync(process.execPath, [path.join(dir, name, "run.mjs")], { stdio: "inherit" });
  if (res.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
