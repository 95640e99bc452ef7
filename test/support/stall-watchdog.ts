import type { Reporter, TestModule } from "vitest/node";

/**
 * A Vitest reporter that turns a stalled run into a fast, named failure.
 *
 * A run of the workers pool can stop making progress without any error (cloudflare/workers-sdk#15498 and #15719:
 * a console line from another I/O context parked during a file's last RPC leaves the file unfinished forever).
 * The suite guards against that cause (`disableConsoleIntercept` in vitest.config.ts, silent logs in
 * test/support/setup.ts); this is the net under it. When nothing at all has happened for `stallMs` — no test
 * started or finished, no file queued, started or ended — it prints the files still in flight and exits 1,
 * instead of letting CI sit until its own limit with no clue. No single test may take that long anyway: the
 * longest timeout in the suite is 120 s.
 */
export class StallWatchdog implements Reporter {
  readonly #inFlight = new Map<string, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastActivity = Date.now();

  constructor(private readonly stallMs: number) {}

  onInit(): void {
    this.#activity();
  }
  onTestModuleQueued(module: TestModule): void {
    this.#inFlight.set(module.moduleId, Date.now());
    this.#activity();
  }
  onTestModuleStart(): void {
    this.#activity();
  }
  onTestModuleEnd(module: TestModule): void {
    this.#inFlight.delete(module.moduleId);
    this.#activity();
  }
  onTestCaseReady(): void {
    this.#activity();
  }
  onTestCaseResult(): void {
    this.#activity();
  }
  onTestRunEnd(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #activity(): void {
    this.#lastActivity = Date.now();
    if (this.#timer) return;
    const check = () => {
      const idle = Date.now() - this.#lastActivity;
      if (idle < this.stallMs) {
        this.#timer = setTimeout(check, this.stallMs - idle);
        this.#timer.unref?.();
        return;
      }
      const now = Date.now();
      const files = [...this.#inFlight].map(
        ([id, since]) => `  ${id} (queued ${Math.round((now - since) / 1000)} s ago)`,
      );
      process.stderr.write(
        `\n[stall-watchdog] no test progress for ${Math.round(idle / 1000)} s; files still in flight:\n` +
          `${files.join("\n") || "  (none: the pool did not start the next file)"}\nFailing the run.\n`,
      );
      process.exit(1);
    };
    this.#timer = setTimeout(check, this.stallMs);
    this.#timer.unref?.();
  }
}
