import { describe, expect, it } from "vitest";
import { checkMetaPatch } from "../../src/catalog/meta-fields";

/** Issue 29: YouTube caps the description at 5,000 bytes (videos resource, snippet.description), not characters. */
describe("YouTube description bytes", () => {
  const check = (description: string) =>
    checkMetaPatch("youtube", "youtube_short", { description }, (k) => `platforms.0.meta.${k}`);

  it("takes 5,000 bytes of multi-byte text and refuses one more byte", () => {
    expect(check("é".repeat(2500))).toEqual([]);
    expect(check(`${"é".repeat(2500)}x`)).toEqual([
      {
        key: "description",
        message: "The platforms.0.meta.description field must not be greater than 5,000 bytes as UTF-8 (5,001 given).",
      },
    ]);
  });

  it("counts < and > as the 3-byte ‹ › they are sent as", () => {
    expect(check("<".repeat(1666))).toEqual([]);
    expect(check("<".repeat(1667))[0]?.message).toMatch(/5,001 given/);
  });
});
