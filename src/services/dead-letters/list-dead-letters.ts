import { and, desc, isNotNull, isNull, type SQL } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { deadLetters } from "../../db/schema";
import { formatYmdHis } from "../../lib/time";

export type DeadLetterRow = typeof deadLetters.$inferSelect;

export function presentDeadLetter(row: DeadLetterRow) {
  let body: unknown = row.body;
  try {
    body = JSON.parse(row.body);
  } catch {}
  return {
    id: row.id,
    queue: row.queue,
    post_platform_id: row.postPlatformId,
    workspace_id: row.workspaceId,
    attempts: row.attempts,
    error: row.error,
    body,
    created_at: formatYmdHis(row.createdAt),
    replayed_at: formatYmdHis(row.replayedAt),
  };
}

/** Admin: dead-lettered publish jobs, newest first; `state` filters on whether they were replayed. */
export async function listDeadLetters(
  ctx: ServiceContext,
  input: { state: "pending" | "replayed" | "all"; limit: number },
) {
  const where: SQL | undefined =
    input.state === "pending"
      ? isNull(deadLetters.replayedAt)
      : input.state === "replayed"
        ? isNotNull(deadLetters.replayedAt)
        : undefined;
  const rows = await ctx.db
    .select()
    .from(deadLetters)
    .where(and(where))
    .orderBy(desc(deadLetters.createdAt), desc(deadLetters.id))
    .limit(input.limit);
  return { data: rows.map(presentDeadLetter) };
}
