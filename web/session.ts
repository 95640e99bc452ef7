import { errorMessage, type Schema } from "../sdk/index";
import { api, setWorkspaceId } from "./api";

/**
 * Sign-in, the signed-in person and sign-out through the SDK: `POST /api/session` (sets the HttpOnly session cookie,
 * which this code never sees), `GET /api/me`, `DELETE /api/session`.
 */
export type Role = Schema<"MemberRole">;
export type Membership = Schema<"Membership">;
export type Me = Schema<"Me">;

export type Result<T> = { ok: true; data: T } | { ok: false; status: number; message: string };

const UNREACHABLE = "The server could not be reached. Check your connection and try again.";

async function settle<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
  fallback: string,
): Promise<Result<T>> {
  try {
    const { data, error, response } = await call;
    if (response.ok) return { ok: true, data: data as T };
    return { ok: false, status: response.status, message: errorMessage(error, `${fallback} (${response.status})`) };
  } catch {
    return { ok: false, status: 0, message: UNREACHABLE };
  }
}

export const signIn = (email: string, password: string) =>
  settle(api.POST("/api/session", { body: { email, password } }), "Signing in failed.");

export const signOut = () => settle(api.DELETE("/api/session"), "Signing out failed.");

/**
 * The person and their memberships. The workspace picked earlier in this browser is asked for (X-Workspace-Id); if
 * the person no longer belongs to it (403), the question is asked again without it.
 */
export async function fetchMe(): Promise<Result<Me>> {
  const first = await settle(api.GET("/api/me"), "Your account could not be read.");
  if (first.ok || first.status !== 403) return first;
  setWorkspaceId(null);
  return settle(api.GET("/api/me"), "Your account could not be read.");
}

/** Owners and admins manage members, keys and webhooks; editors change posts, media, labels, accounts; viewers read. */
export const canEdit = (role: Role | undefined) => role === "owner" || role === "admin" || role === "editor";
export const canAdminister = (role: Role | undefined) => role === "owner" || role === "admin";
