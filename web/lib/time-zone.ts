/**
 * Date-times the person types and reads are in their time zone; the API stores and answers UTC
 * (`Y-m-d H:i:s` or ISO 8601). Pure functions over `Intl` (no DOM), shared by the composer and settings.
 */

/** `<input type="datetime-local">` value: `YYYY-MM-DDTHH:mm`. */
export type LocalDateTime = string;

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall clock of `instant` in `timeZone`, as milliseconds of a UTC date with the same fields. */
function wallClock(instant: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(instant))) {
    if (p.type !== "literal") parts[p.type] = Number(p.value);
  }
  return Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
}

/** Minutes `timeZone` is ahead of UTC at `instant` (Paris in winter: 60). */
export function offsetMinutes(instant: number, timeZone: string): number {
  return Math.round((wallClock(instant, timeZone) - Math.floor(instant / 1000) * 1000) / 60000);
}

export function isTimeZone(value: string): boolean {
  try {
    formatter(value);
    return true;
  } catch {
    return false;
  }
}

const LOCAL_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * The UTC instant of a wall-clock time in `timeZone`, as ISO 8601 with `Z` (what the API takes), or null when the
 * value is not a date-time. A time skipped by a daylight-saving jump resolves to the later side (02:30 on the spring
 * change in Paris → 03:30 local); a repeated hour (the autumn change) resolves to its later occurrence.
 */
export function zonedToUtc(local: LocalDateTime, timeZone: string): string | null {
  const m = LOCAL_RE.exec(local);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map((v) => Number(v ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const asUtc = Date.UTC(y, mo - 1, d, h, mi, s);
  if (Number.isNaN(asUtc)) return null;
  // Two passes: the offset at the first guess, then at the instant it gives (enough across one DST change).
  const first = asUtc - offsetMinutes(asUtc, timeZone) * 60000;
  const second = asUtc - offsetMinutes(first, timeZone) * 60000;
  const instant = wallClock(second, timeZone) === asUtc ? second : Math.max(first, second);
  return new Date(instant).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** An API time (`Y-m-d H:i:s` UTC, or ISO 8601 with offset) as epoch milliseconds; null when unreadable. */
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
  const w = new Date(wallClock(t, timeZone));
  return `${w.getUTCFullYear()}-${pad(w.getUTCMonth() + 1)}-${pad(w.getUTCDate())}T${pad(w.getUTCHours())}:${pad(w.getUTCMinutes())}`;
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
