/**
 * Time in the dashboard, in one place (issue 36): the API's time strings, the values of date-time inputs, and the
 * words a person reads. The API stores and answers UTC (`Y-m-d H:i:s`, or ISO 8601 with `Z` or an offset); a
 * person types and reads times in their chosen zone, and every time is shown in one format — the browser's locale,
 * medium date and short time ("28 Nov 2026, 00:30" in en-GB, "Nov 28, 2026, 12:30 AM" in en-US). The zone
 * arithmetic underneath (wall clock ⇄ instant, daylight saving) is web/lib/calendar.ts, which the calendar's grids and
 * the server's queue slots share. Pure: no DOM.
 */
import { zonedToUtc as instantOf, isTimeZone, zonedParts } from "./calendar";

export { isTimeZone };

/** `<input type="datetime-local">` value: `YYYY-MM-DDTHH:mm`. */
export type LocalInput = string;

/** An API time (`Y-m-d H:i:s` UTC, or ISO 8601 with `Z` or an offset) as epoch milliseconds; null when unreadable. */
export function parseApiTime(value: string | null | undefined): number | null {
  if (!value) return null;
  const iso = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?$/.test(value) ? `${value.replace(" ", "T")}Z` : value;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
}

/** An instant as the API takes it: ISO 8601 in UTC, whole seconds (`2026-12-01T09:00:00Z`). */
export const toApiTime = (ms: number) => `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;

const LOCAL_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * The API time of a wall-clock input value in `timeZone` (ISO 8601 with `Z`), or null when the value is not a
 * date-time. A repeated hour (clocks going back) is its first occurrence; a skipped one (clocks going forward) moves
 * forward by the gap (calendar.ts).
 */
export function inputToApiTime(local: LocalInput, timeZone: string): string | null {
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

const pad = (n: number) => String(n).padStart(2, "0");

/** An API time as the `datetime-local` value of the same instant in `timeZone`; null when unreadable. */
export function apiTimeToInput(value: string | null | undefined, timeZone: string): LocalInput | null {
  const t = parseApiTime(value);
  if (t === null) return null;
  const w = zonedParts(t, timeZone);
  return `${w.year}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}`;
}

/** Dates and times as a person reads them, in their zone and their browser's locale. */
const cache = new Map<string, Intl.DateTimeFormat>();
function fmt(timeZone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${timeZone}|${JSON.stringify(options)}`;
  let f = cache.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(undefined, { timeZone, ...options });
    cache.set(key, f);
  }
  return f;
}

/** The one way a date and time is shown: medium date, short time. */
export const formatDateTime = (ms: number, timeZone: string) =>
  fmt(timeZone, { dateStyle: "medium", timeStyle: "short" }).format(ms);
export const formatTime = (ms: number, timeZone: string) =>
  fmt(timeZone, { hour: "2-digit", minute: "2-digit" }).format(ms);
export const formatMonth = (year: number, month: number) =>
  fmt("UTC", { month: "long", year: "numeric" }).format(Date.UTC(year, month - 1, 15));
export const formatDay = (d: { year: number; month: number; day: number }, style: "long" | "short" = "long") =>
  fmt(
    "UTC",
    style === "long"
      ? { weekday: "long", day: "numeric", month: "long", year: "numeric" }
      : { weekday: "short", day: "numeric" },
  ).format(Date.UTC(d.year, d.month - 1, d.day, 12));
export const formatWeekdayShort = (d: { year: number; month: number; day: number }) =>
  fmt("UTC", { weekday: "short" }).format(Date.UTC(d.year, d.month - 1, d.day, 12));

/** An API time in the person's zone, as `formatDateTime` shows it; "—" when absent or unreadable. */
export function formatApiTime(s: string | null | undefined, timeZone: string): string {
  const ms = parseApiTime(s);
  return ms === null ? "—" : formatDateTime(ms, timeZone);
}
