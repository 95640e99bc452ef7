import { describe, expect, it } from "vitest";
import { upcomingSlotTimes } from "../../src/services/queues/slot-times";
import { addDays, dayOf, zonedToUtc } from "../../web/lib/calendar";

/**
 * The slot times' one-offset-per-day shortcut (src/services/queues/slot-times.ts) against the reference
 * `zonedToUtc` for every slot of a year, in zones with DST at different hours, half-hour DST and no DST.
 */
describe("upcomingSlotTimes", () => {
  const slots = [1, 2, 3, 4, 5, 6, 7].flatMap((weekday) =>
    ["00:30", "01:30", "02:30", "03:00", "09:00", "23:45"].map((time) => ({ weekday, time })),
  );
  for (const zone of ["Europe/Paris", "America/New_York", "Australia/Lord_Howe", "America/St_Johns", "Asia/Kolkata"]) {
    it(`matches zonedToUtc slot by slot for a year in ${zone}`, () => {
      const start = Date.UTC(2027, 0, 1);
      const got = upcomingSlotTimes(slots, zone, start, 6 * 366);
      const want: number[] = [];
      let day = addDays(dayOf(start, zone), -1);
      while (want.length < got.length + 6) {
        for (const s of ["00:30", "01:30", "02:30", "03:00", "09:00", "23:45"]) {
          const [hour, minute] = s.split(":").map(Number) as [number, number];
          const at = zonedToUtc({ ...day, hour, minute, second: 0 }, zone);
          if (at > start && at > (want[want.length - 1] ?? 0)) want.push(at);
        }
        day = addDays(day, 1);
      }
      expect(got).toEqual(want.slice(0, got.length));
    });
  }
});
