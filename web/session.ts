/**
 * Sign-in, the signed-in person and sign-out: `POST /api/session`, `GET /api/me`, `DELETE /api/session` (the routes
 * of the auth work, COMMON contract). TEMPORARY: until those routes are in the served document (and so in
 * sdk/schema.d.ts), these three calls are written against the agreed contract here; once they land, this file calls
 * them through `api` like every other page (npm run sdk:generate) and these types come from the SDK.
 */
export type Role = "owner" | "admin" | "editor" | "viewer";

export interface Membership {
  workspace_id: string;
  workspace_name: string;
  role: Role;
}

export interface Me {
  person: { id?: string; email?: string; name?: string | null };
  memberships: Membership[];
}

export type Result<T> = { ok: true; data: T } | { ok: false; status: number; message: string };

async function call<T>(method: string, path: string, body?: unknown): Promise<Result<T>> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? null : JSON.stringify(body),
    });
  } catch {
    return { ok: false, status: 0, message: "The server could not be reached. Check your connection and try again." };
  }
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (res.ok) return { ok: true, data: parsed as T };
  const message =
    parsed && typeof parsed === "object" && "message" in parsed && typeof parsed.message === "string"
      ? parsed.message
      : `The server answered ${res.status}.`;
  return { ok: false, status: res.status, message };
}

export const signIn = (email: string, password: string) => call<unknown>("POST", "/api/session", { email, password });
export const signOut = () => call<unknown>("DELETE", "/api/session");
export const fetchMe = () => call<Me>("GET", "/api/me");

/** Owners and admins manage members, keys and webhooks; editors change posts, media, labels, accounts; viewers read. */
export const canEdit = (role: Role | undefined) => role === "owner" || role === "admin" || role === "editor";
export const canAdminister = (role: Role | undefined) => role === "owner" || role === "admin";
