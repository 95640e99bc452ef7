import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BASE, call, ISO_OFFSET, UUID } from "../../support/harness";
import {
  freshIp,
  memberWithRole,
  PASSWORD,
  sessionCookieFrom,
  signedIn,
  uniqueEmail,
  workspaceWithOwner,
} from "./support";

const accept = (body: Record<string, unknown>) =>
  call("POST", "/api/invitations/accept", { body, headers: { Origin: BASE, "CF-Connecting-IP": freshIp() } });

describe("invitations (issue 27)", () => {
  it("a full API key invites; the link is shown once, looked up publicly, accepted once", async () => {
    const ws = await workspaceWithOwner("Invited Co");
    const before = Date.now();
    const created = await call("POST", "/api/invitations", {
      key: ws.key,
      body: { role: "editor", email: "Someone@Example.com", expires_in_hours: 48 },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(UUID),
      role: "editor",
      email: "someone@example.com",
      expires_at: expect.stringMatching(ISO_OFFSET),
      created_at: expect.stringMatching(ISO_OFFSET),
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      url: `${env.PUBLIC_URL || BASE}/app/invite#${created.body.token}`,
    });
    const expires = Date.parse(created.body.expires_at);
    expect(expires).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 48 * 3_600_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 48 * 3_600_000);
    // Stored hashed only.
    const row = await env.DB.prepare("SELECT token_hash FROM invitations WHERE id = ?")
      .bind(created.body.id)
      .first<{ token_hash: string }>();
    expect(row!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row!.token_hash).not.toContain(created.body.token);

    const listed = await call("GET", "/api/invitations", { key: ws.key });
    const { token: _t, url: _u, ...view } = created.body;
    expect(listed.body).toEqual([view]);

    const lookup = await call("GET", `/api/invitations/lookup/${created.body.token}`);
    expect(lookup.status).toBe(200);
    expect(lookup.body).toEqual({
      workspace_name: "Invited Co",
      role: "editor",
      email: "someone@example.com",
      expires_at: created.body.expires_at,
    });

    const email = uniqueEmail("new");
    const joined = await accept({ token: created.body.token, name: "New Person", email, password: PASSWORD });
    expect(joined.status, joined.text).toBe(200);
    expect(joined.body).toEqual({
      user: { id: expect.stringMatching(UUID), email, name: "New Person" },
      memberships: [{ workspace_id: ws.workspaceId, workspace_name: "Invited Co", role: "editor" }],
    });
    expect(sessionCookieFrom(joined)).toBeDefined();

    // Single use: the link is spent.
    const again = await accept({ token: created.body.token, name: "X", email: uniqueEmail(), password: PASSWORD });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({
      message: "This invitation is not valid: it was used, withdrawn or has expired. Ask for a new one.",
    });
    expect((await call("GET", `/api/invitations/lookup/${created.body.token}`)).status).toBe(404);
    expect((await call("GET", "/api/invitations", { key: ws.key })).body).toEqual([]);
    // The new person signs in with their password.
    expect((await signedIn(email)).cookie).toBeTruthy();
  });

  it("a revoked invitation and an expired one are refused; unknown tokens too", async () => {
    const ws = await workspaceWithOwner();
    const revoked = await call("POST", "/api/invitations", { key: ws.key, body: { role: "viewer" } });
    expect((await call("DELETE", `/api/invitations/${revoked.body.id}`, { key: ws.key })).status).toBe(204);
    expect((await call("DELETE", `/api/invitations/${revoked.body.id}`, { key: ws.key })).status).toBe(404);
    const expired = await call("POST", "/api/invitations", { key: ws.key, body: { role: "viewer" } });
    await env.DB.prepare("UPDATE invitations SET expires_at = ? WHERE id = ?")
      .bind(Date.now() - 1000, expired.body.id)
      .run();
    for (const token of [revoked.body.token, expired.body.token, "nope"]) {
      expect((await call("GET", `/api/invitations/lookup/${token}`)).status).toBe(404);
      const res = await accept({ token, name: "X", email: uniqueEmail(), password: PASSWORD });
      expect(res.status).toBe(404);
    }
    // Nobody was created for the refused acceptances.
    expect((await call("GET", "/api/members", { key: ws.key })).body).toHaveLength(1);
  });

  it("accepting: 401 without a session or password; an existing person joins with their password, not another's", async () => {
    const ws = await workspaceWithOwner();
    const other = await workspaceWithOwner();
    const invite = await call("POST", "/api/invitations", { key: ws.key, body: { role: "admin" } });
    const anonymous = await accept({ token: invite.body.token });
    expect(anonymous.status).toBe(401);
    const wrong = await accept({ token: invite.body.token, email: other.email, password: "wrong password" });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ message: "The email or password is not correct." });
    const noName = await accept({ token: invite.body.token, email: uniqueEmail(), password: PASSWORD });
    expect(noName.status).toBe(422);
    expect(noName.body.errors).toEqual({ name: ["The name field is required to create your account."] });
    const right = await accept({ token: invite.body.token, email: other.email, password: PASSWORD });
    expect(right.status, right.text).toBe(200);
    expect(right.body.memberships.map((m: { role: string }) => m.role)).toEqual(["owner", "admin"]);
  });

  it("two acceptances creating the same new person at once: one person, never a 500", async () => {
    const ws = await workspaceWithOwner();
    const [one, two] = await Promise.all(
      [1, 2].map(() => call("POST", "/api/invitations", { key: ws.key, body: { role: "viewer" } })),
    );
    const email = uniqueEmail("race");
    const results = await Promise.all(
      [one, two].map((inv) => accept({ token: inv!.body.token, name: "Racer", email, password: PASSWORD })),
    );
    for (const res of results) expect([200, 409], res.text).toContain(res.status);
    const people = await env.DB.prepare("SELECT count(*) AS n FROM auth_users WHERE email = ?")
      .bind(email)
      .first<{ n: number }>();
    expect(people!.n).toBe(1);
    const members = (await call("GET", "/api/members", { key: ws.key })).body as { email: string }[];
    expect(members.filter((m) => m.email === email)).toHaveLength(1);
  });

  it("admins invite but only owners invite owners; the inviter's cookie needs a same-origin Origin", async () => {
    const ws = await workspaceWithOwner();
    const admin = await memberWithRole(ws, "admin");
    const asAdmin = await admin.api("POST", "/api/invitations", { role: "owner" });
    expect(asAdmin.status).toBe(403);
    expect(asAdmin.body).toEqual({ message: "Only an owner may make, change or remove owners." });
    const byKey = await call("POST", "/api/invitations", { key: ws.key, body: { role: "owner" } });
    expect(byKey.status).toBe(403);
    const owner = await signedIn(ws.email);
    expect((await owner.api("POST", "/api/invitations", { role: "owner" })).status).toBe(201);
    expect((await admin.api("POST", "/api/invitations", { role: "admin" })).status).toBe(201);
    const csrf = await admin.api(
      "POST",
      "/api/invitations",
      { role: "viewer" },
      { headers: { Origin: "https://evil.example" } },
    );
    expect(csrf.status).toBe(403);
    const badRole = await admin.api("POST", "/api/invitations", { role: "god" });
    expect(badRole.status).toBe(422);
  });
});
