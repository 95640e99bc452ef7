import { describe, expect, it } from "vitest";
import {
  forgetReferences,
  MAX_ROWS,
  MAX_ROWS_PER_KIND,
  recallReferences,
  rememberedRowCount,
  rememberReferences,
  TTL_MS,
} from "../../src/services/posts/reference-memory";
import type { References } from "../../src/services/posts/references";

/**
 * The isolate's memory of the rows creates read (src/services/posts/reference-memory.ts): what it returns, and that it
 * stays bounded — rows in all, rows per kind and workspace, and age. (That a remembered row which changed is never
 * used is shown end to end by test/routes/posts-remembered.test.ts.)
 */
function refsOf(ids: { accounts?: string[]; labels?: string[]; media?: string[] }): References {
  const rows = (list: string[] = []) => new Map(list.map((id) => [id, { id } as never]));
  const prints = (list: string[] = []) => new Map(list.map((id) => [id, `fp-${id}`]));
  return {
    accounts: rows(ids.accounts),
    labels: rows(ids.labels),
    media: rows(ids.media),
    fingerprints: { accounts: prints(ids.accounts), labels: prints(ids.labels), media: prints(ids.media) },
  };
}

const ask = (accountIds: string[], labelIds: string[] = [], mediaIds: string[] = []) => ({
  accountIds,
  labelIds,
  mediaIds,
});

describe("reference memory", () => {
  it("recalls every named row with its fingerprint, or nothing when one is missing, old or forgotten", () => {
    const ws = crypto.randomUUID();
    const now = 1_000_000;
    rememberReferences(ws, refsOf({ accounts: ["a1", "a2"], labels: ["l1"], media: ["m1"] }), now);
    const recalled = recallReferences(ws, ask(["a2", undefined as never], ["l1"], ["m1"]), now + 1);
    expect(recalled).toEqual(refsOf({ accounts: ["a2"], labels: ["l1"], media: ["m1"] }));
    expect(recallReferences(ws, ask(["a1", "a3"]), now)).toBeNull(); // a3 was never read
    expect(recallReferences(crypto.randomUUID(), ask(["a1"]), now)).toBeNull(); // another workspace
    expect(recallReferences(ws, ask(["a1"]), now + TTL_MS)).toBeNull(); // too old
    forgetReferences(ws);
    expect(recallReferences(ws, ask(["a1"]), now)).toBeNull();
  });

  it("rows without fingerprints (not read by referenceReads) are not remembered", () => {
    const ws = crypto.randomUUID();
    const { fingerprints: _, ...plain } = refsOf({ accounts: ["a1"] });
    rememberReferences(ws, plain, 0);
    expect(recallReferences(ws, ask(["a1"]), 0)).toBeNull();
  });

  it(`at most ${MAX_ROWS_PER_KIND} rows of a kind per workspace, and ${MAX_ROWS} rows in all, least recently used out first`, () => {
    const now = 5_000_000;
    const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
    const big = crypto.randomUUID();
    rememberReferences(big, refsOf({ media: ids("m", MAX_ROWS_PER_KIND + 10) }), now);
    expect(recallReferences(big, ask([], [], ["m0"]), now)).toBeNull(); // the oldest ten went
    expect(recallReferences(big, ask([], [], [`m${MAX_ROWS_PER_KIND + 9}`]), now)).not.toBeNull();

    // Fill the memory past its bound with other workspaces; `big` was used last at the start, so it goes first.
    const others = Array.from({ length: Math.ceil(MAX_ROWS / 300) + 2 }, () => crypto.randomUUID());
    for (const ws of others) rememberReferences(ws, refsOf({ accounts: ids("a", 300) }), now);
    expect(rememberedRowCount()).toBeLessThanOrEqual(MAX_ROWS);
    expect(recallReferences(big, ask([], [], [`m${MAX_ROWS_PER_KIND + 9}`]), now)).toBeNull();
    expect(recallReferences(others.at(-1)!, ask(["a0", "a299"]), now)).not.toBeNull();
  });
});
