import { describe, expect, it } from "vitest";
import { firstFree, gridSlots, slotGrid, slotLong, slotShort, swapOrder } from "../../web/lib/queue-slots";

describe("queue slots in the dashboard (issue 37)", () => {
  it("names a slot by the queue's wall clock: weekday and time, with the date on the Queue page", () => {
    expect(slotShort("2026-12-08 09:00:00")).toBe("Tue 09:00");
    expect(slotShort("2026-12-13 23:45:00")).toBe("Sun 23:45");
    expect(slotLong("2027-03-28 03:30:00")).toBe("Sun 28 Mar, 03:30");
  });

  it("the first free slot skips posts and reservations", () => {
    const slots = [
      { at: "a", post_id: "p", reservation_id: null },
      { at: "b", post_id: null, reservation_id: "r" },
      { at: "c", post_id: null, reservation_id: null },
    ];
    expect(firstFree(slots)?.at).toBe("c");
    expect(firstFree(slots.slice(0, 2))).toBeUndefined();
  });

  it("a swap names the later post first (the API gives the earliest slot to the first post named)", () => {
    const early = { post_id: "e", at: "2026-12-08 09:00:00" };
    const late = { post_id: "l", at: "2026-12-09 09:00:00" };
    expect(swapOrder(early, late)).toEqual(["l", "e"]);
    expect(swapOrder(late, early)).toEqual(["l", "e"]);
  });

  it("the settings grid and the API's slots convert both ways, in week order", () => {
    const slots = [
      { weekday: 1, time: "09:00" },
      { weekday: 3, time: "09:00" },
      { weekday: 1, time: "17:30" },
    ];
    const grid = slotGrid(slots);
    expect(grid).toEqual([
      { time: "09:00", days: new Set([1, 3]) },
      { time: "17:30", days: new Set([1]) },
    ]);
    expect(gridSlots(grid)).toEqual([
      { weekday: 1, time: "09:00" },
      { weekday: 1, time: "17:30" },
      { weekday: 3, time: "09:00" },
    ]);
  });
});
