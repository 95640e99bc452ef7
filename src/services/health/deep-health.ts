import { sql } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { errorFields } from "../../lib/logger";
import type { HealthProbe } from "../../queues";
import { checkLinkedInVersion } from "./linkedin-version";

export interface CheckResult {
  status: "ok" | "error";
  latency_ms: number;
  error?: string;
}

/** Each check is bounded, so a hung binding answers `error` instead of hanging the monitor's request. */
export const CHECK_TIMEOUT_MS = 5_000;

async function timed(probe: () => Promise<unknown>): Promise<CheckResult> {
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { status: "ok", latency_ms: Math.round(performance.now() - started) };
  } catch (err) {
    return {
      status: "error",
      latency_ms: Math.round(performance.now() - started),
      error: String(errorFields(err).error_message ?? err),
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `GET /api/health?deep=1`: one round trip to every dependency, concurrently, each with its latency. D1 runs a
 * query, R2 and KV read a key that does not exist, each queue producer sends a probe that every consumer acks
 * unread (src/queues.ts), the Durable Object answers through its storage; `linkedin_version` is `error` while
 * LinkedIn has answered 426 to the configured LINKEDIN_API_VERSION (linkedin-version.ts). Nothing is written.
 */
export async function deepHealth(ctx: ServiceContext) {
  const probe: HealthProbe = { health_probe: ctx.requestId };
  const entries = {
    d1: () => ctx.db.run(sql`SELECT 1`),
    r2: () => ctx.env.MEDIA_BUCKET.head("health/probe"),
    kv: () => ctx.env.METRICS_CACHE.get("health:probe"),
    publish_queue: () => ctx.env.PUBLISH_QUEUE.send(probe, { contentType: "json" }),
    webhook_queue: () => ctx.env.WEBHOOK_QUEUE.send(probe, { contentType: "json" }),
    durable_object: () => ctx.env.UPLOAD_GUARD.get(ctx.env.UPLOAD_GUARD.idFromName("health")).ping(),
    // Not a binding: whether LinkedIn refused the configured LinkedIn-Version (426) since it was set (one KV read).
    linkedin_version: () => checkLinkedInVersion(ctx),
  } as const;
  const names = Object.keys(entries) as (keyof typeof entries)[];
  const results = await Promise.all(names.map((n) => timed(entries[n])));
  const checks = Object.fromEntries(names.map((n, i) => [n, results[i]!])) as Record<keyof typeof entries, CheckResult>;
  const healthy = results.every((r) => r.status === "ok");
  return { status: healthy ? ("ok" as const) : ("degraded" as const), checks };
}
