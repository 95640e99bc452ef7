import { env } from "cloudflare:workers";
import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";

/**
 * The migrations are hand-written (README "Migrations"), so nothing else keeps them and the drizzle schema in step:
 * this compares the database every `migrations/*.sql` builds (D1, as the setup applies them) with src/db/schema —
 * tables, columns (type, NOT NULL, primary key, whether a default exists), indexes (columns, unique, partial) and
 * foreign keys. drizzle-kit's snapshot (migrations/meta, scripts/drizzle-snapshot.mjs) is only right when this holds.
 */

type Shape = {
  columns: string[];
  primaryKey: string[];
  indexes: string[];
  foreignKeys: string[];
};

const TABLES: SQLiteTable[] = (Object.values(schema) as unknown[]).filter((v): v is SQLiteTable => is(v, SQLiteTable));

/** Tables that live in the database without a drizzle table: D1's and SQLite's own. */
const INTERNAL = /^(sqlite_|_cf_|d1_migrations$)/;

function fromSchema(table: SQLiteTable): Shape {
  const c = getTableConfig(table);
  const composite = c.primaryKeys.flatMap((pk) => pk.columns.map((col) => col.name));
  return {
    columns: c.columns
      .map(
        (col) =>
          `${col.name} ${col.getSQLType().toLowerCase()}${col.notNull ? " not null" : ""}${col.hasDefault ? " default" : ""}`,
      )
      .sort(),
    primaryKey: [...c.columns.filter((col) => col.primary).map((col) => col.name), ...composite].sort(),
    indexes: c.indexes
      .map((i) => {
        const cols = i.config.columns.map((col) => ("name" in col ? col.name : "<expression>"));
        return `${i.config.name} (${cols.join(", ")})${i.config.unique ? " unique" : ""}${i.config.where ? " partial" : ""}`;
      })
      .sort(),
    foreignKeys: c.foreignKeys
      .map((fk) => {
        const r = fk.reference();
        const to = getTableConfig(r.foreignTable).name;
        const from = r.columns.map((col) => col.name).join(", ");
        return `(${from}) → ${to}(${r.foreignColumns.map((col) => col.name).join(", ")}) on delete ${fk.onDelete ?? "no action"}`;
      })
      .sort(),
  };
}

async function pragma<T>(sql: string): Promise<T[]> {
  return (await env.DB.prepare(sql).all<T>()).results;
}

async function fromDatabase(name: string): Promise<Shape> {
  const info = await pragma<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>(
    `PRAGMA table_info(${name})`,
  );
  const list = await pragma<{ name: string; unique: number; origin: string; partial: number }>(
    `PRAGMA index_list(${name})`,
  );
  const indexes: string[] = [];
  for (const i of list.filter((x) => x.origin === "c")) {
    const cols = await pragma<{ seqno: number; name: string | null }>(`PRAGMA index_info(${i.name})`);
    const names = cols.sort((a, b) => a.seqno - b.seqno).map((x) => x.name ?? "<expression>");
    indexes.push(`${i.name} (${names.join(", ")})${i.unique ? " unique" : ""}${i.partial ? " partial" : ""}`);
  }
  const fks = await pragma<{ id: number; seq: number; table: string; from: string; to: string; on_delete: string }>(
    `PRAGMA foreign_key_list(${name})`,
  );
  const byId = new Map<number, typeof fks>();
  for (const fk of fks) byId.set(fk.id, [...(byId.get(fk.id) ?? []), fk]);
  return {
    columns: info
      .map(
        (col) =>
          `${col.name} ${col.type.toLowerCase()}${col.notnull ? " not null" : ""}${col.dflt_value !== null ? " default" : ""}`,
      )
      .sort(),
    primaryKey: info
      .filter((col) => col.pk > 0)
      .map((col) => col.name)
      .sort(),
    indexes: indexes.sort(),
    foreignKeys: [...byId.values()]
      .map((parts) => {
        const p = parts.sort((a, b) => a.seq - b.seq);
        const from = p.map((x) => x.from).join(", ");
        const to = p.map((x) => x.to).join(", ");
        return `(${from}) → ${p[0]!.table}(${to}) on delete ${p[0]!.on_delete.toLowerCase()}`;
      })
      .sort(),
  };
}

describe("the migrations build the drizzle schema", () => {
  it("has exactly the schema's tables", async () => {
    const tables = await pragma<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'");
    const inDatabase = tables.map((t) => t.name).filter((n) => !INTERNAL.test(n));
    expect(inDatabase.sort()).toEqual(TABLES.map((t) => getTableConfig(t).name).sort());
  });

  for (const table of TABLES) {
    const name = getTableConfig(table).name;
    it(`${name}: columns, primary key, indexes and foreign keys`, async () => {
      expect(await fromDatabase(name)).toEqual(fromSchema(table));
    });
  }
});
