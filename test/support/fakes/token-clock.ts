/**
 * Token lifetimes as the networks keep them (docs/token-refresh.md has each network's numbers and sources). A fake
 * records when each token it issued stops working; `expired()` answers from `Date.now()`, so a test moves every
 * fake's clock with `vi.setSystemTime`. A token the clock never saw is not timed (the fakes' fixed seed tokens,
 * such as "access-token", keep working in tests that do not care about time); a test that does gives them a
 * lifetime with `issue()`.
 */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

export class TokenClock {
  readonly #expiries = new Map<string, number>();

  /** `token` was issued at `issuedAt` (default now) and lives `lifetimeMs`. */
  issue(token: string, lifetimeMs: number, issuedAt = Date.now()): void {
    this.#expiries.set(token, issuedAt + lifetimeMs);
  }

  /** `token` stops working at `at` (a refresh token that keeps its first expiry across refreshes). */
  expireAt(token: string, at: number): void {
    this.#expiries.set(token, at);
  }

  /** When `token` stops working; undefined when it is not timed. */
  expiresAt(token: string): number | undefined {
    return this.#expiries.get(token);
  }

  expired(token: string): boolean {
    const at = this.#expiries.get(token);
    return at !== undefined && at <= Date.now();
  }

  /** Seconds left, for a token endpoint's `expires_in` / `refresh_token_expires_in`. */
  secondsLeft(token: string): number | undefined {
    const at = this.#expiries.get(token);
    return at === undefined ? undefined : Math.max(0, Math.floor((at - Date.now()) / 1000));
  }
}
