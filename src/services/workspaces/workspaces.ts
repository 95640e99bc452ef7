import { eq } from "drizzle-orm";
import type { ServiceContext, WorkspaceContext } from "../../context";
import { apiKeys, workspaces } from "../../db/schema";
import { notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { presentApiKey, presentWorkspace } from "../../presenters/resources";
import { mintApiKey } from "../api-keys/api-keys";

export async function getWorkspace(ctx: WorkspaceContext) {
  const row = await ctx.db.select().from(workspaces).where(eq(workspaces.id, ctx.workspaceId)).get();
  if (!row) throw notFound();
  return presentWorkspace(row);
}

/** Admin bootstrap: a workspace and its first API key, written in one batch. */
export async function createWorkspaceWithKey(ctx: ServiceContext, input: { name: string; key_name?: string }) {
  const now = ctx.now();
  const workspace = { id: newId(), name: input.name, createdAt: now, updatedAt: now };
  const minted = await mintApiKey(workspace.id, input.key_name ?? "Default key", null, now);
  await ctx.db.batch([ctx.db.insert(workspaces).values(workspace), ctx.db.insert(apiKeys).values(minted.row)]);
  return { workspace: presentWorkspace(workspace), token: presentApiKey(minted.row), plain_token: minted.plainToken };
}
