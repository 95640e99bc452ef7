import { DurableObject } from "cloudflare:workers";
import { retryAfterSecondsUntil } from "../lib/time";

/**
 * One instance per name; each is single-threaded, so its answers are the single authority across isolates.
 * Names in use (docs/storage.md):
 *   `ip:<address>`            per-IP window of the signed upload endpoint
 *   `api-key:<key id>`        per-API-key window of the general throttle, handed out to isolates in small leases,
 *                             and the key's revocation (the authority every lease renewal consults)
 *   `upload-token:<token>`    single-use state of one signed upload token
 * State lives in the object's SQLite storage; an alarm deletes windows and token entries once they are stale.
 */
export interface WindowResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  retryAfterSeconds: number;
}

/** The answer to `takeApiKeyHits`: `granted` hits now belong to the caller (the current request is one of them). */
export interface KeyHits extends WindowResult {
  revoked: boolean;
  granted: number;
  /** Start of the window the hits were taken from (ms). */
  windowStart: number;
}

const windowStartOf = (nowMs: number, windowSeconds: number) =>
  Math.floor(nowMs / (windowSeconds * 1000)) * windowSeconds * 1000;

/** Whole seconds (at least 1) until the window that started at `windowStart` ends. */
const secondsLeft = (windowStart: number, windowSeconds: number, nowMs: number) =>
  retryAfterSecondsUntil(windowStart + windowSeconds * 1000, nowMs);

export class UploadGuard extends DurableObject<Cloudflare.Env> {
  #sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    this.#sql.exec(
      "CREATE TABLE IF NOT EXISTS windows (key TEXT PRIMARY KEY, window_start INTEGER NOT NULL, count INTEGER NOT NULL)",
    );
    this.#sql.exec("CREATE TABLE IF NOT EXISTS revoked (subject TEXT PRIMARY KEY, revoked_at INTEGER NOT NULL)");
    this.#sql.exec(
      "CREATE TABLE IF NOT EXISTS tokens (token TEXT PRIMARY KEY, state TEXT NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER NOT NULL)",
    );
  }

  /** The deep health check's probe: answers through this object's own SQLite storage. */
  async ping(): Promise<"ok"> {
    this.#sql.exec("SELECT 1").toArray();
    return "ok";
  }

  /** Counts one request in a fixed window and says whether it is within `limit`. Every call counts. */
  async hit(key: string, limit: number, windowSeconds: number, nowMs = Date.now()): Promise<WindowResult> {
    const { allowed, remaining, retryAfterSeconds } = await this.#take(key, limit, windowSeconds, nowMs, 1);
    return { allowed, limit, remaining, retryAfterSeconds };
  }

  /** How many hits the current window of `key` holds, without counting one (the admin gate's failure window). */
  async peek(key: string, windowSeconds: number, nowMs = Date.now()): Promise<number> {
    const row = this.#sql
      .exec<{ window_start: number; count: number }>("SELECT window_start, count FROM windows WHERE key = ?", key)
      .toArray()[0];
    return row?.window_start === windowStartOf(nowMs, windowSeconds) ? row.count : 0;
  }

  /**
   * Takes up to `want` hits (at least one) from an API key's window for the caller to spend, refusing a revoked key
   * first. `giveBack` returns hits an earlier grant left unused, if they belong to the current window, so hits an
   * isolate took but never spent do not count against the key.
   */
  async takeApiKeyHits(
    subject: string,
    limit: number,
    windowSeconds: number,
    nowMs: number,
    want: number,
    giveBack?: { windowStart: number; hits: number },
  ): Promise<KeyHits> {
    const revoked = this.#sql.exec("SELECT 1 FROM revoked WHERE subject = ?", subject).toArray().length > 0;
    if (revoked) {
      const windowStart = windowStartOf(nowMs, windowSeconds);
      const retryAfterSeconds = secondsLeft(windowStart, windowSeconds, nowMs);
      return { revoked, allowed: false, granted: 0, limit, remaining: 0, retryAfterSeconds, windowStart };
    }
    return { revoked, ...(await this.#take(subject, limit, windowSeconds, nowMs, want, giveBack)) };
  }

  /**
   * The one fixed-window counter: grants up to `want` hits (at least one asked) of what is left in the current window,
   * after taking back `giveBack` hits granted earlier in the same window. A request that gets none still counts one.
   */
  async #take(
    key: string,
    limit: number,
    windowSeconds: number,
    nowMs: number,
    want: number,
    giveBack?: { windowStart: number; hits: number },
  ): Promise<Omit<KeyHits, "revoked">> {
    const windowStart = windowStartOf(nowMs, windowSeconds);
    const row = this.#sql
      .exec<{ window_start: number; count: number }>("SELECT window_start, count FROM windows WHERE key = ?", key)
      .toArray()[0];
    let used = row?.window_start === windowStart ? row.count : 0;
    if (giveBack && giveBack.windowStart === windowStart) used = Math.max(0, used - Math.max(0, giveBack.hits));
    const granted = Math.min(Math.max(1, Math.floor(want)), Math.max(0, limit - used));
    used += Math.max(1, granted);
    this.#sql.exec(
      `INSERT INTO windows (key, window_start, count) VALUES (?, ?, ?)
       ON CONFLICT(key) DO UPDATE SET window_start = excluded.window_start, count = excluded.count`,
      key,
      windowStart,
      used,
    );
    await this.#ensureAlarm(windowStart + windowSeconds * 2000);
    return {
      allowed: granted > 0,
      granted,
      limit,
      remaining: Math.max(0, limit - used),
      retryAfterSeconds: secondsLeft(windowStart, windowSeconds, nowMs),
      windowStart,
    };
  }

  /** Records that an API key is revoked; every later `takeApiKeyHits` for it answers revoked. Kept for good. */
  async revokeApiKey(subject: string, nowMs = Date.now()): Promise<void> {
    this.#sql.exec("INSERT OR IGNORE INTO revoked (subject, revoked_at) VALUES (?, ?)", subject, nowMs);
  }

  /** Marks a token as in use. Returns false if it is already in use or spent. */
  async claimToken(token: string, expiresAtMs: number, nowMs = Date.now()): Promise<boolean> {
    const existing = this.#sql.exec<{ state: string }>("SELECT state FROM tokens WHERE token = ?", token).toArray()[0];
    if (existing) return false;
    this.#sql.exec(
      "INSERT INTO tokens (token, state, updated_at, expires_at) VALUES (?, 'claimed', ?, ?)",
      token,
      nowMs,
      expiresAtMs,
    );
    await this.#ensureAlarm(expiresAtMs + 60_000);
    return true;
  }

  /** Gives a claimed token back after a failed store, so the URL can be used again. */
  async releaseToken(token: string): Promise<void> {
    this.#sql.exec("DELETE FROM tokens WHERE token = ? AND state = 'claimed'", token);
  }

  /** Records that the upload behind a claimed token succeeded. */
  async spendToken(token: string, nowMs = Date.now()): Promise<void> {
    this.#sql.exec("UPDATE tokens SET state = 'spent', updated_at = ? WHERE token = ?", nowMs, token);
  }

  async tokenState(token: string): Promise<string | null> {
    return (
      this.#sql.exec<{ state: string }>("SELECT state FROM tokens WHERE token = ?", token).toArray()[0]?.state ?? null
    );
  }

  override async alarm(): Promise<void> {
    const now = Date.now();
    // Windows older than two minutes can no longer matter (windows are at most a minute long); spent tokens outlive their URL's expiry by a
    // minute, after which the signature check already refuses the URL.
    this.#sql.exec("DELETE FROM windows WHERE window_start < ?", now - 120_000);
    this.#sql.exec("DELETE FROM tokens WHERE expires_at < ?", now - 60_000);
    const next = this.#sql
      .exec<{ t: number | null }>(
        "SELECT MIN(t) AS t FROM (SELECT MIN(window_start) + 120000 AS t FROM windows UNION ALL SELECT MIN(expires_at) + 60000 FROM tokens)",
      )
      .one().t;
    if (next !== null) await this.ctx.storage.setAlarm(Math.max(next, now + 1000));
  }

  async #ensureAlarm(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }
}
