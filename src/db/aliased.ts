import { type Column, sql } from "drizzle-orm";

/**
 * drizzle maps D1 batch results from row objects keyed by column name, so a join whose tables share column names
 * (`id`, `platform`, `status`, …) must alias them or the values collide.
 */
export const aliased = <T extends Column>(column: T, alias: string) =>
  sql<T["_"]["data"]>`${column}`.mapWith(column).as(alias);
