import { drizzle } from "drizzle-orm/d1";

export type Db = ReturnType<typeof createDb>;

/** Counts D1 statements executed through one binding wrapper (a batch counts each statement). */
export interface QueryCounter {
  statements: number;
  /**
   * Calls that each wait for D1 (`prepare().all/run/first/raw`, `batch`, `exec`): far from the primary every one is a
   * cross-region round trip, however many statements a batch holds.
   */
  roundTrips: number;
  /** Wall time spent waiting on D1 (ms); workerd's clock advances across I/O, so this is the round trips' cost. */
  ms: number;
  /**
   * Rows read and written as D1 reports them (`meta.rows_read` / `rows_written`, what D1 bills; writes by triggers
   * included) — for the calls whose result carries `meta`: batches, `run` and `all` (`first` and `raw` return rows
   * only).
   */
  rowsRead?: number;
  rowsWritten?: number;
}

/** Adds the `meta` of D1 results to the counter's rows (results without `meta` add nothing). */
function countRows(counter: QueryCounter, results: unknown): void {
  for (const r of Array.isArray(results) ? results : [results]) {
    const meta = (r as { meta?: { rows_read?: number; rows_written?: number } } | null)?.meta;
    if (!meta) continue;
    counter.rowsRead = (counter.rowsRead ?? 0) + (meta.rows_read ?? 0);
    counter.rowsWritten = (counter.rowsWritten ?? 0) + (meta.rows_written ?? 0);
  }
}

function timed<T>(counter: QueryCounter, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  return run().finally(() => {
    counter.ms += performance.now() - started;
  });
}

/**
 * Wraps the D1 binding so every statement executed through it is counted. The count goes into the request log
 * line (`d1_queries`), which the tests and benchmarks use to show that queries per request stay constant.
 */
const RAW = Symbol("raw");

export function countingD1(d1: D1Database, counter: QueryCounter): D1Database {
  const wrapStatement = (stmt: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(stmt, {
      get(target, prop, receiver) {
        if (prop === RAW) return target;
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== "function") return value;
        if (prop === "bind") return (...args: unknown[]) => wrapStatement(value.apply(target, args));
        if (prop === "all" || prop === "run" || prop === "raw" || prop === "first")
          return (...args: unknown[]) => {
            counter.statements++;
            counter.roundTrips++;
            return timed(counter, () => value.apply(target, args)).then((result) => {
              if (prop === "all" || prop === "run") countRows(counter, result);
              return result;
            });
          };
        return value.bind(target);
      },
    });
  return new Proxy(d1, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      if (prop === "prepare") return (sql: string) => wrapStatement(value.call(target, sql));
      if (prop === "batch")
        return (stmts: D1PreparedStatement[]) => {
          counter.statements += stmts.length;
          counter.roundTrips++;
          // Unwrap our proxies: the binding checks the statements' identity.
          return timed(counter, () => value.call(target, stmts.map(unwrap))).then((results) => {
            countRows(counter, results);
            return results;
          });
        };
      if (prop === "exec")
        return (sql: string) => {
          counter.statements++;
          counter.roundTrips++;
          return timed(counter, () => value.call(target, sql));
        };
      return value.bind(target);
    },
  });
}

function unwrap(stmt: D1PreparedStatement): D1PreparedStatement {
  return ((stmt as unknown as Record<symbol, D1PreparedStatement>)[RAW] ?? stmt) as D1PreparedStatement;
}

/**
 * The query builder over a D1 binding. Created per request (the binding is wrapped per request to count statements),
 * so it is built without the relational schema: extracting that config is the costliest part of `drizzle()` and
 * nothing here uses `db.query` — every query names its tables.
 */
export function createDb(d1: D1Database) {
  return drizzle(d1);
}
