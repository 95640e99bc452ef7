import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * A background sweep that found nothing left to do, and for which key (migration 0023): src/services/sealing/sweep-marks.ts.
 */
export const sweepMarks = sqliteTable("sweep_marks", {
  name: text("name").primaryKey(),
  keyId: text("key_id").notNull(),
  finishedAt: integer("finished_at").notNull(),
});
