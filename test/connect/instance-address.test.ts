import { describe, expect, it } from "vitest";
import { normalizeInstance } from "../../src/services/connect/start-connect";

describe("a typed Mastodon instance or Bluesky server", () => {
  it("is an https origin; plain http only where the Worker may reach private addresses (the local sandbox)", () => {
    const typed = ["mastodon.social", "https://mastodon.social/@me", "http://127.0.0.1:8809", "https://u:p@x.test", ""];
    expect(typed.map((v) => normalizeInstance(v))).toEqual([
      "https://mastodon.social",
      "https://mastodon.social",
      null,
      null,
      null,
    ]);
    expect(typed.map((v) => normalizeInstance(v, true))).toEqual([
      "https://mastodon.social",
      "https://mastodon.social",
      "http://127.0.0.1:8809",
      null,
      null,
    ]);
  });
});
