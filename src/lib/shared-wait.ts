/**
 * How long a request waits for work another request started on its behalf (a shared API-key lookup, throttle lease
 * renewal or platform metrics call) before doing that work itself.
 */
export const SHARED_WAIT_MS = 1000;

/**
 * Waits for a promise that another request started, but at most `ms`; null when it did not settle in time.
 *
 * Several requests in one isolate may share one D1 read or one Durable Object call. That I/O belongs to the request
 * that started it, and if that request is canceled (its client went away) the promise may never settle: a request
 * waiting on it without a bound would hang. A rejection is passed on like the value.
 */
export async function waitShared<T>(shared: Promise<T>, ms = SHARED_WAIT_MS): Promise<{ value: T } | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([shared.then((value) => ({ value })), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Calls in flight per key in this isolate, for requests to share. A call older than `SHARED_WAIT_MS` is presumed
 * lost with its request and no longer offered, so one canceled request cannot slow later ones down for good.
 */
export class InFlight<T> {
  readonly #calls = new Map<string, { promise: Promise<T>; startedAt: number }>();

  /** The live call for `key`, if any. */
  get(key: string): Promise<T> | undefined {
    const call = this.#calls.get(key);
    if (call && Date.now() - call.startedAt <= SHARED_WAIT_MS) return call.promise;
    return undefined;
  }

  /**
   * Joins the live call for `key` (waiting at most `SHARED_WAIT_MS` for its answer, a rejection included), or runs
   * `call` as the call for `key` when there is none or it did not answer in time.
   */
  async run(key: string, call: () => Promise<T>): Promise<T> {
    const live = this.get(key);
    if (live) {
      const shared = await waitShared(live);
      if (shared) return shared.value;
    }
    return this.start(key, call);
  }

  /** Runs `call` as the one for `key` until it settles. */
  start(key: string, call: () => Promise<T>): Promise<T> {
    const promise = call().finally(() => {
      if (this.#calls.get(key)?.promise === promise) this.#calls.delete(key);
    });
    this.#calls.set(key, { promise, startedAt: Date.now() });
    return promise;
  }
}
