import { createClient } from "../sdk/index";

/**
 * The dashboard's one API client: the SDK in cookie mode (the session cookie set by `POST /api/session`), same
 * origin, acting in the workspace picked in the header (`X-Workspace-Id`). No API key ever lives in the browser.
 */
const WORKSPACE_KEY = "esp.workspace";
let workspaceId: string | null = readStoredWorkspace();

function readStoredWorkspace(): string | null {
  try {
    return window.localStorage.getItem(WORKSPACE_KEY);
  } catch {
    return null;
  }
}

export function currentWorkspaceId(): string | null {
  return workspaceId;
}

export function setWorkspaceId(id: string | null) {
  workspaceId = id;
  try {
    if (id) window.localStorage.setItem(WORKSPACE_KEY, id);
    else window.localStorage.removeItem(WORKSPACE_KEY);
  } catch {
    // storage refused (private mode): the choice lasts for this page only
  }
}

/** Called when any request answers 401: the session ended (expired, signed out elsewhere). */
let onSignedOut: () => void = () => {};
export function whenSignedOut(handler: () => void) {
  onSignedOut = handler;
}

export const api = createClient({
  baseUrl: window.location.origin,
  workspaceId: () => workspaceId,
});
api.use({
  onResponse({ response, request }) {
    // Sign-in and the start-up question (who is signed in?) handle their own 401.
    const path = new URL(request.url).pathname;
    if (response.status === 401 && path !== "/api/session" && path !== "/api/me") onSignedOut();
    return response;
  },
});
