import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BASE, call, ISO_OFFSET, newApiKeyBody, UUID } from "../../support/harness";
import { freshIp, PASSWORD, sessionCookieFrom, signedIn, uniqueEmail } from "./support";

const admin = (body: unknown) =>
  call("POST", "/api/admin/workspaces", { body, headers: { Authorization: `Bearer ${env.ADMIN_TOKEN}` } });

describe("admin bootstrap with the first owner (issue 27)", () => {
  it("with a password: the workspace, its key as before, and the owner, who signs in", async () => {
    const email = uniqueEmail("boot");
    const res = await admin({
      name: "Boot Co",
      owner: { email: email.toUpperCase(), name: "Bea", password: PASSWORD },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      workspace: expect.objectContaining({ id: expect.stringMatching(UUID), name: "Boot Co" }),
      ...newApiKeyBody({ name: "Default key", expires_at: null }),
      owner: { id: expect.stringMatching(UUID), email, name: "Bea" },
      owner_existed: false,
    });
    const person = await signedIn(email);
    const me = await person.api("GET", "/api/me");
    expect(me.body.memberships).toEqual([
      { workspace_id: res.body.workspace.id, workspace_name: "Boot Co", role: "owner" },
    ]);
  });

  it("an existing person is never attached: an owner invitation bound to the address, owner_existed true (issue 35)", async () => {
    const email = uniqueEmail("boot");
    const first = await admin({ name: "One", owner: { email, password: PASSWORD } });
    expect(first.body.owner_existed).toBe(false);
    const second = await admin({ name: "Two", owner: { email, password: "another password entirely" } });
    expect(second.status, second.text).toBe(201);
    expect(second.body).toEqual({
      workspace: expect.objectContaining({ name: "Two" }),
      ...newApiKeyBody({ name: "Default key", expires_at: null }),
      owner_invitation: {
        url: expect.stringMatching(/\/app\/invite#[A-Za-z0-9_-]{43}$/),
        expires_at: expect.stringMatching(ISO_OFFSET),
      },
      owner_existed: true,
    });
    // Not a member of Two yet, and the password sent was not set: the person's own still signs in.
    const person = await signedIn(email, PASSWORD);
    expect(
      (await person.api("GET", "/api/me")).body.memberships.map((m: { workspace_name: string }) => m.workspace_name),
    ).toEqual(["One"]);
    expect(
      (
        await call("POST", "/api/session", {
          body: { email, password: "another password entirely" },
          headers: { Origin: BASE, "CF-Connecting-IP": freshIp() },
        })
      ).status,
    ).toBe(401);
    // The person accepts by signing in with their own password.
    const token = second.body.owner_invitation.url.split("#")[1];
    const accepted = await call("POST", "/api/invitations/accept", {
      body: { token, email, password: PASSWORD },
      headers: { Origin: BASE, "CF-Connecting-IP": freshIp() },
    });
    expect(accepted.status, accepted.text).toBe(200);
    expect(
      accepted.body.memberships.map((m: { workspace_name: string; role: string }) => [m.workspace_name, m.role]),
    ).toEqual([
      ["One", "owner"],
      ["Two", "owner"],
    ]);
  });

  it("a common password for the owner: 422 on owner.password, and no workspace is made", async () => {
    const before = await env.DB.prepare("SELECT count(*) AS n FROM workspaces").first<{ n: number }>();
    const res = await admin({ name: "Weak", owner: { email: uniqueEmail("weak"), password: "12345678" } });
    expect([res.status, res.body.errors]).toEqual([
      422,
      {
        "owner.password": [
          "This password is too easy to guess (a common password, a repeated character or a keyboard run): choose another.",
        ],
      },
    ]);
    const after = await env.DB.prepare("SELECT count(*) AS n FROM workspaces").first<{ n: number }>();
    expect(after!.n).toBe(before!.n);
  });

  it("without a password: an owner invitation link (7 days) the owner signs up with", async () => {
    const email = uniqueEmail("invited-owner");
    const before = Date.now();
    const res = await admin({ name: "Invite Co", owner: { email } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.owner_invitation).toEqual({
      url: expect.stringMatching(/\/app\/invite#[A-Za-z0-9_-]{43}$/),
      expires_at: expect.stringMatching(ISO_OFFSET),
    });
    expect(res.body.owner).toBeUndefined();
    expect(res.body.owner_existed).toBe(false);
    const expires = Date.parse(res.body.owner_invitation.expires_at);
    expect(expires).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 7 * 86_400_000);
    const token = res.body.owner_invitation.url.split("#")[1];
    const lookup = await call("POST", "/api/invitations/lookup", { body: { token } });
    expect(lookup.body).toEqual({
      workspace_name: "Invite Co",
      role: "owner",
      email,
      expires_at: res.body.owner_invitation.expires_at,
    });
    const accepted = await call("POST", "/api/invitations/accept", {
      body: { token, name: "Owner", email, password: PASSWORD },
      headers: { Origin: BASE, "CF-Connecting-IP": freshIp() },
    });
    expect(accepted.status, accepted.text).toBe(200);
    expect(sessionCookieFrom(accepted)).toBeDefined();
    expect(accepted.body.memberships).toEqual([
      { workspace_id: res.body.workspace.id, workspace_name: "Invite Co", role: "owner" },
    ]);
  });

  it("422 for a malformed owner; without owner the answer is exactly as before", async () => {
    const bad = await admin({ name: "Bad", owner: { email: "not an email", password: "short" } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["owner.email", "owner.password"]);
    const plain = await admin({ name: "Plain" });
    expect(Object.keys(plain.body).sort()).toEqual(["plain_token", "token", "workspace"]);
  });
});
