import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Me, Membership } from "./session";

export interface SessionValue {
  me: Me;
  /** The membership of the workspace the dashboard acts in (X-Workspace-Id). */
  membership: Membership;
  switchWorkspace: (workspaceId: string) => void;
  signOut: () => void;
}

export const SessionContext = createContext<SessionValue | null>(null);

/** The signed-in person and the workspace in use; only under the signed-in layout. */
export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error("useSession outside the signed-in layout");
  return value;
}
