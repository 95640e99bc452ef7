import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import { dateKey, dayOf, zonedParts } from "../lib/calendar";
import { formatTime, parseApiTime } from "../lib/time";
import { Link } from "../router";

/** A free slot of the default queue, placed on the week grid. */
export interface FreeSlot {
  at: string;
  queueId: string;
  queueName: string;
}

/**
 * Issue 37: the default queue's free slots in the week shown (after now), keyed by the grid's cell
 * (`dateKey@hour` in the viewer's zone). A click opens the composer for exactly that slot (`?queue=&slot=`).
 */
export function useFreeSlots(enabled: boolean, range: { from: number; to: number }, timeZone: string) {
  const [byCell, setByCell] = useState<Map<string, FreeSlot[]>>(new Map());
  useEffect(() => {
    let live = true;
    setByCell(new Map());
    if (!enabled) return;
    void (async () => {
      const { data: queue } = await api.GET("/api/queues/{queue}", { params: { path: { queue: "default" } } });
      if (!queue || queue.paused || queue.slots.length === 0) return;
      const from = new Date(Math.max(range.from, Date.now())).toISOString().replace("T", " ").slice(0, 19);
      const { data } = await api.GET("/api/queues/{queue}/slots", {
        params: { path: { queue: queue.id }, query: { from, count: 100 } },
      });
      if (!live || !data) return;
      const cells = new Map<string, FreeSlot[]>();
      for (const s of data) {
        const ms = parseApiTime(s.at) ?? 0;
        if (s.post_id || s.reservation_id || ms >= range.to || ms <= Date.now()) continue;
        const key = `${dateKey(dayOf(ms, timeZone))}@${zonedParts(ms, timeZone).hour}`;
        cells.set(key, [...(cells.get(key) ?? []), { at: s.at, queueId: queue.id, queueName: queue.name }]);
      }
      setByCell(cells);
    })();
    return () => {
      live = false;
    };
  }, [enabled, range.from, range.to, timeZone]);
  return byCell;
}

/** The free slots of one cell: links to the composer for that slot. */
export function FreeSlotLinks({ slots, timeZone }: { slots: FreeSlot[] | undefined; timeZone: string }) {
  if (!slots?.length) return null;
  return (
    <ul class="free-slots">
      {slots.map((s) => (
        <li key={s.at}>
          <Link
            to={`/compose?queue=${s.queueId}&slot=${encodeURIComponent(s.at)}`}
            aria-label={`Free slot ${formatTime(parseApiTime(s.at) ?? 0, timeZone)} in ${s.queueName}: write a post for it`}
          >
            Free slot {formatTime(parseApiTime(s.at) ?? 0, timeZone)}
          </Link>
        </li>
      ))}
    </ul>
  );
}
