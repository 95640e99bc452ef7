// Each benchmark owns one section of bench/RESULTS.md, between <!-- bench:NAME --> markers.
import { execSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const FILE = path.resolve(import.meta.dirname, "../RESULTS.md");

export function machine() {
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  let wrangler = "";
  try {
    wrangler = execSync("wrangler --version", {
      encoding: "utf8",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    }).trim();
  } catch {}
  return `${os.cpus().length} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.arch()}, Node ${process.version}, wrangler ${wrangler}`;
}

export function writeSection(name, markdown) {
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  let text = existsSync(FILE)
    ? readFileSync(FILE, "utf8")
    : "# Benchmark results\n\nRun all with `npm run bench`; each section names its own command.\n";
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const re = new RegExp(`${start}[\\s\\S]*?${end}`);
  text = re.test(text) ? text.replace(re, block) : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(FILE, text);
}

export const today = () => new Date().toISOString().slice(0, 10);

/** The `q` quantile (0–1) of a list of numbers, nearest-rank from below. */
export const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * q)];
export const median = (xs) => quantile(xs, 0.5);
