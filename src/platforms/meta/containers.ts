import { LOOKUP_SKEW_MS, savedState, saveState } from "../checkpoint";
import { type AdapterContext, PlatformError, type PublishRequest } from "../types";

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

/** Where a saved container stands when a retry comes back to it. */
export type ContainerFate = "published" | "publishable" | "gone";

export interface ContainerFlow {
  /** Creates the container(s) and waits until the one to publish is FINISHED; returns its id. */
  create: () => Promise<string>;
  /** PUBLISHED → "published"; IN_PROGRESS/FINISHED → "publishable" (after waiting); EXPIRED/ERROR → "gone". */
  fate: (creationId: string) => Promise<ContainerFate>;
  /** `…_publish` with the creation id → the media id. */
  publish: (creationId: string) => Promise<string>;
  /** The account's media published since `sinceMs` that is this post (by its text), if any. */
  findPublished: (sinceMs: number) => Promise<string | null>;
}

/**
 * Instagram and Threads publish a container once. The container id is saved before `…_publish`; a retry asks the
 * container: not yet published → publish it now (the same container, never a new one); published → the media is
 * looked up among the account's posts since the publish call (one page, by text); expired or failed → start over.
 * Returns the media id, or null when the container says published but the media could not be found.
 */
export async function publishContainerOnce(
  ctx: AdapterContext,
  req: PublishRequest,
  flow: ContainerFlow,
): Promise<{ mediaId: string | null; creationId: string }> {
  const saved = savedState<{ creation_id: string; publish_sent_at: number }>(req);
  if (saved?.creation_id) {
    const fate = await flow.fate(saved.creation_id);
    if (fate === "published") {
      return {
        mediaId: await flow.findPublished(saved.publish_sent_at - LOOKUP_SKEW_MS),
        creationId: saved.creation_id,
      };
    }
    if (fate === "publishable") {
      await saveState(req, { creation_id: saved.creation_id, publish_sent_at: ctx.now() });
      return { mediaId: await flow.publish(saved.creation_id), creationId: saved.creation_id };
    }
  }
  const creationId = await flow.create();
  await saveState(req, { creation_id: creationId, publish_sent_at: ctx.now() });
  return { mediaId: await flow.publish(creationId), creationId };
}
