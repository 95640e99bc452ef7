import type { App } from "../../types";
import { registerInvitations } from "./invitations";
import { registerMembers } from "./members";
import { registerSession } from "./session";

/** Dashboard sign-in, members and invitations (issue 27, tag "People"; docs/security.md "People and sessions"). */
export function registerPeople(app: App) {
  registerSession(app);
  registerMembers(app);
  registerInvitations(app);
}
