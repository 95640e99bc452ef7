import { parseApiTime } from "./calendar";

/** Dates and times as a person reads them, in their time zone (the browser's locale). */
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

/** An API time (`Y-m-d H:i:s`, UTC) in the person's zone; "—" when absent. */
export function formatApiTime(s: string | null | undefined, timeZone: string): string {
  const ms = parseApiTime(s);
  return ms === null ? "—" : formatDateTime(ms, timeZone);
}

/** The first line of a post's text, shortened for a chip or a list row. */
export function excerpt(text: string | null | undefined, max = 80): string {
  const line = (text ?? "").trim().split("\n")[0] ?? "";
  if (!line) return "(no text)";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
