/**
 * A D1 binding that adds up the rows D1 reports read and written (`meta.rows_read` / `rows_written`: what D1 bills) by
 * everything run through it, for tests that measure what a flow costs (test/publishing/rows-per-post.test.ts).
 *
 * `first()` and `raw()` return no `meta`, so through this binding they run as a batch of one statement (the same
 * statement, the same transaction semantics) and their rows are rebuilt from its result. Test use only: a query
 * whose result names a column twice would lose one of them (the binding returns a batch's rows as objects).
 */
export interface RowMeter {
  read: number;
  written: number;
}

export function meteredD1(db: D1Database, meter: RowMeter): D1Database {
  const targets = new WeakMap<object, D1PreparedStatement>();
  const count = (meta: { rows_read?: number; rows_written?: number } | undefined) => {
    meter.read += meta?.rows_read ?? 0;
    meter.written += meta?.rows_written ?? 0;
  };
  const unwrap = (s: D1PreparedStatement) => targets.get(s) ?? s;
  const single = async (stmt: D1PreparedStatement) => {
    const [result] = await db.batch([stmt]);
    count(result!.meta);
    return result!.results as Record<string, unknown>[];
  };
  const wrap = (stmt: D1PreparedStatement): D1PreparedStatement => {
    const proxy = new Proxy(stmt, {
      get(target, prop) {
        if (prop === "bind") return (...values: unknown[]) => wrap(target.bind(...values));
        if (prop === "all" || prop === "run")
          return async () => {
            const result = await (target[prop] as () => Promise<D1Result>)();
            count(result.meta);
            return result;
          };
        if (prop === "first")
          return async (column?: string) => {
            const row = (await single(target))[0] ?? null;
            return column === undefined ? row : row === null ? null : (row[column] ?? null);
          };
        if (prop === "raw")
          return async (options?: { columnNames?: boolean }) => {
            const rows = await single(target);
            const values = rows.map((r) => Object.values(r));
            return options?.columnNames ? [Object.keys(rows[0] ?? {}), ...values] : values;
          };
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    targets.set(proxy, stmt);
    return proxy;
  };
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => wrap(target.prepare(sql));
      if (prop === "batch")
        return async (statements: D1PreparedStatement[]) => {
          const results = await target.batch(statements.map(unwrap));
          for (const r of results) count(r.meta);
          return results;
        };
      if (prop === "withSession")
        return (constraint?: string) => meteredD1(target.withSession(constraint) as unknown as D1Database, meter);
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
