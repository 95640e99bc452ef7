/** Timestamps are stored as integer milliseconds since the epoch (UTC) and formatted at the edge. */

const pad = (n: number) => String(n).padStart(2, "0");

/** Whole seconds from `nowMs` until `untilMs`, at least 1: a `Retry-After` for a wait that ends then. */
export const retryAfterSecondsUntil = (untilMs: number, nowMs: number): number =>
  Math.max(1, Math.ceil((untilMs - nowMs) / 1000));

/** `Y-m-d H:i:s` in UTC. */
export function formatYmdHis(ms: number): string;
export function formatYmdHis(ms: number | null | undefined): string | null;
export function formatYmdHis(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(
    d.getUTCMinutes(),
  )}:${pad(d.getUTCSeconds())}`;
}

/** ISO 8601 with an explicit offset, e.g. `2026-11-22T10:00:00+00:00`. */
export function formatIso(ms: number): string;
export function formatIso(ms: number | null | undefined): string | null;
export function formatIso(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  return `${formatYmdHis(ms).replace(" ", "T")}+00:00`;
}

const BARE_DATE = /^\d{4}-\d{2}-\d{2}$/;
const BARE_DATETIME = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)$/;
const ZONED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Parses the datetimes users send: ISO 8601 with `Z` or an offset, or a bare `Y-m-d H:i:s` / `Y-m-d`, read as UTC.
 * Returns epoch milliseconds, or null when the string is not a date we accept.
 */
export function parseUserDateTime(input: string): number | null {
  const s = input.trim();
  let iso: string | null = null;
  if (BARE_DATE.test(s)) iso = `${s}T00:00:00Z`;
  else {
    const bare = BARE_DATETIME.exec(s);
    if (bare) iso = `${bare[1]}T${bare[2]}Z`;
    else if (ZONED.test(s)) iso = s.replace(/([+-]\d{2})(\d{2})$/, "$1:$2");
  }
  if (!iso) return null;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return null;
  // Reject impossible calendar dates that Date.parse rolls over (2026-02-31).
  const day = iso.slice(0, 10);
  if (!iso.match(/[+-]\d{2}:\d{2}$/) && new Date(ms).toISOString().slice(0, 10) !== day) return null;
  return ms;
}

/** Today at 09:00 UTC. */
export function todayAtNineUtc(nowMs: number): number {
  const d = new Date(nowMs);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), 9, 0, 0);
}
