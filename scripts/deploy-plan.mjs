// What `npm run deploy` creates, derived from wrangler.jsonc (bindings, queues, crons), .dev.vars.example (secrets:
// a `generate` value is a random secret the deploy sets when missing; any other name that is not a var is optional)
// and docs/connect.md (the OAuth callbacks to register). scripts/deploy.mjs acts on it; test/deploy/drift.test.mjs
// checks it against the config, the README and the Worker's types.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { unstable_readConfig } from "wrangler";

export const root = path.resolve(import.meta.dirname, "..");

/** The name wrangler gives a resource it provisions for a binding that names none (wrangler 4.164, cli.js). */
const autoProvisionedName = (worker, binding) => `${worker}-${binding.toLowerCase().replaceAll("_", "-")}`;

export function readWranglerConfig(env, configPath = path.join(root, "wrangler.jsonc")) {
  return unstable_readConfig({ config: configPath, env }, { hideWarnings: true });
}

export function secretsFromExample(vars, file = path.join(root, ".dev.vars.example")) {
  const generated = [];
  const optional = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (!m || m[1] in vars) continue;
    (m[2] === "generate" ? generated : optional).push(m[1]);
  }
  return { generated, optional };
}

export function oauthCallbacks(file = path.join(root, "docs/connect.md")) {
  const platforms = [...readFileSync(file, "utf8").matchAll(/`…\/api\/oauth\/([a-z-]+)\/callback`/g)].map((m) => m[1]);
  return [...new Set(platforms)];
}

/**
 * Every resource, trigger and secret of one environment (undefined = production, the top level of the config).
 * `configPath` lets the drift test read a modified copy of the config.
 */
export function deployPlan(env, configPath) {
  const config = readWranglerConfig(env, configPath);
  const queues = new Set();
  for (const p of config.queues.producers ?? []) queues.add(p.queue);
  for (const c of config.queues.consumers ?? []) {
    queues.add(c.queue);
    if (c.dead_letter_queue) queues.add(c.dead_letter_queue);
  }
  const migrationsDir = config.d1_databases[0]?.migrations_dir ?? "migrations";
  return {
    env: env ?? "production",
    worker: config.name,
    d1: config.d1_databases.map((d) => ({
      binding: d.binding,
      name: d.database_name ?? autoProvisionedName(config.name, d.binding),
      id: d.database_id ?? null,
    })),
    r2: config.r2_buckets.map((b) => ({
      binding: b.binding,
      name: b.bucket_name ?? autoProvisionedName(config.name, b.binding),
    })),
    kv: config.kv_namespaces.map((k) => ({
      binding: k.binding,
      name: autoProvisionedName(config.name, k.binding),
      id: k.id ?? null,
    })),
    queues: [...queues],
    queueProducers: (config.queues.producers ?? []).map((p) => ({ binding: p.binding, queue: p.queue })),
    queueConsumers: (config.queues.consumers ?? []).map((c) => c.queue),
    crons: config.triggers.crons ?? [],
    durableObjects: config.durable_objects.bindings.map((d) => ({ binding: d.name, className: d.class_name })),
    assets: config.assets?.binding ? { binding: config.assets.binding, directory: config.assets.directory } : null,
    analyticsEngine: (config.analytics_engine_datasets ?? []).map((a) => ({ binding: a.binding, dataset: a.dataset })),
    vars: config.vars,
    secrets: secretsFromExample(config.vars),
    migrations: readdirSync(path.join(root, migrationsDir))
      .filter((f) => f.endsWith(".sql"))
      .sort(),
    oauthCallbacks: oauthCallbacks(),
  };
}
