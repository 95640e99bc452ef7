import { describe, expect, it } from "vitest";
import { fieldId, mapFieldErrors } from "../../web/lib/field-errors";

describe("mapFieldErrors (a 422's errors onto a form's fields)", () => {
  it("puts each message on the field it names, the longest shown prefix winning, in the form's order", () => {
    const error = {
      message: "The name field is required. (and 3 more errors)",
      errors: {
        scopes: ["The scopes field is invalid."],
        "scopes.0": ["The selected scopes.0 is invalid."],
        name: ["The name field is required."],
        "platforms.1.meta.board_id": ["The board id field must be a string."],
        "platforms.1.content": ["X: too long by 15 characters (max 280)."],
      },
    };
    expect(mapFieldErrors(error, ["name", "platforms.1", "platforms.1.content", "scopes"])).toEqual({
      fields: {
        scopes: "The scopes field is invalid. The selected scopes.0 is invalid.",
        name: "The name field is required.",
        "platforms.1": "The board id field must be a string.",
        "platforms.1.content": "X: too long by 15 characters (max 280).",
      },
      general: [],
      first: "name",
    });
  });

  it("keeps what no field shows as a general message, and the body's message when nothing is keyed", () => {
    expect(mapFieldErrors({ message: "m", errors: { url: ["Bad url."], other: ["Other."] } }, ["url"])).toEqual({
      fields: { url: "Bad url." },
      general: ["Other."],
      first: "url",
    });
    expect(mapFieldErrors({ message: "Not allowed." }, ["url"])).toEqual({
      fields: {},
      general: ["Not allowed."],
      first: null,
    });
    expect(mapFieldErrors(undefined, ["url"])).toEqual({ fields: {}, general: [], first: null });
  });

  it("names a control for every path", () => {
    expect(fieldId("platforms.1.thread.0.content")).toBe("f-platforms-1-thread-0-content");
  });
});
