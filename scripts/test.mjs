// `npm test`: builds the dashboard (npm run build:web: public/app/, which the Worker serves), then runs the four
// parts of the suite at once, then one summary.
//   vitest (workerd)  — every test/**/*.test.ts, streamed as it runs (it is the longest part);
//   browser           — node --test test/e2e/*.test.mjs (Chromium against `wrangler dev`: one stack shared by
//                       the files, test/e2e/shared-stack.mjs, and a few of their own), three files at once: they
//                       mostly wait on their servers (384 → 251 s for the part, docs/testing.md, sixth round);
//   pds               — node --test test/pds/*.test.mjs (a real Bluesky PDS);
//   sdk               — node --test test/sdk/*.test.mjs (sdk/schema.d.ts is openapi-typescript's output for
//                       sdk/openapi.json; sdk/ and web/ type-check against it).
// The two node --test parts mostly wait on their servers, so they run beside vitest instead of after it; their
// output is printed whole when each ends. Exits 1 if any part fails, and closes with "total: N passed, N failed".
//
// `npm test -- <paths or vitest options>` runs only vitest with them (`.test.mjs` paths go to node --test instead).
import { spawn } from "node:child_process";
import path from "node:path";
import { stripVTControlCharacters as strip } from "node:util";
import { buildWeb, describe, INITIAL_JS_BUDGET_BYTES } from "./build-web.mjs";

const ROOT = path.resolve(import.meta.dirname, "..");
const NODE = process.execPath;
const VITEST = path.join(ROOT, "node_modules/vitest/vitest.mjs");
const NODE_TEST = ["--test", "--test-reporter=spec", "--test-timeout=300000"];
// The browser files share one local stack, started once before them (test/e2e/shared-stack.mjs).
const SHARED_STACK = "--test-global-setup=test/e2e/shared-stack.mjs";
// Each browser file runs in a process of its own, each test in a workspace of its own: three files at once.
const BROWSER_FILES_AT_ONCE = "--test-concurrency=3";

const args = process.argv.slice(2);
const mjs = args.filter((a) => a.endsWith(".test.mjs"));
const rest = args.filter((a) => !a.endsWith(".test.mjs"));

const parts = [];
if (args.length === 0) {
  parts.push(
    { name: "vitest", argv: [VITEST, "run"], stream: true },
    { name: "browser", argv: [...NODE_TEST, BROWSER_FILES_AT_ONCE, SHARED_STACK, "test/e2e/*.test.mjs"] },
    { name: "pds", argv: [...NODE_TEST, "test/pds/*.test.mjs"] },
    { name: "sdk", argv: [...NODE_TEST, "test/sdk/*.test.mjs"] },
  );
} else {
  if (rest.length > 0 || mjs.length === 0) parts.push({ name: "vitest", argv: [VITEST, "run", ...rest], stream: true });
  const e2e = mjs.some((f) => path.resolve(f).startsWith(path.join(ROOT, "test/e2e") + path.sep));
  if (mjs.length > 0) parts.push({ name: "node --test", argv: [...NODE_TEST, ...(e2e ? [SHARED_STACK] : []), ...mjs] });
}

/** Passed / failed / skipped counts from a part's output (vitest's "Tests" line, node --test's closing lines). */
function counts(name, output) {
  const text = strip(output);
  if (name === "vitest") {
    const line = text.match(/^\s*Tests\s+(.*)$/m)?.[1] ?? "";
    const n = (word) => Number(line.match(new RegExp(`(\\d+) ${word}`))?.[1] ?? 0);
    return { passed: n("passed"), failed: n("failed"), skipped: n("skipped") + n("todo"), found: line !== "" };
  }
  const n = (word) => Number(text.match(new RegExp(`^\\S*\\s*${word} (\\d+)$`, "m"))?.[1] ?? 0);
  const found = /^\S*\s*pass \d+$/m.test(text);
  return { passed: n("pass"), failed: n("fail") + n("cancelled"), skipped: n("skipped") + n("todo"), found };
}

function run(part) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(NODE, part.argv, {
      cwd: ROOT,
      env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? (process.stdout.isTTY ? "1" : "0") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.add(child);
    let output = "";
    const take = (stream, sink) =>
      stream.on("data", (chunk) => {
        output += chunk;
        if (part.stream) sink.write(chunk);
      });
    take(child.stdout, process.stdout);
    take(child.stderr, process.stderr);
    child.on("close", (code, signal) => {
      children.delete(child);
      const seconds = (Date.now() - started) / 1000;
      if (!part.stream) {
        process.stdout.write(`\n──── ${part.name} (${part.argv.slice(NODE_TEST.length).join(" ")}) ────\n${output}`);
      }
      resolve({ ...part, code: code ?? 1, signal, seconds, ...counts(part.name, output) });
    });
  });
}

const children = new Set();
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    for (const child of children) child.kill(sig);
    process.exit(130);
  });
}

const started = Date.now();
// The Worker serves the built dashboard (test/routes/app-shell.test.ts, the browser tests): build it before any part
// starts, and fail the run when the first visit's JavaScript is over its budget.
const sizes = await buildWeb();
process.stdout.write(`${describe(sizes)}\n`);
if (sizes.initialJsGzipBytes > INITIAL_JS_BUDGET_BYTES) {
  process.stdout.write("FAIL build:web: the first visit's JavaScript is over budget\n");
  process.exit(1);
}
const results = await Promise.all(parts.map(run));
const total = { passed: 0, failed: 0, skipped: 0 };
process.stdout.write("\n──── summary ────\n");
for (const r of results) {
  const ok = r.code === 0 && r.found;
  for (const k of Object.keys(total)) total[k] += r[k];
  // A part that failed without a test failing (it crashed, or found no tests) still fails the run.
  if (!ok && r.failed === 0) total.failed += 1;
  process.stdout.write(
    `${ok ? "ok  " : "FAIL"} ${r.name.padEnd(11)} ${r.seconds.toFixed(0).padStart(4)} s  ` +
      `${r.passed} passed, ${r.failed} failed${r.skipped ? `, ${r.skipped} skipped` : ""}` +
      `${r.code !== 0 ? ` (exit ${r.signal ?? r.code})` : ""}\n`,
  );
}
process.stdout.write(`wall ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
process.stdout.write(
  `total: ${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ""}\n`,
);
process.exit(results.every((r) => r.code === 0 && r.found) ? 0 : 1);
