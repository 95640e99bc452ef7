import { describe, expect, it } from "vitest";
import {
  addDays,
  addMonths,
  dateKey,
  dayOf,
  daysRange,
  groupByDay,
  isTimeZone,
  monthGrid,
  moveToDay,
  moveToSlot,
  offsetAt,
  parseDateKey,
  startOfWeek,
  weekDays,
  zonedParts,
  zonedToUtc,
} from "../../web/lib/calendar";
import { parseApiTime, toApiTime } from "../../web/lib/time";

/** The dashboard calendar's date math (web/lib/calendar.ts): plain TypeScript, run here inside workerd. */
const utc = (s: string) => Date.parse(s);
const keys = (days: { year: number; month: number; day: number }[]) => days.map(dateKey);

describe("calendar math in a time zone", () => {
  it("reads an instant on the wall clock of a zone", () => {
    expect(zonedParts(utc("2026-11-28T23:30:00Z"), "Europe/Berlin")).toEqual({
      year: 2026,
      month: 11,
      day: 29,
      hour: 0,
      minute: 30,
      second: 0,
    });
    expect(zonedParts(utc("2026-11-28T03:00:00Z"), "America/Los_Angeles")).toMatchObject({ day: 27, hour: 19 });
    expect(offsetAt(utc("2026-07-01T12:00:00Z"), "Europe/Berlin")).toBe(2 * 3_600_000);
    expect(offsetAt(utc("2026-12-01T12:00:00Z"), "Asia/Kolkata")).toBe(5.5 * 3_600_000);
    expect(isTimeZone("Europe/Berlin")).toBe(true);
    expect(isTimeZone("Mars/Olympus_Mons")).toBe(false);
  });

  it("turns a wall-clock time back into the instant, across DST: repeated hours take the first, skipped ones move forward", () => {
    const berlin = (year: number, month: number, day: number, hour: number, minute = 0) =>
      new Date(zonedToUtc({ year, month, day, hour, minute, second: 0 }, "Europe/Berlin")).toISOString();
    expect(berlin(2026, 1, 15, 9)).toBe("2026-01-15T08:00:00.000Z");
    expect(berlin(2026, 7, 15, 9)).toBe("2026-07-15T07:00:00.000Z");
    // 25 Oct 2026: 02:00–03:00 happens twice (CEST, then CET).
    expect(berlin(2026, 10, 25, 2, 30)).toBe("2026-10-25T00:30:00.000Z");
    // 29 Mar 2026: 02:00–03:00 never happens; 02:30 is read as 03:30 CEST.
    expect(berlin(2026, 3, 29, 2, 30)).toBe("2026-03-29T01:30:00.000Z");
    expect(zonedToUtc({ year: 2026, month: 11, day: 28, hour: 0, minute: 0, second: 0 }, "UTC")).toBe(
      utc("2026-11-28T00:00:00Z"),
    );
  });

  it("builds month grids of whole weeks (Monday first), and weeks", () => {
    const nov = monthGrid(2026, 11);
    expect(nov.length).toBe(6); // 1 Nov 2026 is a Sunday: the first row starts on Monday 26 Oct
    expect(keys(nov[0]!)).toEqual([
      "2026-10-26",
      "2026-10-27",
      "2026-10-28",
      "2026-10-29",
      "2026-10-30",
      "2026-10-31",
      "2026-11-01",
    ]);
    expect(dateKey(nov[5]![6]!)).toBe("2026-12-06");
    // February 2027 starts on a Monday and has 28 days: exactly four rows.
    expect(monthGrid(2027, 2).map((w) => dateKey(w[0]!))).toEqual([
      "2027-02-01",
      "2027-02-08",
      "2027-02-15",
      "2027-02-22",
    ]);
    // Sunday-first weeks.
    expect(dateKey(monthGrid(2026, 11, 0)[0]![0]!)).toBe("2026-11-01");
    expect(keys(weekDays({ year: 2026, month: 12, day: 31 }))).toEqual([
      "2026-12-28",
      "2026-12-29",
      "2026-12-30",
      "2026-12-31",
      "2027-01-01",
      "2027-01-02",
      "2027-01-03",
    ]);
    expect(dateKey(startOfWeek({ year: 2026, month: 11, day: 30 }))).toBe("2026-11-30");
  });

  it("moves days and months over their ends", () => {
    expect(dateKey(addDays({ year: 2026, month: 12, day: 31 }, 1))).toBe("2027-01-01");
    expect(dateKey(addDays({ year: 2028, month: 3, day: 1 }, -1))).toBe("2028-02-29");
    expect(dateKey(addMonths({ year: 2026, month: 1, day: 31 }, 1))).toBe("2026-02-28");
    expect(dateKey(addMonths({ year: 2026, month: 1, day: 15 }, -1))).toBe("2025-12-15");
    expect(parseDateKey("2026-02-29")).toBeNull();
    expect(parseDateKey("2028-02-29")).toEqual({ year: 2028, month: 2, day: 29 });
    expect(parseDateKey("2026-1-1")).toBeNull();
  });

  it("asks the API for exactly the instants a view shows in the person's zone", () => {
    const days = monthGrid(2026, 11).flat();
    expect(daysRange(days, "Europe/Berlin")).toEqual({
      from: utc("2026-10-25T23:00:00Z"), // Monday 26 Oct, 00:00 CET (the day after clocks went back)
      to: utc("2026-12-06T23:00:00Z"), // Monday 7 Dec, 00:00 CET
    });
    const week = weekDays({ year: 2026, month: 3, day: 29 }, 1); // the week DST starts, in New York too
    expect(daysRange(week, "America/New_York")).toEqual({
      from: utc("2026-03-23T04:00:00Z"),
      to: utc("2026-03-30T04:00:00Z"),
    });
  });

  it("a post dragged to another day keeps its wall-clock time; to a week slot, its minutes", () => {
    const nineThirtyBerlin = utc("2026-11-10T08:30:00Z"); // 09:30 CET
    expect(toApiTime(moveToDay(nineThirtyBerlin, { year: 2026, month: 11, day: 12 }, "Europe/Berlin"))).toBe(
      "2026-11-12T08:30:00Z",
    );
    // Across the DST change the UTC time shifts so the wall time stays 09:30.
    expect(toApiTime(moveToDay(nineThirtyBerlin, { year: 2026, month: 10, day: 20 }, "Europe/Berlin"))).toBe(
      "2026-10-20T07:30:00Z",
    );
    expect(toApiTime(moveToSlot(nineThirtyBerlin, { year: 2026, month: 11, day: 11 }, 17, "Europe/Berlin"))).toBe(
      "2026-11-11T16:30:00Z",
    );
  });

  it("reads the API's times and groups posts by local day", () => {
    expect(parseApiTime("2026-11-28 23:30:00")).toBe(utc("2026-11-28T23:30:00Z"));
    expect(parseApiTime(null)).toBeNull();
    expect(parseApiTime("soon")).toBeNull();
    const posts = [
      { id: "a", at: "2026-11-28 22:30:00" },
      { id: "b", at: "2026-11-28 23:30:00" },
      { id: "c", at: null },
    ];
    const groups = groupByDay(posts, (p) => parseApiTime(p.at), "Europe/Berlin");
    expect([...groups].map(([k, v]) => [k, v.map((p) => p.id)])).toEqual([
      ["2026-11-28", ["a"]],
      ["2026-11-29", ["b"]],
    ]);
    expect(dateKey(dayOf(utc("2026-11-28T23:30:00Z"), "UTC"))).toBe("2026-11-28");
  });
});
