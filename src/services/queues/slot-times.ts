/**
 * Issue 37: the instants a queue's weekly slots name. Slot times are wall-clock in the queue's IANA zone, resolved
 * per date with the dashboard's own zone arithmetic (web/lib/calendar.ts, pure Intl code: one implementation for
 * both), so a 09:00 slot stays at 09:00 local across daylight-saving changes. A slot in an hour the clocks skip
 * (spring forward) moves forward by the gap (02:30 → 03:30 in Europe/Paris); a slot in a repeated hour (fall back)
 * is its first occurrence. Two slots that land on the same instant that way count once.
 */
import { addDays, dayOf, type LocalDate, offsetAt, weekday, zonedParts, zonedToUtc } from "../../../web/lib/calendar";
import type { QueueSlot } from "../../db/schema";

export { isTimeZone } from "../../../web/lib/calendar";

const isoWeekday = (d: LocalDate) => weekday(d) || 7;
const DAY_MS = 86_400_000;

/** The next `count` slot instants strictly after `afterMs`, in order (empty when the queue has no slots). */
export function upcomingSlotTimes(
  slots: readonly QueueSlot[],
  timeZone: string,
  afterMs: number,
  count: number,
): number[] {
  if (slots.length === 0 || count <= 0) return [];
  const byDay = new Map<number, { hour: number; minute: number }[]>();
  for (const s of slots) {
    const [h, m] = s.time.split(":").map(Number) as [number, number];
    const list = byDay.get(s.weekday) ?? [];
    list.push({ hour: h, minute: m });
    byDay.set(s.weekday, list);
  }
  for (const list of byDay.values()) list.sort((a, b) => a.hour - b.hour || a.minute - b.minute);
  const out: number[] = [];
  // Start a day early: the local date of `afterMs` may be ahead of or behind its UTC date.
  let day = addDays(dayOf(afterMs, timeZone), -1);
  // Every weekday with a slot recurs each week, so `count` slots are found within count weeks (+ the first two days).
  for (let i = 0; i < count * 7 + 9 && out.length < count; i++, day = addDays(day, 1)) {
    const times = byDay.get(isoWeekday(day));
    if (!times) continue;
    // One offset for the whole day when it is the same a day before and two days after (no transition near):
    // then every slot of the day is its wall time minus it, as zonedToUtc would find. Two Intl calls a day
    // instead of four a slot (a queue of 1,000 posts reads ~1,250 candidates per add; bench/RESULTS.md, "Queues").
    const midnight = Date.UTC(day.year, day.month - 1, day.day);
    const before = offsetAt(midnight - DAY_MS, timeZone);
    const steady = before === offsetAt(midnight + 2 * DAY_MS, timeZone);
    for (const t of times) {
      const at = steady
        ? midnight + (t.hour * 60 + t.minute) * 60_000 - before
        : zonedToUtc({ ...day, hour: t.hour, minute: t.minute, second: 0 }, timeZone);
      if (at > afterMs && at > (out[out.length - 1] ?? Number.NEGATIVE_INFINITY)) out.push(at);
      if (out.length >= count) break;
    }
  }
  return out;
}

/** A queue-local wall-clock time, `Y-m-d H:i:s`. */
export function localYmdHis(ms: number, timeZone: string): string {
  const p = zonedParts(ms, timeZone);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${p.year}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
}
