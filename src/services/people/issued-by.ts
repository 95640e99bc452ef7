import { type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";

/**
 * What a signed-in person issues ends with their membership (docs/security.md "What a person issues"). API keys are
 * revoked in the write that removes or demotes the member (src/services/people/members.ts); connect links, the flows
 * they start and signed upload URLs are judged when used, by this condition: the person who issued the row
 * (`created_by_user_id`) is still a member of its workspace — and, where the row knows when it was issued, has been
 * since before then, so removing a person and inviting them again does not bring back what they had issued.
 */
export function issuerStillMember(
  workspaceId: SQLiteColumn | SQL,
  userId: SQLiteColumn | SQL,
  issuedAt?: SQLiteColumn | SQL,
): SQL<number> {
  const since = issuedAt === undefined ? sql`` : sql` AND m.created_at <= ${issuedAt}`;
  return sql<number>`EXISTS (SELECT 1 FROM workspace_members m
    WHERE m.workspace_id = ${workspaceId} AND m.user_id = ${userId}${since})`;
}

export const PERSON_ENDED =
  "The person who made this connect link is no longer a member of the workspace, so it no longer connects accounts.";
