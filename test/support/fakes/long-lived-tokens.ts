import { expiredTokenResponse, graphJson } from "./graph-responses";

const DAY = 86_400_000;
export const LONG_LIVED_TOKEN_MS = 60 * DAY;

/**
 * Long-lived tokens of Instagram Login and Threads as Meta treats them (Instagram Platform reference
 * "Refresh Access Token", Threads "Long-Lived Access Tokens"): valid 60 days from issue; `refresh_access_token`
 * accepts a token "at least 24 hours old but has not expired" and answers a new one valid 60 days from then.
 * An expired token is refused like any expired session (HTTP 400, code 190). Meta documents no error for a token
 * younger than 24 hours; integrators report the same token back without a new validity, which is what this does.
 * Tokens never issued here (the fakes' fixed "access-token") are not timed, so older tests are unaffected.
 * Time is `Date.now()`, so a test can move it with `vi.setSystemTime`.
 */
export class LongLivedTokens {
  private readonly issued = new Map<string, { issuedAt: number; expiresAt: number }>();
  private seq = 0;

  /** `valid`: the fake's set of accepted tokens; refreshed tokens join it. */
  constructor(
    private readonly prefix: string,
    private readonly valid: Set<string>,
  ) {}

  /** Registers a token issued at `issuedAt` (default now), valid 60 days. */
  issue(token: string, issuedAt = Date.now()): void {
    this.issued.set(token, { issuedAt, expiresAt: issuedAt + LONG_LIVED_TOKEN_MS });
  }

  isExpired(token: string): boolean {
    const t = this.issued.get(token);
    return t !== undefined && t.expiresAt <= Date.now();
  }

  /** The `refresh_access_token` answer for a token the fake otherwise accepts. */
  refresh(token: string): Response {
    const now = Date.now();
    const t = this.issued.get(token);
    if (t && t.expiresAt <= now) return expiredTokenResponse();
    if (t && now - t.issuedAt < DAY) {
      return graphJson({
        access_token: token,
        token_type: "bearer",
        expires_in: Math.floor((t.expiresAt - now) / 1000),
      });
    }
    const fresh = `${this.prefix}-${++this.seq}`;
    this.issue(fresh, now);
    this.valid.add(fresh);
    return graphJson({ access_token: fresh, token_type: "bearer", expires_in: LONG_LIVED_TOKEN_MS / 1000 });
  }
}
