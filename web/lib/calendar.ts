/**
 * Calendar arithmetic in a person's time zone, for the dashboard's calendar (web/pages/calendar.tsx). Pure: no DOM,
 * tested in test/web/calendar.test.ts. Instants are epoch milliseconds (UTC, as the API stores them); a `LocalDate`
 * is a day on the wall calendar of a time zone. Zone rules come from the runtime's Intl data (IANA names).
 */

export interface LocalDate {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
}

export interface LocalDateTime extends LocalDate {
  hour: number;
  minute: number;
  second: number;
}

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Whether the runtime knows this IANA time zone name. */
export function isTimeZone(name: string): boolean {
  try {
    formatter(name);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock date and time of an instant in a time zone. */
export function zonedParts(ms: number, timeZone: string): LocalDateTime {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms))) {
    if (p.type !== "literal") parts[p.type] = Number(p.value);
  }
  return {
    year: parts.year ?? 1970,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: (parts.hour ?? 0) % 24,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

const wallMs = (t: LocalDateTime) => Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);

/** The zone's offset from UTC at an instant, in ms (UTC+01:00 → 3,600,000). */
export function offsetAt(ms: number, timeZone: string): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return wallMs(zonedParts(whole, timeZone)) - whole;
}

/**
 * The instant a wall-clock time names in a time zone. A time that happens twice (the hour repeated when clocks go
 * back) is its first occurrence; a time that never happens (skipped when clocks go forward) moves forward by the
 * gap, as a clock would show it (02:30 on a spring-forward night in Europe → 03:30).
 */
export function zonedToUtc(t: LocalDateTime, timeZone: string): number {
  const wall = wallMs(t);
  // The offsets in force a day either side cover every transition the wall time can be near.
  const candidates = [offsetAt(wall - DAY_MS, timeZone), offsetAt(wall + DAY_MS, timeZone)]
    .map((offset) => wall - offset)
    .filter((ms) => wallMs(zonedParts(ms, timeZone)) === wall)
    .sort((a, b) => a - b);
  if (candidates.length > 0) return candidates[0] as number;
  // In a gap: read the wall time with the offset before the transition, which lands after it.
  return wall - offsetAt(wall - DAY_MS, timeZone);
}

export const dateKey = (d: LocalDate) =>
  `${String(d.year).padStart(4, "0")}-${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}`;

/** `2026-11-28` → a LocalDate; null when it is not a real calendar day. */
export function parseDateKey(s: string): LocalDate | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return null;
  const d = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
  const check = new Date(Date.UTC(d.year, d.month - 1, d.day));
  return check.getUTCMonth() === d.month - 1 && check.getUTCDate() === d.day ? d : null;
}

export function addDays(d: LocalDate, n: number): LocalDate {
  const t = new Date(Date.UTC(d.year, d.month - 1, d.day + n));
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
}

export function addMonths(d: LocalDate, n: number): LocalDate {
  const first = new Date(Date.UTC(d.year, d.month - 1 + n, 1));
  const year = first.getUTCFullYear();
  const month = first.getUTCMonth() + 1;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return { year, month, day: Math.min(d.day, last) };
}

/** 0 = Sunday … 6 = Saturday. */
export const weekday = (d: LocalDate) => new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDay();

export const sameDay = (a: LocalDate, b: LocalDate) => a.year === b.year && a.month === b.month && a.day === b.day;

/** The first day of the week holding `d` (weeks start on Monday by default, as ISO 8601). */
export function startOfWeek(d: LocalDate, weekStartsOn = 1): LocalDate {
  return addDays(d, -((weekday(d) - weekStartsOn + 7) % 7));
}

/** The seven days of the week holding `d`. */
export function weekDays(d: LocalDate, weekStartsOn = 1): LocalDate[] {
  const start = startOfWeek(d, weekStartsOn);
  return Array.from({ length: 7 }, (_, i) => addDays(start, i));
}

/** The whole weeks that show a month (4 to 6 rows of 7 days, from the days around it). */
export function monthGrid(year: number, month: number, weekStartsOn = 1): LocalDate[][] {
  const first = { year, month, day: 1 };
  const last = { year, month, day: new Date(Date.UTC(year, month, 0)).getUTCDate() };
  const weeks: LocalDate[][] = [];
  for (let start = startOfWeek(first, weekStartsOn); ; start = addDays(start, 7)) {
    weeks.push(Array.from({ length: 7 }, (_, i) => addDays(start, i)));
    const end = addDays(start, 6);
    if (dateKey(end) >= dateKey(last)) break;
  }
  return weeks;
}

/** The instants a run of days covers in a zone: from the first day's midnight to the midnight after the last. */
export function daysRange(days: LocalDate[], timeZone: string): { from: number; to: number } {
  const first = days[0];
  const last = days[days.length - 1];
  if (!first || !last) throw new Error("daysRange needs at least one day");
  const midnight = (d: LocalDate) => zonedToUtc({ ...d, hour: 0, minute: 0, second: 0 }, timeZone);
  return { from: midnight(first), to: midnight(addDays(last, 1)) };
}

/** The local day of an instant. */
export function dayOf(ms: number, timeZone: string): LocalDate {
  const { year, month, day } = zonedParts(ms, timeZone);
  return { year, month, day };
}

/** The same wall-clock time on another day (a post dragged to another day of the month view). */
export function moveToDay(ms: number, target: LocalDate, timeZone: string): number {
  const t = zonedParts(ms, timeZone);
  return zonedToUtc({ ...target, hour: t.hour, minute: t.minute, second: t.second }, timeZone);
}

/** Another day and hour, the same minutes and seconds (a post dragged to a slot of the week view). */
export function moveToSlot(ms: number, target: LocalDate, hour: number, timeZone: string): number {
  const t = zonedParts(ms, timeZone);
  return zonedToUtc({ ...target, hour, minute: t.minute, second: t.second }, timeZone);
}

/** Items grouped by the local day of their instant (`dateKey` → items, in the order given). */
export function groupByDay<T>(items: T[], instant: (item: T) => number | null, timeZone: string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const ms = instant(item);
    if (ms === null) continue;
    const key = dateKey(dayOf(ms, timeZone));
    const list = groups.get(key) ?? [];
    list.push(item);
    groups.set(key, list);
  }
  return groups;
}
