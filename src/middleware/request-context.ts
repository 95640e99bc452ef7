import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { loadConfig } from "../config";
import type { ServiceContext } from "../context";
import { countingD1, createDb, type Db, type QueryCounter } from "../db/client";
import { BOOKMARK_HEADER, consistencyFor, laterBookmark, openSession, requestBookmark } from "../db/session";
import { groupedBatches } from "../db/write-groups";
import { log } from "../lib/logger";
import { dispatchRecordedEvents } from "../services/webhooks/kick";
import type { AppEnv } from "../types";
import { onError } from "./errors";
import { loggablePath } from "./log-path";

/**
 * First middleware: request id, the ServiceContext, and one structured log line per request
 * (request id, method, route pattern, the path where it holds no token, status, duration; never headers or
 * bodies).
 *
 * The ServiceContext's drizzle client runs every query of the request in one D1 session (src/db/session.ts,
 * docs/consistency.md): read routes on the nearest replica or from the client's `x-d1-bookmark`, everything else at
 * the primary; the session's last bookmark goes back in `x-d1-bookmark` on every response.
 */
export const requestContext: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = performance.now();
  const requestId = crypto.randomUUID();
  c.set("requestId", requestId);
  const url = new URL(c.req.url);
  const queries: QueryCounter = { statements: 0, roundTrips: 0, ms: 0 };
  let bookmark: string | null = null;
  let badBookmark: unknown = null;
  try {
    bookmark = requestBookmark(c.req.header(BOOKMARK_HEADER));
  } catch (err) {
    badBookmark = err;
  }
  // A malformed bookmark is answered 400 below, before anything runs; the session it would have used is never queried.
  const session = openSession(c.env.DB, badBookmark ? "primary" : consistencyFor(c.req.method, url.pathname), bookmark);
  // The bookmark of the group commit that carried this request's write, when another request sent it
  // (src/db/write-groups.ts): this request's own session never saw that commit.
  let groupBookmark: string | null = null;
  let groupedDb: Db | undefined;
  const service: ServiceContext = {
    env: c.env,
    db: createDb(countingD1(session as unknown as D1Database, queries)),
    groupedDb: () => {
      groupedDb ??= createDb(
        countingD1(
          groupedBatches(session, service.waitUntil, (b) => {
            groupBookmark = b;
          }),
          queries,
        ),
      );
      return groupedDb;
    },
    config: loadConfig(c.env),
    now: () => Date.now(),
    requestId,
    origin: url.origin,
    webhookOutbox: { recorded: false },
    waitUntil: (p) => {
      try {
        c.executionCtx.waitUntil(p);
      } catch {
        p.catch(() => {});
      }
    },
  };
  c.set("service", service);
  if (badBookmark) c.res = await onError(badBookmark as Error, c);
  else await next();
  dispatchRecordedEvents(service);
  c.res.headers.set("X-Request-Id", requestId);
  // The newest state this request saw or wrote (its own session's, or the group commit's that carried its write);
  // with no query run, the client's own bookmark is still its floor.
  const latest = laterBookmark(groupBookmark, session.getBookmark()) ?? bookmark;
  if (latest) c.res.headers.set(BOOKMARK_HEADER, latest);
  // Outside production, say how many D1 statements the request ran (browser devtools and the benchmarks read it).
  if (service.config.APP_ENV !== "production")
    c.res.headers.set(
      "Server-Timing",
      `d1;desc="${queries.statements} statements";dur=${queries.ms.toFixed(1)}, d1rt;desc="${queries.roundTrips} round trips", d1rows;desc="${queries.rowsRead ?? 0} read, ${queries.rowsWritten ?? 0} written", total;dur=${(performance.now() - started).toFixed(1)}`,
    );
  const workspace = c.get("workspace");
  log("info", "request", {
    request_id: requestId,
    method: c.req.method,
    route: routePath(c),
    path: loggablePath(c),
    status: c.res.status,
    duration_ms: Math.round((performance.now() - started) * 100) / 100,
    workspace_id: workspace?.workspaceId,
    // A signed-in person's id (issue 27); absent for API keys.
    user_id: workspace?.person?.userId,
    d1_queries: queries.statements,
  });
};
