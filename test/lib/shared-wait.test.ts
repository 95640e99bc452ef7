import { describe, expect, it } from "vitest";
import { InFlight, SHARED_WAIT_MS, waitShared } from "../../src/lib/shared-wait";

const never = () => new Promise<never>(() => {});

describe("waitShared", () => {
  it("passes on the value, or the rejection, of a promise that settles in time", async () => {
    expect(await waitShared(Promise.resolve(7), 50)).toEqual({ value: 7 });
    await expect(waitShared(Promise.reject(new Error("boom")), 50)).rejects.toThrow("boom");
  });

  it("gives up after `ms` on a promise that never settles", async () => {
    const started = Date.now();
    expect(await waitShared(never(), 30)).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(30);
  });
});

describe("InFlight", () => {
  it("runs one call per key at a time; callers that arrive meanwhile share its answer", async () => {
    const calls = new InFlight<string>();
    let started = 0;
    let release = (_: string) => {};
    const call = () => {
      started++;
      return new Promise<string>((resolve) => {
        release = resolve;
      });
    };
    const all = Promise.all([calls.run("k", call), calls.run("k", call), calls.run("k", call)]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    release("answer");
    expect(await all).toEqual(["answer", "answer", "answer"]);
    expect(started).toBe(1);
    // Settled calls are forgotten: the next caller runs its own.
    expect(await calls.run("k", async () => "fresh")).toBe("fresh");
    // Another key is another call.
    expect(await calls.run("other", async () => "other")).toBe("other");
  });

  it("shares a rejection with the callers that waited for it", async () => {
    const calls = new InFlight<string>();
    const first = calls.run("k", async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      throw new Error("upstream down");
    });
    const second = calls.run("k", async () => "not asked");
    await expect(first).rejects.toThrow("upstream down");
    await expect(second).rejects.toThrow("upstream down");
  });

  it("does not let a call that never settles hold up callers: they wait SHARED_WAIT_MS once, later ones not at all", async () => {
    const calls = new InFlight<string>();
    void calls.run("k", never); // its request was canceled
    const waited = Date.now();
    expect(await calls.run("k", async () => "own")).toBe("own");
    expect(Date.now() - waited).toBeGreaterThanOrEqual(SHARED_WAIT_MS);
    // A lost call that nobody replaced is not offered once it is older than SHARED_WAIT_MS.
    void calls.run("k2", never);
    await new Promise((resolve) => setTimeout(resolve, SHARED_WAIT_MS + 20));
    const next = Date.now();
    expect(await calls.run("k2", async () => "again")).toBe("again");
    expect(Date.now() - next).toBeLessThan(SHARED_WAIT_MS / 2);
  });
});
