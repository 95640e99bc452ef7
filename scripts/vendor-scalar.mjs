#!/usr/bin/env node
// `node scripts/vendor-scalar.mjs <version>`: vendors Scalar's API reference bundle (the UMD `standalone.js` of
// `@scalar/api-reference`, MIT) into public/api/docs/assets/ for GET /api/docs, and prints the path and SRI hash to
// put in src/routes/docs/api-docs.ts. The package is taken from the npm registry with `npm pack` (no install: the
// bundle is self-contained); remove the previous version's file by hand.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const version = process.argv[2];
if (!/^\d+\.\d+\.\d+$/.test(version ?? "")) {
  console.error("usage: node scripts/vendor-scalar.mjs <exact version, e.g. 1.72.1>");
  process.exit(2);
}
const root = path.resolve(import.meta.dirname, "..");
const work = mkdtempSync(path.join(tmpdir(), "scalar-"));
try {
  const tarball = execFileSync("npm", ["pack", `@scalar/api-reference@${version}`, "--silent"], { cwd: work })
    .toString()
    .trim();
  execFileSync("tar", ["xzf", tarball, "package/dist/browser/standalone.js"], { cwd: work });
  const name = `scalar-api-reference-${version}.js`;
  const target = path.join(root, "public/api/docs/assets", name);
  copyFileSync(path.join(work, "package/dist/browser/standalone.js"), target);
  const sri = `sha384-${createHash("sha384").update(readFileSync(target)).digest("base64")}`;
  console.log(`API_REFERENCE_SCRIPT = "/api/docs/assets/${name}"`);
  console.log(`API_REFERENCE_SCRIPT_INTEGRITY = "${sri}"`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
