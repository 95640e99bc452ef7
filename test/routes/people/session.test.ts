import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BASE, call, UUID } from "../../support/harness";
import {
  asPerson,
  PASSWORD,
  SESSION_COOKIE,
  sessionCookieFrom,
  signedIn,
  signIn,
  uniqueEmail,
  workspaceWithOwner,
} from "./support";

const COOKIE_LINE = new RegExp(
  `^${SESSION_COOKIE}=[A-Za-z0-9_-]+\\.[A-Za-z0-9%+/=_-]+; Max-Age=604800; Path=/; HttpOnly; Secure; SameSite=Lax$`,
);
const CLEARED =
  /^__Host-esp-session=; Max-Age=0; Path=\/; (HttpOnly; Secure; SameSite=Lax|Secure; HttpOnly; SameSite=Lax)/;

describe("dashboard sign-in (issue 27)", () => {
  it("signs in with email and password: the person, their workspaces and a __Host- session cookie", async () => {
    const ws = await workspaceWithOwner("Acme");
    const res = await signIn(ws.email);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      user: { id: expect.stringMatching(UUID), email: ws.email, name: "Owner" },
      memberships: [{ workspace_id: ws.workspaceId, workspace_name: "Acme", role: "owner" }],
    });
    const lines = res.headers.getSetCookie();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(COOKIE_LINE);
    expect(lines[0]).not.toMatch(/Domain=/i);
    expect(res.headers.get("cache-control")).toBe("no-store");

    const me = await asPerson(sessionCookieFrom(res) as string).api("GET", "/api/me");
    expect(me.status, me.text).toBe(200);
    expect(me.body).toEqual({ ...res.body, workspace_id: ws.workspaceId });
    // The session acts on the existing API with no API key.
    const workspace = await asPerson(sessionCookieFrom(res) as string).api("GET", "/api/workspace");
    expect(workspace.status, workspace.text).toBe(200);
    expect(workspace.body.id).toBe(ws.workspaceId);
  });

  it("the email is matched case-insensitively", async () => {
    const ws = await workspaceWithOwner();
    const res = await signIn(`  ${ws.email.toUpperCase()} `);
    expect(res.status, res.text).toBe(200);
  });

  it("answers one 401 for an unknown email and a wrong password, and sets no cookie", async () => {
    const ws = await workspaceWithOwner();
    const wrong = await signIn(ws.email, "not the password");
    const unknown = await signIn(uniqueEmail("nobody"), PASSWORD);
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: "The email or password is not correct." });
      expect(res.headers.getSetCookie()).toEqual([]);
    }
  });

  it("422 for a body without email or password; 403 for a sign-in posted from another site", async () => {
    const missing = await call("POST", "/api/session", { body: { email: "a@example.com" }, headers: { Origin: BASE } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ password: [expect.any(String)] });
    const ws = await workspaceWithOwner();
    const foreign = await signIn(ws.email, PASSWORD, { Origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toMatch(/^Cross-origin request refused/);
    expect(foreign.headers.getSetCookie()).toEqual([]);
  });

  it("signing out ends the session: the cookie is cleared and no longer accepted", async () => {
    const ws = await workspaceWithOwner();
    const person = await signedIn(ws.email);
    const out = await person.api("DELETE", "/api/session");
    expect(out.status, out.text).toBe(204);
    expect(out.text).toBe("");
    expect(out.headers.getSetCookie().some((l) => CLEARED.test(l))).toBe(true);
    const me = await person.api("GET", "/api/me");
    expect(me.status).toBe(401);
    expect(me.body).toEqual({ message: "Not signed in, or the session has ended: sign in again." });
    const posts = await person.api("GET", "/api/posts");
    expect(posts.status).toBe(401);
    expect(posts.headers.getSetCookie().some((l) => CLEARED.test(l))).toBe(true);
  });

  it("a forged or tampered cookie is not a session", async () => {
    const ws = await workspaceWithOwner();
    const person = await signedIn(ws.email);
    const [token, signature] = person.cookie.split(".");
    for (const cookie of [`${token}.AAAA${signature?.slice(4)}`, `${token}`, "garbage"]) {
      const res = await asPerson(cookie).api("GET", "/api/workspace");
      expect(res.status).toBe(401);
    }
  });

  it("without a cookie /api/me is 401, and the API answers 401 as before", async () => {
    expect((await call("GET", "/api/me")).status).toBe(401);
    const posts = await call("GET", "/api/posts");
    expect(posts.status).toBe(401);
    expect(posts.body).toEqual({ message: "Unauthenticated." });
  });

  it("a session expires after 7 days unused, and slides forward when used after a day", async () => {
    const ws = await workspaceWithOwner();
    const person = await signedIn(ws.email);
    const token = person.cookie.split(".")[0];
    // Age the session in D1 as the clock would: used 2 days ago, so it is refreshed (7 days from now) and re-set.
    const now = Date.now();
    await env.DB.prepare("UPDATE auth_sessions SET updated_at = ?, expires_at = ? WHERE token = ?")
      .bind(now - 2 * 86_400_000, now + 5 * 86_400_000, token)
      .run();
    const slid = await person.api("GET", "/api/workspace");
    expect(slid.status, slid.text).toBe(200);
    expect(slid.headers.getSetCookie().some((l) => COOKIE_LINE.test(l))).toBe(true);
    const row = await env.DB.prepare("SELECT expires_at FROM auth_sessions WHERE token = ?")
      .bind(token)
      .first<{ expires_at: number }>();
    expect(row!.expires_at).toBeGreaterThanOrEqual(now + 7 * 86_400_000 - 1000);
    // Expired: refused.
    await env.DB.prepare("UPDATE auth_sessions SET expires_at = ? WHERE token = ?")
      .bind(now - 1000, token)
      .run();
    const expired = await person.api("GET", "/api/workspace");
    expect(expired.status).toBe(401);
  });

  it("an Authorization header wins over the cookie: the API key behaves exactly as before", async () => {
    const ws = await workspaceWithOwner();
    const other = await workspaceWithOwner();
    const person = await signedIn(ws.email);
    const res = await person.api("GET", "/api/workspace", undefined, {
      headers: { Authorization: `Bearer ${other.key}` },
    });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(other.workspaceId);
    const bad = await person.api("GET", "/api/workspace", undefined, { headers: { Authorization: "Bearer esp_nope" } });
    expect(bad.status).toBe(401);
  });
});
