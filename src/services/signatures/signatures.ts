import { and, desc, eq, sql } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { signatures } from "../../db/schema";
import { notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { presentSignature } from "../../presenters/resources";

export interface SignatureInput {
  name: string;
  content: string;
}

export async function listSignatures(ctx: WorkspaceContext) {
  const rows = await ctx.db
    .select()
    .from(signatures)
    .where(eq(signatures.workspaceId, ctx.workspaceId))
    .orderBy(desc(signatures.createdAt), desc(sql`rowid`));
  return rows.map(presentSignature);
}

export async function createSignature(ctx: WorkspaceContext, input: SignatureInput) {
  const now = ctx.now();
  const row = {
    id: newId(),
    workspaceId: ctx.workspaceId,
    name: input.name,
    content: input.content,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.db.insert(signatures).values(row);
  return presentSignature(row);
}

export async function updateSignature(ctx: WorkspaceContext, id: string, input: SignatureInput) {
  const [row] = await ctx.db
    .update(signatures)
    .set({ name: input.name, content: input.content, updatedAt: ctx.now() })
    .where(and(eq(signatures.id, id), eq(signatures.workspaceId, ctx.workspaceId)))
    .returning();
  if (!row) throw notFound();
  return presentSignature(row);
}

/** Deleting a label detaches it from every post (post_signatures cascades). */
export async function deleteSignature(ctx: WorkspaceContext, id: string) {
  const result = await ctx.db
    .delete(signatures)
    .where(and(eq(signatures.id, id), eq(signatures.workspaceId, ctx.workspaceId)))
    .returning({ id: signatures.id });
  if (result.length === 0) throw notFound();
}
