import { describe, expect, it } from "vitest";
import {
  isFinalAttempt,
  PUBLISH_MAX_RETRIES,
  RETRY_MAX_DELAY_SECONDS,
  retryDelaySeconds,
} from "../../src/publishing/retry-policy";

describe("retry policy", () => {
  it("honours the platform's reset hint, within bounds", () => {
    expect(retryDelaySeconds(1, 90)).toBe(90);
    expect(retryDelaySeconds(3, 0)).toBe(1);
    expect(retryDelaySeconds(1, 12.2)).toBe(13);
    expect(retryDelaySeconds(1, 86_400)).toBe(RETRY_MAX_DELAY_SECONDS);
  });

  it("backs off exponentially with jitter without a hint", () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 5].map((a) => retryDelaySeconds(a, undefined, mid))).toEqual([30, 60, 120, 240, 480]);
    expect(retryDelaySeconds(1, undefined, () => 0)).toBe(24);
    expect(retryDelaySeconds(1, undefined, () => 0.999)).toBe(36);
    expect(retryDelaySeconds(20, undefined, mid)).toBe(RETRY_MAX_DELAY_SECONDS);
  });

  it("the delivery after max_retries (wrangler.jsonc) is the last", () => {
    expect(PUBLISH_MAX_RETRIES).toBe(5);
    expect(isFinalAttempt(5)).toBe(false);
    expect(isFinalAttempt(6)).toBe(true);
  });
});
