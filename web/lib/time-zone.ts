/**
 * Date-times the person types and reads are in their time zone; the API stores and answers UTC (`Y-m-d H:i:s` or
 * ISO 8601). The zone arithmetic is web/lib/calendar.ts (one module for the dashboard); this file adapts it to form
 * values (`<input type="datetime-local">`) and API strings. Pure: no DOM.
 */
import { zonedToUtc as instantOf, isTimeZone, toApiTime, zonedParts } from "./calendar";

export { isTimeZone };

/** `<input type="datetime-local">` value: `YYYY-MM-DDTHH:mm`. */
export type LocalDateTime = string;

const LOCAL_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * The UTC instant of a wall-clock time in `timeZone`, as ISO 8601 with `Z` (what the API takes), or null when the
 * value is not a date-time. A repeated hour (clocks going back) is its first occurrence; a skipped one (clocks going
 * forward) moves forward by the gap (calendar.ts).
 */
export function zonedToUtc(local: LocalDateTime, timeZone: string): string | null {
  const m = LOCAL_RE.exec(local);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1).map((v) => Number(v ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59) return null;
  return toApiTime(instantOf({ year, month, day, hour, minute, second }, timeZone));
}

/** An API time (`Y-m-d H:i:s` UTC, or ISO 8601 with `Z` or an offset) as epoch milliseconds; null when unreadable. */
export function parseApiTime(value: string | null | undefined): number | null {
  if (!value) return null;
  const iso = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})?$/.test(value) ? `${value.replace(" ", "T")}Z` : value;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** An API time as the `datetime-local` value of the same instant in `timeZone`. */
export function utcToZoned(value: string | null | undefined, timeZone: string): LocalDateTime | null {
  const t = parseApiTime(value);
  if (t === null) return null;
  const w = zonedParts(t, timeZone);
  return `${w.year}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}`;
}

/** An API time for reading: `27 Nov 2026, 14:05` in `timeZone` (en-GB order, 24-hour clock). */
export function formatInZone(value: string | null | undefined, timeZone: string): string {
  const t = parseApiTime(value);
  if (t === null) return "";
  return new Intl.DateTimeFormat("en-GB", {
    timeZone,
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(new Date(t));
}
