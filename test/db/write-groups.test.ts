import { describe, expect, it } from "vitest";
import { type BatchRunner, WriteGroups } from "../../src/db/write-groups";
import { waitFor } from "../support/harness";

/**
 * Group commit (src/db/write-groups.ts) against a runner whose calls the test answers by hand: which batches share a
 * call, what each caller gets back, and what happens when a call is refused, fails or never answers.
 */

interface Call {
  statements: string[];
  answer: () => void;
  fail: (error: Error) => void;
}

/** A D1-like runner: each `batch` call is recorded and waits until the test answers or fails it. */
function handRunner() {
  const calls: Call[] = [];
  let bookmark = 0;
  const runner: BatchRunner = {
    prepare: (sql) => statement(sql),
    batch: (statements) =>
      new Promise((resolve, reject) => {
        const sql = statements.map((s) => {
          const { statement: text, params } = s as unknown as { statement: string; params: unknown[] };
          return params.length ? `${text} ${params.join(" ")}` : text;
        });
        calls.push({
          statements: sql,
          answer: () => {
            bookmark++;
            resolve(
              sql.map((statement) => ({ success: true, meta: { statement }, results: [] }) as unknown as D1Result),
            );
          },
          fail: reject,
        });
      }),
    getBookmark: () => `0000000${bookmark}`,
  };
  return { runner, calls };
}

/** A prepared statement as the D1 binding makes one: its text, its parameters, and `bind`. */
function statement(text: string, params: unknown[] = []): D1PreparedStatement {
  return {
    statement: text,
    params,
    bind: (...values: unknown[]) => statement(text, values),
  } as unknown as D1PreparedStatement;
}
const statements = (...sql: string[]) => sql.map((text) => statement(text));
const waitUntil = (p: Promise<unknown>) => void p.catch(() => {});
const metaOf = (results: D1Result[]) => results.map((r) => (r.meta as unknown as { statement: string }).statement);

/** Lets queued promise callbacks run (the groups hand over between awaits, with no I/O in between here). */
async function settle() {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

describe("write groups", () => {
  it("a batch sent while nothing is in flight goes at once, alone", async () => {
    const { runner, calls } = handRunner();
    const groups = new WriteGroups();
    const done = groups.batch(runner, statements("a1", "a2"), waitUntil);
    await settle();
    expect(calls.map((c) => c.statements)).toEqual([["a1", "a2"]]);
    calls[0]!.answer();
    const got = await done;
    expect(metaOf(got.results)).toEqual(["a1", "a2"]);
    expect(got.bookmark).toBe("00000001");
  });

  it("batches that arrive while a call is in flight share the next call; each gets its own results and the commit's bookmark", async () => {
    const { runner, calls } = handRunner();
    const groups = new WriteGroups();
    const first = groups.batch(runner, statements("a1"), waitUntil);
    await settle();
    const rest = ["b", "c", "d"].map((n) => groups.batch(runner, statements(`${n}1`, `${n}2`), waitUntil));
    await settle();
    expect(calls.length).toBe(1); // b, c and d wait for a's call
    calls[0]!.answer();
    await settle();
    // Stage by stage (src/db/merged-inserts.ts): every batch's first statement, then every second one.
    expect(calls.map((c) => c.statements)).toEqual([["a1"], ["b1", "c1", "d1", "b2", "c2", "d2"]]);
    calls[1]!.answer();
    expect(metaOf((await first).results)).toEqual(["a1"]);
    const answers = await Promise.all(rest);
    expect(answers.map((a) => metaOf(a.results))).toEqual([
      ["b1", "b2"],
      ["c1", "c2"],
      ["d1", "d2"],
    ]);
    expect(answers.map((a) => a.bookmark)).toEqual(["00000002", "00000002", "00000002"]);
  });

  it("a group refused by a constraint runs each batch alone: the one that broke it fails, the others commit", async () => {
    const { runner, calls } = handRunner();
    const groups = new WriteGroups();
    const first = groups.batch(runner, statements("a"), waitUntil);
    await settle();
    const [b, c] = [
      groups.batch(runner, statements("b"), waitUntil),
      groups.batch(runner, statements("bad"), waitUntil),
    ];
    await settle();
    calls[0]!.answer();
    await first;
    await settle();
    expect(calls[1]!.statements).toEqual(["b", "bad"]);
    calls[1]!.fail(new Error("D1_ERROR: UNIQUE constraint failed: posts.id: SQLITE_CONSTRAINT"));
    await settle();
    expect(calls.slice(2).map((x) => x.statements)).toEqual([["b"], ["bad"]]);
    calls[2]!.answer();
    calls[3]!.fail(new Error("D1_ERROR: UNIQUE constraint failed: posts.id: SQLITE_CONSTRAINT"));
    expect(metaOf((await b).results)).toEqual(["b"]);
    await expect(c).rejects.toThrow("UNIQUE constraint failed: posts.id");
  });

  it("any other failure is every member's (the call may have committed), and later batches are not held back", async () => {
    const { runner, calls } = handRunner();
    const groups = new WriteGroups();
    const first = groups.batch(runner, statements("a"), waitUntil);
    await settle();
    const group = [groups.batch(runner, statements("b"), waitUntil), groups.batch(runner, statements("c"), waitUntil)];
    await settle();
    calls[0]!.answer();
    await first;
    await settle();
    calls[1]!.fail(new Error("D1_ERROR: Network connection lost."));
    for (const p of group) await expect(p).rejects.toThrow("Network connection lost");
    expect(calls.length).toBe(2); // not retried: it may have committed
    const later = groups.batch(runner, statements("d"), waitUntil);
    await settle();
    expect(calls[2]!.statements).toEqual(["d"]);
    calls[2]!.answer();
    expect(metaOf((await later).results)).toEqual(["d"]);
  });

  it("a group holds at most 16 batches and 48 statements; the rest go in the next call", async () => {
    const { runner, calls } = handRunner();
    const groups = new WriteGroups();
    const first = groups.batch(runner, statements("x"), waitUntil);
    await settle();
    const many = Array.from({ length: 40 }, (_, i) =>
      groups.batch(runner, statements(`${i}a`, `${i}b`, `${i}c`, `${i}d`, `${i}e`), waitUntil),
    );
    const small = Array.from({ length: 20 }, (_, i) => groups.batch(runner, statements(`s${i}`), waitUntil));
    await settle();
    calls[0]!.answer();
    await first;
    for (let answered = 1; answered < 7; answered++) {
      await settle();
      calls[answered]?.answer();
    }
    await Promise.all([...many, ...small]);
    const sizes = calls.slice(1).map((c) => c.statements.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(48);
    // 40 batches of 5 statements: 9 per call (45 statements; a 10th would make 50); the last 4 of them share a call
    // with 12 of the one-statement batches (16 batches), and the 8 left go last.
    expect(sizes).toEqual([45, 45, 45, 45, 4 * 5 + 12, 8]);
    // Every statement sent once, in the order the batches queued (each call stage by stage).
    expect(calls[1]!.statements.slice(0, 10)).toEqual(["0a", "1a", "2a", "3a", "4a", "5a", "6a", "7a", "8a", "0b"]);
    expect(
      calls
        .slice(1)
        .flatMap((c) => c.statements)
        .sort(),
    ).toEqual(
      [
        ...Array.from({ length: 40 }, (_, i) => [`${i}a`, `${i}b`, `${i}c`, `${i}d`, `${i}e`]).flat(),
        ...Array.from({ length: 20 }, (_, i) => `s${i}`),
      ].sort(),
    );
  });

  it("a call that never answers: its members fail as unknown after the bound, queued batches go alone, new ones do not wait", async () => {
    const { runner, calls } = handRunner();
    const groups = new WriteGroups(undefined, 50);
    const lost = groups.batch(runner, statements("lost"), waitUntil);
    await settle();
    const queued = groups.batch(runner, statements("queued"), waitUntil);
    await expect(lost).rejects.toThrow("no answer within 50 ms; the write may or may not have committed");
    await waitFor(() => calls.length === 2, 1000);
    // `queued` was never sent: once the bound passed it went alone.
    expect(calls.map((c) => c.statements)).toEqual([["lost"], ["queued"]]);
    calls[1]!.answer();
    expect(metaOf((await queued).results)).toEqual(["queued"]);
    const fresh = groups.batch(runner, statements("fresh"), waitUntil);
    await settle();
    expect(calls[2]!.statements).toEqual(["fresh"]);
    calls[2]!.answer();
    expect(metaOf((await fresh).results)).toEqual(["fresh"]);
  });

  it("the same INSERT of JSON rows from several batches runs once with all their rows; guarded and other statements run as sent", async () => {
    const { runner, calls } = handRunner();
    const groups = new WriteGroups();
    const rowsInsert =
      "insert into t (a) SELECT a FROM (SELECT json_extract(value, '$[0]') AS a, key AS k FROM json_each(?) AS r) ORDER BY k";
    const create = (post: string, rows: string) => [
      statement("insert into posts SELECT ? WHERE ?", [post, 1]),
      statement(rowsInsert, [rows]),
    ];
    const first = groups.batch(runner, statements("x"), waitUntil);
    await settle();
    const group = [
      groups.batch(runner, create("p1", "[[1],[2]]"), waitUntil),
      groups.batch(runner, create("p2", "[[3]]"), waitUntil),
      groups.batch(runner, [statement("update u SET a = 1")], waitUntil),
      groups.batch(runner, create("p3", "[[4],[5]]"), waitUntil),
    ];
    await settle();
    calls[0]!.answer();
    await first;
    await settle();
    // Stage by stage: every batch's first statement, then every second one — the rows INSERT once, in batch order.
    expect(calls[1]!.statements).toEqual([
      "insert into posts SELECT ? WHERE ? p1 1",
      "insert into posts SELECT ? WHERE ? p2 1",
      "update u SET a = 1",
      "insert into posts SELECT ? WHERE ? p3 1",
      `${rowsInsert} [[1],[2],[3],[4],[5]]`,
    ]);
    calls[1]!.answer();
    const [a, b, c, d] = await Promise.all(group);
    // Each batch gets one result per statement it sent; the merged one's counts go to the first batch it carried.
    expect(a!.results.length).toBe(2);
    expect(b!.results.length).toBe(2);
    expect(c!.results.length).toBe(1);
    expect(d!.results.length).toBe(2);
    expect(metaOf([a!.results[1]!])).toEqual([`${rowsInsert} [[1],[2],[3],[4],[5]]`]);
    expect(b!.results[1]!.meta).toMatchObject({ rows_read: 0, rows_written: 0, changes: 0 });
  });
});
