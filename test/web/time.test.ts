import { describe, expect, it } from "vitest";
import { apiTimeToInput, formatApiTime, inputToApiTime, isTimeZone } from "../../web/lib/time";

describe("time zones (typed in the person's zone, stored UTC)", () => {
  it("turns a wall-clock time into the UTC instant the API takes", () => {
    expect(inputToApiTime("2026-12-01T09:00", "Europe/Paris")).toBe("2026-12-01T08:00:00Z");
    expect(inputToApiTime("2026-07-01T09:00", "Europe/Paris")).toBe("2026-07-01T07:00:00Z");
    expect(inputToApiTime("2026-12-01T09:00", "America/New_York")).toBe("2026-12-01T14:00:00Z");
    expect(inputToApiTime("2026-12-01T09:00", "Asia/Kolkata")).toBe("2026-12-01T03:30:00Z");
    expect(inputToApiTime("2026-12-01T09:00", "UTC")).toBe("2026-12-01T09:00:00Z");
    expect(inputToApiTime("not a date", "UTC")).toBeNull();
    expect(inputToApiTime("2026-13-01T09:00", "UTC")).toBeNull();
  });

  it("resolves a time skipped by the spring change forward, and a repeated hour to its first instant (calendar.ts)", () => {
    // Paris, 2026-03-29: 02:00 → 03:00. 02:30 does not exist; it is read as 03:30 local (01:30 UTC).
    expect(inputToApiTime("2026-03-29T02:30", "Europe/Paris")).toBe("2026-03-29T01:30:00Z");
    // Paris, 2026-10-25: 03:00 → 02:00. 02:30 happens twice (00:30 and 01:30 UTC).
    expect(inputToApiTime("2026-10-25T02:30", "Europe/Paris")).toBe("2026-10-25T00:30:00Z");
  });

  it("shows an API time (UTC `Y-m-d H:i:s` or ISO with offset) in the zone", () => {
    expect(apiTimeToInput("2026-12-01 08:00:00", "Europe/Paris")).toBe("2026-12-01T09:00");
    expect(apiTimeToInput("2026-12-01T08:00:00+00:00", "America/New_York")).toBe("2026-12-01T03:00");
    expect(apiTimeToInput(null, "UTC")).toBeNull();
    // The one reading format: the locale's medium date and short time, in the zone.
    const shown = new Intl.DateTimeFormat(undefined, {
      timeZone: "Europe/Paris",
      dateStyle: "medium",
      timeStyle: "short",
    });
    expect(formatApiTime("2026-11-27 23:30:00", "Europe/Paris")).toBe(shown.format(Date.UTC(2026, 10, 27, 23, 30)));
    expect(formatApiTime("2026-11-27T23:30:00+01:00", "Europe/Paris")).toBe(
      shown.format(Date.UTC(2026, 10, 27, 22, 30)),
    );
    expect(formatApiTime(null, "UTC")).toBe("—");
    expect(apiTimeToInput("2026-12-01T08:00:00+01:00", "UTC")).toBe("2026-12-01T07:00");
  });

  it("round-trips every quarter hour of a day across the autumn change", () => {
    for (let m = 0; m < 24 * 60; m += 15) {
      const utc = new Date(Date.UTC(2026, 9, 25) + m * 60000).toISOString().replace(/\.000Z$/, "Z");
      const local = apiTimeToInput(utc, "Europe/Paris") as string;
      const back = inputToApiTime(local, "Europe/Paris") as string;
      // The repeated hour maps back to its first instant; every other time to itself.
      expect(apiTimeToInput(back, "Europe/Paris")).toBe(local);
    }
  });

  it("knows a time zone name from a typo", () => {
    expect(isTimeZone("Europe/Paris")).toBe(true);
    expect(isTimeZone("Europe/Pariss")).toBe(false);
  });
});
