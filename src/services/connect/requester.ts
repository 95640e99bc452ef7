import { eq } from "drizzle-orm";
import type { Requester } from "../../connect/pages";
import type { ServiceContext } from "../../context";
import { connectLinks, workspaces } from "../../db/schema";

/** Who asks for the accounts, for the hosted pages: the workspace's name and, for a link's flow, its purpose. */
export async function requesterOf(
  ctx: ServiceContext,
  workspaceId: string,
  linkId: string | null,
): Promise<Requester | null> {
  const [ws, link] = await Promise.all([
    ctx.db.select({ name: workspaces.name }).from(workspaces).where(eq(workspaces.id, workspaceId)).get(),
    linkId
      ? ctx.db.select({ purpose: connectLinks.purpose }).from(connectLinks).where(eq(connectLinks.id, linkId)).get()
      : undefined,
  ]);
  return ws ? { workspace: ws.name, purpose: link?.purpose ?? null } : null;
}
