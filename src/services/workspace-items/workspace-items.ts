import { and, desc, eq, sql } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import type { labels, signatures } from "../../db/schema";
import { notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";

/**
 * Labels and signatures are the same kind of thing: small named records owned by a workspace, listed latest first,
 * created, replaced and deleted by id. One implementation serves both; each passes its table, its editable
 * fields and its presenter.
 */
type ItemTable = typeof labels | typeof signatures;

export function workspaceItems<Row extends { id: string }, Fields extends Record<string, string>, Out>(
  table: ItemTable,
  present: (row: Row) => Out,
) {
  // The two tables share id/workspace_id/created_at/updated_at; drizzle cannot type a query over a union of
  // tables, so the builder is typed loosely here and the rows by `Row`.
  const t = table as typeof labels;
  const own = (ctx: WorkspaceContext, id: string) => and(eq(t.id, id), eq(t.workspaceId, ctx.workspaceId));

  return {
    async list(ctx: WorkspaceContext): Promise<Out[]> {
      const rows = await ctx.db
        .select()
        .from(t)
        .where(eq(t.workspaceId, ctx.workspaceId))
        .orderBy(desc(t.createdAt), desc(sql`rowid`));
      return (rows as unknown as Row[]).map(present);
    },
    async create(ctx: WorkspaceContext, fields: Fields): Promise<Out> {
      const now = ctx.now();
      const row = { id: newId(), workspaceId: ctx.workspaceId, ...fields, createdAt: now, updatedAt: now };
      await ctx.db.insert(t).values(row as never);
      return present(row as unknown as Row);
    },
    async update(ctx: WorkspaceContext, id: string, fields: Fields): Promise<Out> {
      const [row] = await ctx.db
        .update(t)
        .set({ ...fields, updatedAt: ctx.now() } as never)
        .where(own(ctx, id))
        .returning();
      if (!row) throw notFound();
      return present(row as unknown as Row);
    },
    /** Links (post_labels) cascade. */
    async remove(ctx: WorkspaceContext, id: string): Promise<void> {
      const result = await ctx.db.delete(t).where(own(ctx, id)).returning({ id: t.id });
      if (result.length === 0) throw notFound();
    },
  };
}
