import { describe, expect, it } from "vitest";
import { createTestWorkspace } from "../support/harness";

const LIMIT = 60; // API_RATE_LIMIT_PER_MINUTE default

describe("per-key throttle", () => {
  it("answers 429 with Retry-After once a key exceeds its per-minute limit; other keys are unaffected", async () => {
    // A window boundary inside the loop would reset the count: retry once in that case.
    for (let attempt = 0; attempt < 2; attempt++) {
      const ws = await createTestWorkspace();
      const minute = Math.floor(Date.now() / 60_000);
      const statuses: number[] = [];
      let last: Awaited<ReturnType<typeof ws.api>> | undefined;
      for (let i = 0; i < LIMIT + 1; i++) {
        last = await ws.api("GET", "/api/labels");
        statuses.push(last.status);
      }
      if (Math.floor(Date.now() / 60_000) !== minute) continue;
      expect(statuses.slice(0, LIMIT).every((s) => s === 200)).toBe(true);
      expect(last!.status).toBe(429);
      const retryAfter = Number(last!.headers.get("Retry-After"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(last!.body).toEqual({ message: `Too many requests. Retry after ${retryAfter} seconds.` });
      expect(last!.headers.get("X-RateLimit-Limit")).toBe(String(LIMIT));
      expect(last!.headers.get("X-RateLimit-Remaining")).toBe("0");

      const other = await createTestWorkspace();
      const ok = await other.api("GET", "/api/labels");
      expect(ok.status).toBe(200);
      expect(ok.headers.get("X-RateLimit-Remaining")).toBe(String(LIMIT - 1));
      return;
    }
    throw new Error("could not finish inside one window twice");
  });
});
