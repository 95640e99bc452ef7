/**
 * Issue 37: how the dashboard names a queue's slots. A slot's `local` is the queue's wall clock (`Y-m-d H:i:s`),
 * shown as the queue's people think of it ("Tue 09:00"), whatever the viewer's own zone.
 */

const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] as const;
export const WEEKDAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"] as const;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;

/** The parts of a `Y-m-d H:i:s` wall-clock string, with its ISO weekday (Monday = 1). */
function partsOf(local: string) {
  const [date = "", time = ""] = local.split(" ");
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  const weekday = ((new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7) + 1;
  return { y, m, d, weekday, hm: time.slice(0, 5) };
}

/** "Tue 09:00": the slot's weekday and time in the queue's zone (the composer's "Add to queue" button). */
export function slotShort(local: string): string {
  const p = partsOf(local);
  return `${WEEKDAYS[p.weekday - 1]} ${p.hm}`;
}

/** "Tue 8 Dec, 09:00": the slot with its date (the Queue page). */
export function slotLong(local: string): string {
  const p = partsOf(local);
  return `${WEEKDAYS[p.weekday - 1]} ${p.d} ${MONTHS[p.m - 1]}, ${p.hm}`;
}

export interface SlotLike {
  post_id: string | null;
  reservation_id: string | null;
}

/** The first slot no post and no reservation holds, or undefined. */
export const firstFree = <T extends SlotLike>(slots: readonly T[]): T | undefined =>
  slots.find((s) => s.post_id === null && s.reservation_id === null);

/**
 * The `post_ids` of a reorder that swaps two queued posts: the API gives the earliest of their slots to the first
 * post named, so the later one is named first.
 */
export function swapOrder(a: { post_id: string; at: string }, b: { post_id: string; at: string }): string[] {
  return a.at < b.at ? [b.post_id, a.post_id] : [a.post_id, b.post_id];
}

/** The weekly slots as the settings grid shows them: the distinct times, each with the weekdays that have it. */
export function slotGrid(slots: readonly { weekday: number; time: string }[]): { time: string; days: Set<number> }[] {
  const byTime = new Map<string, Set<number>>();
  for (const s of slots) byTime.set(s.time, (byTime.get(s.time) ?? new Set()).add(s.weekday));
  return [...byTime.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([time, days]) => ({ time, days }));
}

/** The grid back as the API's slots, in week order. */
export function gridSlots(grid: readonly { time: string; days: Set<number> }[]): { weekday: number; time: string }[] {
  return grid
    .flatMap((row) => [...row.days].map((weekday) => ({ weekday, time: row.time })))
    .sort((a, b) => a.weekday - b.weekday || a.time.localeCompare(b.time));
}
