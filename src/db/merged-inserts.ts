/**
 * The statements of a group commit's call (src/db/write-groups.ts): the members' batches, with the INSERTs that
 * take their rows as one JSON array (`insertJsonRows`, src/db/json-params.ts) merged when several members send the
 * same one — so a call for N creates holds one INSERT of all their posts (each row carrying its own guard), one of all
 * their platform rows and one of all their label links, instead of N each. Every statement D1 runs is compiled and executed on the database's
 * one writer; merging makes the group's call cost less than the sum of its members' batches.
 *
 * Order is kept where it matters: a member's statements run in its own order (its k-th statement runs in stage k,
 * after every statement of stage k − 1), so a child row always follows its post. Statements of different members
 * are independent (each writes its own new rows), and the whole call is one transaction either way.
 */

/** One statement of the call, and which member statements (member index, statement index) it carries. */
export interface CallStatement {
  statement: D1PreparedStatement;
  parts: { member: number; index: number }[];
}

/** A merged JSON parameter stays well under D1's 2 MB string limit. */
export const MERGED_PARAM_BYTES = 512 * 1024;

interface Raw {
  statement: string;
  params: unknown[];
}

/**
 * `INSERT … FROM json_each(?)` with the rows as its only parameter (and nothing returned): its rows can be joined to
 * another's with the same text. Anything else (a guard's parameters, RETURNING, an UPDATE) runs as sent.
 */
function mergeable(s: Raw): boolean {
  return (
    s.params.length === 1 &&
    typeof s.params[0] === "string" &&
    s.params[0].startsWith("[") &&
    /^insert into /i.test(s.statement) &&
    s.statement.indexOf("?") === s.statement.lastIndexOf("?") &&
    s.statement.includes("FROM json_each(?) AS r)") &&
    !/\breturning\b/i.test(s.statement)
  );
}

interface Joined {
  sql: string;
  first: D1PreparedStatement;
  rows: string[];
  bytes: number;
  parts: CallStatement["parts"];
}

export function callStatements(
  batches: D1PreparedStatement[][],
  prepare: (sql: string) => D1PreparedStatement,
): CallStatement[] {
  const call: CallStatement[] = [];
  const longest = Math.max(0, ...batches.map((b) => b.length));
  for (let index = 0; index < longest; index++) {
    const stage: (CallStatement | Joined)[] = [];
    // This stage's merged statements still taking rows, by SQL text.
    const open = new Map<string, Joined>();
    batches.forEach((batch, member) => {
      const stmt = batch[index];
      if (!stmt) return;
      const raw = stmt as unknown as Raw;
      if (!mergeable(raw)) {
        stage.push({ statement: stmt, parts: [{ member, index }] });
        return;
      }
      const json = raw.params[0] as string;
      const rows = json.slice(1, -1);
      let joined = open.get(raw.statement);
      if (!joined || joined.bytes + json.length > MERGED_PARAM_BYTES) {
        joined = { sql: raw.statement, first: stmt, rows: [], bytes: 0, parts: [] };
        open.set(raw.statement, joined);
        stage.push(joined);
      }
      if (rows.length > 0) joined.rows.push(rows);
      joined.bytes += json.length;
      joined.parts.push({ member, index });
    });
    for (const entry of stage)
      call.push(
        "statement" in entry
          ? entry
          : entry.parts.length === 1
            ? { statement: entry.first, parts: entry.parts }
            : { statement: prepare(entry.sql).bind(`[${entry.rows.join(",")}]`), parts: entry.parts },
      );
  }
  return call;
}

/**
 * Each member's results from the call's: a merged statement's result (D1's row counts and all) goes to the first
 * member it carried, the others get an empty result with zero counts — so the counts summed over the members are
 * D1's (Server-Timing `d1rows` per request is then approximate for merged statements; their sum is exact).
 */
export function memberResults(
  batches: D1PreparedStatement[][],
  call: CallStatement[],
  results: D1Result[],
): D1Result[][] {
  const out = batches.map((b) => new Array<D1Result>(b.length));
  call.forEach(({ parts }, i) => {
    const result = results[i]!;
    parts.forEach(({ member, index }, n) => {
      out[member]![index] =
        n === 0
          ? result
          : { success: true, results: [], meta: { ...result.meta, rows_read: 0, rows_written: 0, changes: 0 } };
    });
  });
  return out;
}
