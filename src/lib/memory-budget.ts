/**
 * The isolate's byte budget for media buffers (issue 25 finding 6, docs/media.md "Memory budget"): every upload,
 * download and publish-time fit takes its share BEFORE it reads a byte into memory, and gives it back when its
 * buffers are gone. The budget is per isolate (module state), first come first served; a request that cannot get
 * its share waits up to MEDIA_MEMORY_WAIT_SECONDS (its body stays unread meanwhile: backpressure keeps it with the
 * client), then gets 503 with `Retry-After`. So no mix of concurrent requests holds more than
 * MEDIA_MEMORY_BUDGET_BYTES of media at once, whatever their number.
 *
 * A share larger than the whole budget is cut to the budget: such a request runs alone instead of never.
 */
import { AppError } from "./errors";

const MiB = 1024 * 1024;

/**
 * What one decode or encode (PNG/WebP → JPEG at ingest, a fit at publish time; one at a time per isolate,
 * src/media/transcode.ts `serialize`) may use beyond its input: the largest peak RSS growth measured within the
 * production limits was 91–93 MB (a 12.6 MP RGBA PNG, a 4 MP lossless WebP: bench/RESULTS.md "Hostile images",
 * "PNG inflate volume"), the input included.
 */
export const DECODE_RESERVE_BYTES = 88 * MiB;

/** Answered with the 503: how long a client should wait before sending the file again. */
export const MEMORY_BUSY_RETRY_AFTER_SECONDS = 5;

export class MemoryBusyError extends Error {
  readonly retryAfterSeconds = MEMORY_BUSY_RETRY_AFTER_SECONDS;
  constructor() {
    super("The server is busy with other media; send the file again shortly.");
    this.name = "MemoryBusyError";
  }
}

/** The 503 an HTTP route (or MCP tool) answers for a MemoryBusyError. */
export const memoryBusy = () =>
  new AppError(
    "service_unavailable",
    `The server is busy with other media. Retry after ${MEMORY_BUSY_RETRY_AFTER_SECONDS} seconds.`,
    { headers: { "Retry-After": String(MEMORY_BUSY_RETRY_AFTER_SECONDS) } },
  );

export interface MemoryBudgetStats {
  capacity: number;
  /** Bytes currently granted. */
  inUse: number;
  /** Requests waiting for their share. */
  waiting: number;
  /** Largest `inUse` seen since the isolate started (or `resetPeak`). */
  peakInUse: number;
  granted: number;
  refused: number;
  /** Shares taken back from abandoned requests (past SHARE_LEASE_MS) and waiters dropped as abandoned. */
  reclaimed: number;
}

interface Grant {
  share: number;
  at: number;
  released: boolean;
}

interface Waiter {
  cost: number;
  /** Its share, once granted. */
  grant?: Grant;
  /** When the waiting request last looked (it polls every WAIT_POLL_MS while it is alive). */
  polledAt: number;
}

/**
 * A request the runtime cancels (its client went away) never runs its `finally`: a share it held would stay taken
 * for the isolate's life, and one it waited for would be granted to nobody, blocking every later request — a video,
 * whose share is cut to the whole budget, then never gets one. So a waiter that has not polled for ABANDONED_WAITER_MS
 * is dropped from the queue, and a share held longer than SHARE_LEASE_MS is taken back (no upload, download or fit of
 * a bounded file holds its share that long; past it the budget trusts the share is gone).
 */
export const ABANDONED_WAITER_MS = 5_000;
export const SHARE_LEASE_MS = 15 * 60_000;

/**
 * How often a waiting request looks whether it was granted. It polls on a timer of its own rather than being woken
 * by the request that released the share: a promise settled from another request's context leaves the waiting
 * request with nothing of its own pending, and workerd cancels such a request as hung.
 */
const WAIT_POLL_MS = 50;

/** Releases a granted share; calling it again does nothing. */
export type Release = () => void;

export class MemoryBudget {
  #inUse = 0;
  #peak = 0;
  #granted = 0;
  #refused = 0;
  #reclaimed = 0;
  readonly #queue: Waiter[] = [];
  readonly #grants = new Set<Grant>();

  constructor(
    public capacity: number,
    /** The clock the waits use (tests pass a manual one). */
    private readonly clock = { now: () => Date.now(), sleep: (ms: number) => scheduler.wait(ms) },
  ) {}

  stats(): MemoryBudgetStats {
    return {
      capacity: this.capacity,
      inUse: this.#inUse,
      waiting: this.#queue.length,
      peakInUse: this.#peak,
      granted: this.#granted,
      refused: this.#refused,
      reclaimed: this.#reclaimed,
    };
  }

  resetPeak(): void {
    this.#peak = this.#inUse;
  }

  /**
   * Takes `cost` bytes (cut to the capacity), waiting up to `waitMs` behind earlier requests; MemoryBusyError when
   * the share is not free in time (at once when `waitMs` is 0).
   */
  async acquire(cost: number, waitMs: number): Promise<Release> {
    const share = Math.max(0, Math.min(Math.ceil(cost), this.capacity));
    this.#reclaim();
    if (this.#queue.length === 0 && this.#inUse + share <= this.capacity) {
      return this.#releaser(this.#take(share));
    }
    if (waitMs <= 0) {
      this.#refused++;
      throw new MemoryBusyError();
    }
    const waiter: Waiter = { cost: share, polledAt: this.clock.now() };
    this.#queue.push(waiter);
    const deadline = this.clock.now() + waitMs;
    while (!waiter.grant) {
      waiter.polledAt = this.clock.now();
      // Dropped as abandoned while this request was slow to look (not cancelled after all): back in the queue.
      if (!this.#queue.includes(waiter)) this.#queue.push(waiter);
      const left = deadline - this.clock.now();
      if (left <= 0) {
        this.#queue.splice(this.#queue.indexOf(waiter), 1);
        this.#refused++;
        this.#pump(); // a large share leaving the head may let smaller ones behind it through
        throw new MemoryBusyError();
      }
      await this.clock.sleep(Math.min(left, WAIT_POLL_MS));
      this.#reclaim();
      this.#pump();
    }
    return this.#releaser(waiter.grant);
  }

  #take(share: number): Grant {
    const grant: Grant = { share, at: this.clock.now(), released: false };
    this.#grants.add(grant);
    this.#inUse += share;
    this.#granted++;
    this.#peak = Math.max(this.#peak, this.#inUse);
    return grant;
  }

  #give(grant: Grant): void {
    if (grant.released) return;
    grant.released = true;
    this.#grants.delete(grant);
    this.#inUse -= grant.share;
  }

  #releaser(grant: Grant): Release {
    return () => {
      this.#give(grant);
      this.#reclaim();
      this.#pump();
    };
  }

  /** Takes back shares held past SHARE_LEASE_MS and drops waiters that stopped polling (see ABANDONED_WAITER_MS). */
  #reclaim(): void {
    const now = this.clock.now();
    for (const grant of this.#grants)
      if (now - grant.at > SHARE_LEASE_MS) {
        this.#give(grant);
        this.#reclaimed++;
      }
    for (let i = this.#queue.length - 1; i >= 0; i--)
      if (now - this.#queue[i]!.polledAt > ABANDONED_WAITER_MS) {
        this.#queue.splice(i, 1);
        this.#reclaimed++;
      }
  }

  /** Grants waiting requests in arrival order while the head's share fits. */
  #pump(): void {
    for (;;) {
      const head = this.#queue[0];
      if (!head || this.#inUse + head.cost > this.capacity) return;
      this.#queue.shift();
      head.grant = this.#take(head.cost);
    }
  }
}

let isolateBudget: MemoryBudget | null = null;

/** This isolate's budget, sized by MEDIA_MEMORY_BUDGET_BYTES (a changed value resizes it). */
export function isolateMemoryBudget(config: { MEDIA_MEMORY_BUDGET_BYTES: number }): MemoryBudget {
  isolateBudget ??= new MemoryBudget(config.MEDIA_MEMORY_BUDGET_BYTES);
  isolateBudget.capacity = config.MEDIA_MEMORY_BUDGET_BYTES;
  return isolateBudget;
}

/** How the media pipeline asks for memory: resolves with the release, or throws MemoryBusyError. */
export type MemoryGate = (cost: number) => Promise<Release>;

export const memoryGate =
  (config: { MEDIA_MEMORY_BUDGET_BYTES: number; MEDIA_MEMORY_WAIT_SECONDS: number }): MemoryGate =>
  (cost) =>
    isolateMemoryBudget(config).acquire(cost, config.MEDIA_MEMORY_WAIT_SECONDS * 1000);
