import { and, eq } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { connectLinks } from "../../db/schema";
import { notFound } from "../../lib/errors";

/**
 * Deletes a link of the workspace: its page answers 404 at once, and flows it started that have not come back yet
 * are refused at their callback or selection (they check that their link still exists).
 */
export async function deleteConnectLink(ctx: WorkspaceContext, id: string): Promise<void> {
  const [row] = await ctx.db
    .delete(connectLinks)
    .where(and(eq(connectLinks.id, id), eq(connectLinks.workspaceId, ctx.workspaceId)))
    .returning({ id: connectLinks.id });
  if (!row) throw notFound();
}
