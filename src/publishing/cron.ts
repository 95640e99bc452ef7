import { errorFields, log } from "../lib/logger";
import { backgroundContext } from "./context";
import { runScheduler } from "./scheduler";
import { sweepStuckRows } from "./sweeper";
import { runTokenRefresh } from "./token-refresh";

/** The every-minute cron: publish due posts, time out stuck rows and refresh tokens before they expire. */
export async function runCron(env: Cloudflare.Env, ctx: ExecutionContext): Promise<void> {
  const sctx = backgroundContext(env, ctx, crypto.randomUUID());
  const results = await Promise.allSettled([runScheduler(sctx), sweepStuckRows(sctx), runTokenRefresh(sctx)]);
  for (const r of results) {
    if (r.status === "rejected") log("error", "cron_step_failed", errorFields(r.reason));
  }
  const failure = results.find((r) => r.status === "rejected");
  if (failure) throw (failure as PromiseRejectedResult).reason;
}
