// `npm run bench -- text-length`: CPU time of X's weighted count (src/catalog/text-length.ts) on hostile inputs
// of the API's maximum content length (10,000 characters). `BENCH_REF=<git ref>` also measures that version of the
// file (e.g. the commit before the URL pattern was bounded) for comparison.
import { execSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { machine, writeSection } from "../lib/results.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const tmp = mkdtempSync(path.join(os.tmpdir(), "bench-text-length-"));

async function load(label, entry) {
  const outfile = path.join(tmp, `${label}.mjs`);
  await build({ entryPoints: [entry], bundle: true, format: "esm", platform: "neutral", outfile, logLevel: "error" });
  return import(pathToFileURL(outfile).href);
}

const INPUTS = {
  '10,000 "é" + "."': "é".repeat(10_000) + ".",
  '5,000 "a." + "!"': "a.".repeat(5_000) + "!",
  '5,000 "é." + "!"': "é.".repeat(5_000) + "!",
  "https://example.com/ + 10,000 path chars": `https://example.com/${"a".repeat(9_980)}!`,
  "ordinary post with 3 URLs ×40": "Launch day! Read https://example.com/blog/launch and t.co/abc, see example.org "
    .repeat(40)
    .slice(0, 10_000),
};

function time(fn, text) {
  fn(text); // warm: compiles the pattern
  const runs = [];
  for (let i = 0; i < 7; i++) {
    const t = performance.now();
    fn(text);
    runs.push(performance.now() - t);
  }
  runs.sort((a, b) => a - b);
  return runs[3];
}

const versions = [["current", path.join(root, "src/catalog/text-length.ts")]];
if (process.env.BENCH_REF) {
  const dir = path.join(tmp, "ref");
  execSync(`mkdir -p ${dir}`);
  for (const f of ["text-length.ts", "tlds.ts"])
    writeFileSync(path.join(dir, f), execSync(`git show ${process.env.BENCH_REF}:src/catalog/${f}`, { cwd: root }));
  writeFileSync(path.join(dir, "platforms.ts"), "export type Platform = string;\n");
  versions.push([process.env.BENCH_REF, path.join(dir, "text-length.ts")]);
}

const rows = [];
for (const [label, entry] of versions) {
  const mod = await load(label.replace(/\W/g, "_"), entry);
  for (const [name, text] of Object.entries(INPUTS)) {
    const ms = time(mod.xWeightedLength, text);
    rows.push([label, name, mod.xWeightedLength(text), ms]);
    console.log(label, name, mod.xWeightedLength(text), `${ms.toFixed(1)} ms`);
  }
}

writeSection(
  "text-length",
  `## X weighted length on hostile text (bench/text-length)

\`npm run bench -- text-length\` (\`BENCH_REF=<commit>\` adds that version of the file). Median of 7 runs after a
warm-up, in Node (V8, the engine workerd uses); in workerd the clock does not advance during CPU work.

${new Date().toISOString().slice(0, 10)} · ${machine()} (shared with other jobs: absolute numbers are noisy)

| version | input | weighted length | median CPU |
| --- | --- | --- | --- |
${rows.map(([v, n, len, ms]) => `| ${v} | ${n} | ${len} | ${ms.toFixed(1)} ms |`).join("\n")}
`,
);
