import { loadConfig } from "../config";
import type { ServiceContext } from "../context";
import { createDb } from "../db/client";
import { type AdapterContext, type AdapterMedia, PlatformError } from "../platforms/types";

/**
 * The ServiceContext of the background transports (cron, queue): no request, so the origin is the configured
 * PUBLIC_URL (used for media URLs when MEDIA_URL is empty).
 */
export function backgroundContext(env: Cloudflare.Env, ctx: ExecutionContext, requestId: string): ServiceContext {
  const config = loadConfig(env);
  return {
    env,
    db: createDb(env.DB),
    config,
    now: () => Date.now(),
    requestId,
    origin: config.PUBLIC_URL,
    waitUntil: (p) => ctx.waitUntil(p),
    webhookOutbox: { recorded: false },
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * What adapters get: config, outbound fetch (resolved at call time so tests' fakes apply), media from R2, clock
 * and a sleep for processing polls.
 */
export function createAdapterContext(ctx: ServiceContext, overrides: Partial<AdapterContext> = {}): AdapterContext {
  const getObject = async (m: AdapterMedia) => {
    const obj = await ctx.env.MEDIA_BUCKET.get(m.path);
    if (!obj) throw new PlatformError("permanent", `Media ${m.id} is missing from storage.`);
    return obj;
  };
  return {
    config: ctx.config,
    fetch: (input, init) => fetch(input, init),
    openMedia: async (m) => {
      const obj = await getObject(m);
      return { body: obj.body, size: obj.size };
    },
    readMedia: async (m) => new Uint8Array(await (await getObject(m)).arrayBuffer()),
    now: ctx.now,
    sleep,
    ...overrides,
  };
}
