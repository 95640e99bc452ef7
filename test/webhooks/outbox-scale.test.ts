import { env } from "cloudflare:workers";
import { desc } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { deadLetters } from "../../src/db/schema";
import { undispatchedEvents } from "../../src/services/webhooks/dispatch";
import { createTestWorkspace, queryPlan } from "../support/harness";
import { recordingQueue, testContext } from "./support";

/**
 * Reads that do not grow with history (migration 0022). Dispatched webhook events are kept for the retention period,
 * and every dispatch asks for the undispatched ones: that read must not walk the kept ones. Measured as D1 reports
 * rows read, on the dispatcher's own statement.
 */
describe("the outbox read does not grow with the events kept after dispatch", () => {
  it("5,000 dispatched events and 3 waiting: the dispatcher reads the 3, in commit order", async () => {
    const ws = await createTestWorkspace();
    const now = Date.now();
    const seed = (n: number, dispatched: boolean, prefix: string) =>
      env.DB.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${n})
         INSERT INTO webhook_events (id, workspace_id, type, subject, payload, created_at, dispatched_at)
         SELECT ?1 || i, ?2, 'media.uploaded', 'media', '{}', ?3, ${dispatched ? "?3" : "NULL"} FROM n`,
      ).bind(prefix, ws.workspaceId, now);
    await env.DB.batch([seed(5000, true, `kept-${ws.workspaceId}-`)]);
    // Waiting events, written after the kept ones and in reverse id order: commit order is rowid, not id or clock.
    for (const id of ["w3", "w2", "w1"]) await env.DB.batch([seed(1, false, `${id}-${ws.workspaceId}-`)]);

    const ctx = testContext({ now }, recordingQueue().queue);
    const query = undispatchedEvents(ctx).toSQL();
    const res = await env.DB.prepare(query.sql)
      .bind(...query.params)
      .all<{ id: string }>();
    const mine = res.results.map((r) => r.id).filter((id) => id.endsWith(`-${ws.workspaceId}-1`));
    expect(mine).toEqual([`w3-${ws.workspaceId}-1`, `w2-${ws.workspaceId}-1`, `w1-${ws.workspaceId}-1`]);
    // Other test files' waiting events may share this database: tens of rows at most, never the 5,000.
    expect(res.meta.rows_read).toBeLessThan(100);
  });

  it("the newest dead letters come from an index, not a sort of them all", async () => {
    // The admin list's statement (src/services/dead-letters/list-dead-letters.ts, no state filter): newest first.
    const query = createDb(env.DB)
      .select()
      .from(deadLetters)
      .orderBy(desc(deadLetters.createdAt), desc(deadLetters.id))
      .limit(50);
    expect(await queryPlan(query)).toContain("dead_letters_created_idx");
  });
});
