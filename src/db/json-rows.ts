import { type Column, getTableColumns, type Table } from "drizzle-orm";

/**
 * A table's row as one SQLite `json_object(...)` expression, and the way back to the row drizzle would have returned.
 *
 * Used where one statement must bring back a row together with its children (the Post resource: the post, its
 * platforms with their accounts, its media and labels). D1 returns each statement's result set separately, and each
 * extra statement — and each extra column crossing the binding — costs time, so nesting the children as JSON inside
 * the parent's row turns four statements into one. Values come back as SQLite gave them to json_object (integers,
 * text, null); `decode` passes those of boolean- and JSON-mode columns through the column's own driver mapping,
 * exactly as drizzle does for an ordinary select.
 */
export interface JsonRowCodec<Row> {
  /** `json_object('id', "alias"."id", …)`, keyed by the columns' property names. Safe to splice: schema names only. */
  sql: string;
  decode(raw: Record<string, unknown>): Row;
}

const PLAIN_COLUMN_TYPES = new Set(["SQLiteText", "SQLiteInteger", "SQLiteReal"]);

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

export function jsonRow<T extends Table, K extends keyof T["_"]["columns"] & string = keyof T["_"]["columns"] & string>(
  table: T,
  alias: string,
  pick?: readonly K[],
): JsonRowCodec<Pick<T["$inferSelect"], K>> {
  const all = getTableColumns(table) as Record<string, Column>;
  const columns = (pick ?? (Object.keys(all) as K[])).map((key) => [key, all[key] as Column] as const);
  const sql = `json_object(${columns.map(([key, col]) => `'${key}', ${quote(alias)}.${quote(col.name)}`).join(", ")})`;
  // Text, integer and real columns come out of JSON.parse as they would from the driver; only the others (boolean
  // and JSON modes) need their column's mapping, applied in place.
  const mapped = columns.filter(([, col]) => !PLAIN_COLUMN_TYPES.has(col.columnType));
  return {
    sql,
    decode(raw) {
      for (const [key, col] of mapped) {
        const value = raw[key];
        raw[key] = value === null || value === undefined ? null : col.mapFromDriverValue(value);
      }
      return raw as Pick<T["$inferSelect"], K>;
    },
  };
}
