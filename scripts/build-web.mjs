#!/usr/bin/env node
// `npm run build:web`: bundles the dashboard (web/, Preact + TSX) with esbuild into public/app/ — content-hashed
// files in public/app/assets/ (served by src/routes/hashed-assets.ts, cached for good) and public/app/index.html,
// the page the Worker answers for every /app route (src/routes/app/app-shell.ts). Prints the gzip size of the
// JavaScript a first visit loads (the entry and the chunks it imports statically; each page is a chunk loaded when
// first shown). `--watch` rebuilds on every change (npm run dev). `--json` prints the sizes as JSON; `--record`
// writes them to bench/RESULTS.md (section dashboard-bundle).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";

export const ROOT = path.resolve(import.meta.dirname, "..");
export const OUT_DIR = path.join(ROOT, "public/app");
const ASSETS_DIR = path.join(OUT_DIR, "assets");
const URL_BASE = "/app/assets/";
/** The issue's budget for the JavaScript of a first visit, gzip (bench/RESULTS.md records the measured size). */
export const INITIAL_JS_BUDGET_BYTES = 150 * 1024;

const options = {
  absWorkingDir: ROOT,
  entryPoints: { main: "web/main.tsx" },
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "browser",
  target: ["es2022"],
  minify: true,
  sourcemap: false,
  jsx: "automatic",
  jsxImportSource: "preact",
  outdir: ASSETS_DIR,
  entryNames: "[name]-[hash]",
  chunkNames: "[name]-[hash]",
  assetNames: "[name]-[hash]",
  metafile: true,
  // Written by `sync` below: only files whose bytes changed, so a build while the Worker serves public/app (npm test
  // runs the browser tests beside the workerd ones; wrangler dev) never truncates a file that is being read.
  write: false,
  legalComments: "none",
  logLevel: "warning",
  define: { "process.env.NODE_ENV": '"production"' },
};

const escapeAttr = (s) => s.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");

function page({ script, styles, preloads }) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Edge Social Publisher</title>
<link rel="icon" href="data:,">
${styles.map((s) => `<link rel="stylesheet" href="${escapeAttr(s)}">`).join("\n")}
${preloads.map((p) => `<link rel="modulepreload" href="${escapeAttr(p)}">`).join("\n")}
<script type="module" src="${escapeAttr(script)}"></script>
</head>
<body>
<noscript>The dashboard needs JavaScript. The API works without it: /api/docs.</noscript>
<div id="app"></div>
</body>
</html>
`;
}

const gzipBytes = (file) => gzipSync(readFileSync(path.join(ROOT, file)), { level: 9 }).length;

/** Writes `bytes` to `file` unless it already holds exactly them. */
function writeIfChanged(file, bytes) {
  const data = typeof bytes === "string" ? Buffer.from(bytes) : bytes;
  if (existsSync(file) && Buffer.compare(readFileSync(file), data) === 0) return;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, data);
}

/** public/app/ becomes exactly one esbuild result plus its index.html; returns the sizes of a first visit. */
function sync(result) {
  mkdirSync(ASSETS_DIR, { recursive: true });
  const keep = new Set(result.outputFiles.map((f) => path.basename(f.path)));
  for (const f of result.outputFiles) writeIfChanged(f.path, f.contents);
  for (const name of readdirSync(ASSETS_DIR)) if (!keep.has(name)) rmSync(path.join(ASSETS_DIR, name), { force: true });
  return writePage(result.metafile);
}

/** Writes index.html for one esbuild result and returns the sizes of what a first visit loads. */
function writePage(metafile) {
  const outputs = metafile.outputs;
  const entry = Object.keys(outputs).find((f) => outputs[f].entryPoint === "web/main.tsx");
  if (!entry) throw new Error("esbuild produced no entry for web/main.tsx");
  // Files the entry imports statically, transitively: the first visit loads all of them.
  const initial = new Set([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    for (const imp of outputs[queue.shift()].imports) {
      if (imp.kind !== "import-statement" || imp.external || initial.has(imp.path)) continue;
      initial.add(imp.path);
      queue.push(imp.path);
    }
  }
  const url = (file) => URL_BASE + path.basename(file);
  const css = Object.keys(outputs).filter((f) => f.endsWith(".css") && outputs[f].entryPoint === undefined);
  const cssBundle = outputs[entry].cssBundle;
  const styles = cssBundle ? [url(cssBundle)] : css.map(url);
  const preloads = [...initial].filter((f) => f !== entry).map(url);
  writeIfChanged(path.join(OUT_DIR, "index.html"), page({ script: url(entry), styles, preloads }));
  const js = [...initial].map((f) => ({ file: f, bytes: outputs[f].bytes, gzip: gzipBytes(f) }));
  const allJs = Object.keys(outputs).filter((f) => f.endsWith(".js"));
  return {
    initialJsBytes: js.reduce((n, f) => n + f.bytes, 0),
    initialJsGzipBytes: js.reduce((n, f) => n + f.gzip, 0),
    initialFiles: js.map((f) => path.basename(f.file)),
    cssGzipBytes: styles.length ? gzipBytes(cssBundle ?? css[0]) : 0,
    allJsGzipBytes: allJs.reduce((n, f) => n + gzipBytes(f), 0),
    chunks: allJs.length,
  };
}

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

export function describe(sizes) {
  return (
    `[build:web] public/app: first visit loads ${sizes.initialFiles.length} JS file(s), ` +
    `${kib(sizes.initialJsBytes)} (gzip ${kib(sizes.initialJsGzipBytes)}, budget ${kib(INITIAL_JS_BUDGET_BYTES)}), ` +
    `CSS gzip ${kib(sizes.cssGzipBytes)}; all ${sizes.chunks} JS files gzip ${kib(sizes.allJsGzipBytes)}`
  );
}

/** One build of public/app/. Returns the sizes. */
export async function buildWeb() {
  return sync(await esbuild.build(options));
}

/** Rebuilds public/app/ on every change under web/, sdk/ or src/catalog (npm run dev). Returns the esbuild context. */
export async function watchWeb({ log = console.log } = {}) {
  const ctx = await esbuild.context({
    ...options,
    plugins: [
      {
        name: "page",
        setup(build) {
          // Files of an earlier build are removed, so they do not pile up.
          let last = "";
          build.onEnd((result) => {
            if (result.errors.length > 0 || !result.metafile) return;
            const line = describe(sync(result));
            if (line !== last) log(line);
            last = line;
          });
        },
      },
    ],
  });
  await ctx.rebuild(); // the first build is on disk when this returns
  await ctx.watch();
  return ctx;
}

/** The sizes as bench/RESULTS.md's dashboard-bundle section. */
async function record(sizes) {
  const { machine, today, writeSection } = await import("../bench/lib/results.mjs");
  writeSection(
    "dashboard-bundle",
    `## Dashboard bundle (\`npm run build:web -- --record\`)

${today()} · ${machine()}

A first visit to /app loads **${kib(sizes.initialJsGzipBytes)} of JavaScript, gzip** (${kib(sizes.initialJsBytes)} minified;
${sizes.initialFiles.length} files: the entry and the chunks it imports) and ${kib(sizes.cssGzipBytes)} of CSS, gzip; budget
${kib(INITIAL_JS_BUDGET_BYTES)} gzip (issue 27), checked by every build. Each page is a chunk of its own, loaded when first
shown: all ${sizes.chunks} JavaScript files together are ${kib(sizes.allJsGzipBytes)} gzip.`,
  );
  console.log("[build:web] recorded in bench/RESULTS.md (dashboard-bundle)");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  if (args.includes("--watch")) {
    await watchWeb();
  } else {
    const sizes = await buildWeb();
    if (args.includes("--json")) console.log(JSON.stringify(sizes));
    else console.log(describe(sizes));
    if (args.includes("--record")) await record(sizes);
    if (sizes.initialJsGzipBytes > INITIAL_JS_BUDGET_BYTES) {
      console.error(`[build:web] the first visit's JavaScript is over budget (${kib(INITIAL_JS_BUDGET_BYTES)} gzip)`);
      process.exitCode = 1;
    }
  }
}
