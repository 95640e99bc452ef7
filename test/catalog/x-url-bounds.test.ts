import { describe, expect, it } from "vitest";
import { extractUrls, xWeightedLength } from "../../src/catalog/text-length";

/**
 * The X URL pattern is bounded to DNS's limits (labels ≤ 63 characters, ≤ 127 labels) so the scan is linear
 * (bench/text-length: 10,000 "é" + "." went from ≈1 s to ≈30 ms). These check that the counts stay twitter-text's.
 * The expected values were computed with the unbounded port (== twitter-text 3.1.0) before the change.
 */
describe("X URL pattern bounded to host-name limits", () => {
  it("hostile inputs of the maximum content length count exactly", () => {
    expect(xWeightedLength(`${"é".repeat(10_000)}.`)).toBe(10_001);
    expect(xWeightedLength(`${"a.".repeat(5_000)}!`)).toBe(10_001);
    expect(xWeightedLength(`${"é.".repeat(5_000)}!`)).toBe(10_001);
    expect(xWeightedLength(`a${"-".repeat(9_997)}a.`)).toBe(10_000);
  });

  it("a label of up to 63 characters is a host; a longer run is not, wherever the pattern could start inside it", () => {
    const cases: [string, number, [number, number][]][] = [
      [`x ${"a".repeat(63)}.com y`, 27, [[2, 69]]],
      [`x ${"a".repeat(64)}.com y`, 72, []],
      [`x ${"a".repeat(70)}.com y`, 78, []],
      [`${"é".repeat(70)}.com`, 74, []],
      [`@${"é".repeat(70)}.com`, 75, []],
      [`${"é".repeat(10)}${"a".repeat(60)}.com`, 74, []],
      [`@ééé${"a".repeat(62)}.com`, 70, []],
      [`-${"b".repeat(64)}.com`, 69, []],
      [`é-${"b".repeat(62)}.com`, 68, []],
      [`ééé${"b".repeat(62)}.com`, 69, []],
      [`visit https://${"é".repeat(65)}.com/x`, 85, []],
      [`go to ${"ab.".repeat(20)}com now`, 33, [[6, 69]]],
    ];
    for (const [text, length, spans] of cases) {
      expect(xWeightedLength(text), text.slice(0, 20)).toBe(length);
      expect(
        extractUrls(text).map((u) => [u.start, u.end]),
        text.slice(0, 20),
      ).toEqual(spans);
    }
  });

  it("a host of more than 127 labels is not a host name: counted as text (twitter-text would take it as a URL)", () => {
    const text = `go to ${"a.".repeat(130)}com now`;
    expect(extractUrls(text)).toEqual([]);
    expect(xWeightedLength(text)).toBe(273);
    const within = `go to ${"a.".repeat(126)}com now`;
    expect(extractUrls(within).map((u) => [u.start, u.end])).toEqual([[6, 261]]);
  });
});
