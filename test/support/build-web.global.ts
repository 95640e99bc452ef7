import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

/**
 * Vitest global setup: the dashboard's built page (public/app/, a Workers Static Asset) must exist before workerd
 * starts, for test/routes/app-shell.test.ts. `npm test` builds it first (scripts/test.mjs); this builds it for a lone
 * `npx vitest run …` on a fresh clone, where public/app/ (gitignored) is not there yet.
 */
export default function buildWebWhenMissing() {
  const root = path.resolve(import.meta.dirname, "../..");
  if (existsSync(path.join(root, "public/app/index.html"))) return;
  const res = spawnSync(process.execPath, [path.join(root, "scripts/build-web.mjs")], { cwd: root, stdio: "inherit" });
  if (res.status !== 0) throw new Error("npm run build:web failed");
}
