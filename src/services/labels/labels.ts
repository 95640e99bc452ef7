import { and, desc, eq, sql } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { labels } from "../../db/schema";
import { notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { presentLabel } from "../../presenters/resources";

export interface LabelInput {
  name: string;
  color: string;
}

export async function listLabels(ctx: WorkspaceContext) {
  const rows = await ctx.db
    .select()
    .from(labels)
    .where(eq(labels.workspaceId, ctx.workspaceId))
    .orderBy(desc(labels.createdAt), desc(sql`rowid`));
  return rows.map(presentLabel);
}

export async function createLabel(ctx: WorkspaceContext, input: LabelInput) {
  const now = ctx.now();
  const row = {
    id: newId(),
    workspaceId: ctx.workspaceId,
    name: input.name,
    color: input.color,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.db.insert(labels).values(row);
  return presentLabel(row);
}

export async function updateLabel(ctx: WorkspaceContext, id: string, input: LabelInput) {
  const [row] = await ctx.db
    .update(labels)
    .set({ name: input.name, color: input.color, updatedAt: ctx.now() })
    .where(and(eq(labels.id, id), eq(labels.workspaceId, ctx.workspaceId)))
    .returning();
  if (!row) throw notFound();
  return presentLabel(row);
}

/** Deleting a label detaches it from every post (post_labels cascades). */
export async function deleteLabel(ctx: WorkspaceContext, id: string) {
  const result = await ctx.db
    .delete(labels)
    .where(and(eq(labels.id, id), eq(labels.workspaceId, ctx.workspaceId)))
    .returning({ id: labels.id });
  if (result.length === 0) throw notFound();
}
