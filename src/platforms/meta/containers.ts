import { type AdapterContext, PlatformError } from "../types";

/**
 * Waiting on Meta's asynchronous processing (Instagram/Threads containers, Facebook reels): check, and while the
 * platform says "in progress" sleep via `ctx.sleep` (instant in tests) and check again, up to a bound.
 */
export type ProcessingState = { state: "ready" } | { state: "pending" } | { state: "failed"; reason: string };

export interface PollOptions {
  label: string;
  intervalMs: number;
  maxAttempts: number;
}

/** Container polls: images are usually ready at once; videos take seconds to minutes (≤ 5 min typical). */
export const CONTAINER_POLL: Omit<PollOptions, "label"> = { intervalMs: 5_000, maxAttempts: 72 };

/**
 * Resolves true when ready, false when still pending after `maxAttempts`; a failure throws a permanent
 * PlatformError carrying the platform's reason.
 */
export async function pollProcessing(
  ctx: AdapterContext,
  check: () => Promise<ProcessingState>,
  opts: PollOptions,
): Promise<boolean> {
  for (let attempt = 0; attempt < opts.maxAttempts; attempt++) {
    if (attempt > 0) await ctx.sleep(opts.intervalMs);
    const s = await check();
    if (s.state === "ready") return true;
    if (s.state === "failed") throw new PlatformError("permanent", s.reason);
  }
  return false;
}

/** As pollProcessing, but a container that never finishes is a transient failure (nothing was published yet). */
export async function waitForContainer(
  ctx: AdapterContext,
  check: () => Promise<ProcessingState>,
  opts: PollOptions,
): Promise<void> {
  const ready = await pollProcessing(ctx, check, opts);
  if (!ready) throw new PlatformError("transient", `${opts.label} is still processing the media.`);
}
