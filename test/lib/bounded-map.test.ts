import { describe, expect, it } from "vitest";
import { setBounded } from "../../src/lib/bounded-map";

describe("setBounded", () => {
  it("keeps at most `max` entries, evicting the one set longest ago; setting a key again makes it the newest", () => {
    const map = new Map<string, number>();
    setBounded(map, "a", 1, 3);
    setBounded(map, "b", 2, 3);
    setBounded(map, "c", 3, 3);
    setBounded(map, "a", 10, 3); // a is now the newest
    setBounded(map, "d", 4, 3); // evicts b, the oldest
    expect([...map.entries()]).toEqual([
      ["c", 3],
      ["a", 10],
      ["d", 4],
    ]);
  });
});
