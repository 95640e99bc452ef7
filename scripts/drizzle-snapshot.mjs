#!/usr/bin/env node
// Keeps drizzle-kit's record (migrations/meta) in step with hand-written migrations, so that `npm run db:generate`
// writes only what the schema really changed.
//
//   npm run db:snapshot          records the current schema as the snapshot of the newest migration file and
//                                lists every migration file in the journal (no SQL file is written or changed)
//   npm run db:snapshot -- --check   exits 1, printing the SQL drizzle-kit would generate, when the record is behind
//
// How: drizzle-kit generate runs against a scratch copy of migrations/meta (node_modules/.cache); what it would
// write there is the difference between the recorded snapshot and src/db/schema. Its new snapshot is kept, its SQL is
// not: the hand-written migration already made that change (test/db/schema-matches-migrations.test.ts checks that
// the migrations build exactly the schema). See README "Migrations".
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const MIGRATIONS = "migrations";
const META = path.join(ROOT, MIGRATIONS, "meta");
const JOURNAL = path.join(META, "_journal.json");
// drizzle-kit takes only paths relative to the working directory for --out.
const SCRATCH = path.join("node_modules", ".cache", "drizzle-snapshot");
const check = process.argv.includes("--check");

/** Runs drizzle-kit generate on a copy of meta/; the SQL and snapshot it would write, or null for none. */
function pendingChange() {
  rmSync(path.join(ROOT, SCRATCH), { recursive: true, force: true });
  mkdirSync(path.join(ROOT, SCRATCH), { recursive: true });
  cpSync(META, path.join(ROOT, SCRATCH, "meta"), { recursive: true });
  const kit = path.join(ROOT, "node_modules", "drizzle-kit", "bin.cjs");
  const args = [kit, "generate", "--dialect", "sqlite", "--schema", "./src/db/schema/index.ts"];
  const run = spawnSync(process.execPath, [...args, "--out", SCRATCH, "--name", "pending"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  // drizzle-kit reports a broken record (two snapshots naming the same parent: a "collision") with exit code 0
  // and writes nothing, which would read as "in step": treat any error line as a failure.
  const output = run.stdout + run.stderr;
  if (run.status !== 0 || /^\s*Error\b|collision/im.test(output)) {
    process.stderr.write(output);
    throw new Error(`drizzle-kit generate failed (exit ${run.status}): fix migrations/meta (README, Migrations)`);
  }
  const sql = readdirSync(path.join(ROOT, SCRATCH)).find((f) => f.endsWith(".sql"));
  if (!sql) return null;
  const prefix = sql.split("_")[0];
  return {
    sql: readFileSync(path.join(ROOT, SCRATCH, sql), "utf8"),
    snapshot: JSON.parse(readFileSync(path.join(ROOT, SCRATCH, "meta", `${prefix}_snapshot.json`), "utf8")),
  };
}

const migrationFiles = () =>
  readdirSync(path.join(ROOT, MIGRATIONS))
    .filter((f) => f.endsWith(".sql"))
    .sort();

/** Adds every migration file the journal lacks, idx = the file's number (so generate numbers after the last). */
function recordJournal() {
  const journal = JSON.parse(readFileSync(JOURNAL, "utf8"));
  const known = new Set(journal.entries.map((e) => e.tag));
  for (const file of migrationFiles()) {
    const tag = file.slice(0, -".sql".length);
    if (known.has(tag)) continue;
    journal.entries.push({ idx: Number.parseInt(tag, 10), version: "6", when: Date.now(), tag, breakpoints: true });
  }
  journal.entries.sort((a, b) => a.tag.localeCompare(b.tag));
  writeFileSync(JOURNAL, `${JSON.stringify(journal, null, 2)}\n`);
}

const change = pendingChange();
if (check) {
  const missing = migrationFiles().filter(
    (f) => !JSON.parse(readFileSync(JOURNAL, "utf8")).entries.some((e) => `${e.tag}.sql` === f),
  );
  if (change || missing.length) {
    if (missing.length) console.error(`Not in migrations/meta/_journal.json: ${missing.join(", ")}`);
    if (change) console.error(`drizzle-kit generate would write this migration:\n\n${change.sql}`);
    console.error("Run `npm run db:snapshot` after the hand-written migration is in place (README, Migrations).");
    process.exit(1);
  }
  console.log("migrations/meta is in step with src/db/schema: drizzle-kit generate has nothing to write.");
} else {
  if (change) {
    const newest = migrationFiles().at(-1);
    const name = `${newest.split("_")[0]}_snapshot.json`;
    if (existsSync(path.join(META, name))) throw new Error(`${name} exists: add the migration file first.`);
    writeFileSync(path.join(META, name), `${JSON.stringify(change.snapshot, null, 2)}\n`);
    console.log(`Recorded the schema as migrations/meta/${name}.`);
  }
  recordJournal();
  if (pendingChange()) throw new Error("drizzle-kit generate still sees a change after recording the snapshot.");
  console.log("drizzle-kit generate now has nothing to write.");
}
rmSync(path.join(ROOT, SCRATCH), { recursive: true, force: true });
