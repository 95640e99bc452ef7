import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { loadConfig } from "../config";
import type { ServiceContext } from "../context";
import { countingD1, createDb, type QueryCounter } from "../db/client";
import { log } from "../lib/logger";
import { dispatchRecordedEvents } from "../services/webhooks/kick";
import type { AppEnv } from "../types";

/**
 * First middleware: request id, the ServiceContext, and one structured log line per request
 * (request id, method, route pattern, status, duration; never headers or bodies).
 */
export const requestContext: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = performance.now();
  const requestId = crypto.randomUUID();
  c.set("requestId", requestId);
  const url = new URL(c.req.url);
  const queries: QueryCounter = { statements: 0, ms: 0 };
  const service: ServiceContext = {
    env: c.env,
    db: createDb(countingD1(c.env.DB, queries)),
    config: loadConfig(c.env),
    now: () => Date.now(),
    requestId,
    origin: url.origin,
    waitUntil: (p) => {
      try {
        c.executionCtx.waitUntil(p);
      } catch {
        p.catch(() => {});
      }
    },
  };
  c.set("service", service);
  await next();
  dispatchRecordedEvents(service);
  c.res.headers.set("X-Request-Id", requestId);
  // Outside production, say how many D1 statements the request ran (browser devtools and the benchmarks read it).
  if (service.config.APP_ENV !== "production")
    c.res.headers.set(
      "Server-Timing",
      `d1;desc="${queries.statements} statements";dur=${queries.ms.toFixed(1)}, total;dur=${(performance.now() - started).toFixed(1)}`,
    );
  const workspace = c.get("workspace");
  log("info", "request", {
    request_id: requestId,
    method: c.req.method,
    route: routePath(c),
    path: url.pathname,
    status: c.res.status,
    duration_ms: Math.round((performance.now() - started) * 100) / 100,
    workspace_id: workspace?.workspaceId,
    d1_queries: queries.statements,
  });
};
