import { type Column, getTableColumns, is, SQL, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "./client";

/**
 * Statements whose size does not grow with the input. D1 binds at most 100 parameters per statement and accepts at
 * most 100 KB of SQL text (docs/limits.md), so a list of ids or a set of rows never becomes one `?` (or one SQL
 * literal) per item: the whole list travels as ONE bound JSON text and SQLite unpacks it with `json_each`. A bound
 * value may be up to 1 MB, far above what the request bounds allow (src/lib/bounds.ts).
 */
export const D1_MAX_BOUND_PARAMETERS = 100;

/** `column IN (…values)` with one bound parameter, however many values. An empty list matches nothing. */
export function inJsonArray(column: Column | SQL, values: readonly (string | number)[]): SQL {
  return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
}

/**
 * `column = value` as a filter only: SQLite does not use an index for it (unary `+` is a no-op on the value). For the
 * tenant condition beside a lookup by primary key (`inJsonArray(table.id, ids)`): with no statistics (D1 runs no
 * ANALYZE for us) SQLite's planner prefers the equality's index to the id list, and walks every row of the workspace
 * to find the few named — a create naming 3 accounts would read as many rows as the workspace has accounts, media or
 * posts (test/db/reads-by-key.test.ts).
 */
export function eqFilterOnly(column: Column, value: string): SQL {
  return sql`+${column} = ${value}`;
}

/** `column IN (values)` as a filter only (`eqFilterOnly`): e.g. a status beside rows named by id. */
export function inFilterOnly(column: Column, values: readonly string[]): SQL {
  return sql`+${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A column's value in its driver form (booleans 0/1, JSON columns as text), as drizzle would bind it. */
function driverValue(column: Column, value: unknown): unknown {
  return value === undefined || value === null ? null : column.mapToDriverValue(value);
}

/** `json_extract(value, '$[i]') AS "name"` for each column: one row unpacked from one `json_each` element. */
const unpack = (names: string[]) => names.map((n, i) => `json_extract(value, '$[${i}]') AS ${n}`).join(", ");

/**
 * `INSERT INTO table SELECT … FROM json_each(?)`: any number of rows in one statement with one bound parameter,
 * inserted in the order given. Like drizzle's own insert, a value left out takes the column's default (`.default()`
 * or `$defaultFn`), else null. Batchable (a `db.batch` item). `rows` must not be empty.
 */
export function insertJsonRows<T extends SQLiteTable>(
  db: Db,
  table: T,
  rows: readonly T["$inferInsert"][],
  options: { onlyIf?: InsertGuard<T> } = {},
) {
  if (rows.length === 0) throw new Error("insertJsonRows: no rows");
  // Every insertable column, in table order: drizzle's INSERT … SELECT names them all.
  const columns = Object.entries(getTableColumns(table) as Record<string, Column>).filter(
    ([, c]) => !(c as unknown as { shouldDisableInsert(): boolean }).shouldDisableInsert(),
  );
  const guard = options.onlyIf;
  const extras = guard?.extras ?? [];
  const payload = rows.map((row) => [
    ...columns.map(([key, column]) => {
      let value = (row as Record<string, unknown>)[key];
      if (value === undefined) {
        if (column.default !== undefined && column.default !== null) {
          if (is(column.default, SQL)) throw new Error(`insertJsonRows: SQL default of ${column.name}`);
          value = column.default;
        } else if (column.defaultFn) value = column.defaultFn();
      }
      return driverValue(column, value);
    }),
    ...extras,
  ]);
  const names = columns.map(([, c]) => quote(c.name));
  let unpacked = sql.raw(unpack(names));
  if (guard) {
    const at = columns.findIndex(([key]) => key === guard.notNullColumn);
    const column = columns[at]?.[1];
    if (!column?.notNull) throw new Error(`insertJsonRows: ${String(guard.notNullColumn)} is not a NOT NULL column`);
    const condition = guard.condition((i) => sql.raw(`json_extract(r.value, '$[${columns.length + i}]')`));
    unpacked = sql.join(
      names.map((n, i) =>
        i === at
          ? sql`CASE WHEN ${condition} THEN json_extract(value, '$[${sql.raw(String(i))}]') END AS ${sql.raw(n)}`
          : sql.raw(`json_extract(value, '$[${i}]') AS ${n}`),
      ),
      sql`, `,
    );
  }
  return db
    .insert(table)
    .select(
      sql`SELECT ${sql.raw(names.join(", "))} FROM (SELECT ${unpacked}, r.key AS k FROM json_each(${JSON.stringify(payload)}) AS r) ORDER BY k`,
    );
}

/**
 * A condition on an INSERT: while `condition` is false, each row's `notNullColumn` is NULL, so the INSERT fails with
 * SQLite's NOT NULL constraint error and the batch it is in rolls back as a whole. A check inside the write's own
 * statement: no extra statement, no extra round trip (src/services/posts/create-post.ts, remembered rows).
 */
export interface InsertGuard<T extends SQLiteTable> {
  /**
   * The condition, reading `extras` through `extra(i)` (the i-th extra as the row carries it): the statement binds
   * nothing but its rows and its text is the same whatever the values, so the same INSERT of several requests can
   * run as one (src/db/merged-inserts.ts).
   */
  condition: (extra: (i: number) => SQL) => SQL;
  notNullColumn: keyof T["$inferInsert"] & string;
  /** Values every row carries after its columns, for `condition` to read. */
  extras: unknown[];
}

/**
 * `UPDATE table SET … FROM (rows unpacked from json_each(?)) AS j WHERE table.<key> = j.<key>`: sets, on each row
 * named by `key`, the other columns the rows carry — any number of rows in one statement with one bound parameter.
 * Batchable. `rows` must not be empty, and every row carries the keys of the first.
 */
export function updateJsonRows<T extends SQLiteTable>(
  db: Db,
  table: T,
  key: keyof T["$inferSelect"] & string,
  rows: readonly Partial<T["$inferInsert"]>[],
) {
  if (rows.length === 0) throw new Error("updateJsonRows: no rows");
  const all = getTableColumns(table) as Record<string, Column>;
  const first = rows[0] as Record<string, unknown>;
  const keys = [key, ...Object.keys(first).filter((k) => k !== key && first[k] !== undefined && all[k] !== undefined)];
  const columns = keys.map((k) => all[k] as Column);
  const names = columns.map((c) => quote(c.name));
  const payload = rows.map((row) => columns.map((c, i) => driverValue(c, (row as Record<string, unknown>)[keys[i]!])));
  const set = Object.fromEntries(keys.slice(1).map((k, i) => [k, sql.raw(`j.${names[i + 1]}`)]));
  return db
    .update(table)
    .set(set as never)
    .from(sql`(SELECT ${sql.raw(unpack(names))} FROM json_each(${JSON.stringify(payload)})) AS j`)
    .where(sql`${all[key] as Column} = j.${sql.raw(names[0] as string)}`);
}
