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
    });
    const person = await signedIn(email);
    const me = await person.api("GET", "/api/me");
    expect(me.body.memberships).toEqual([
      { workspace_id: res.body.workspace.id, workspace_name: "Boot Co", role: "owner" },
    ]);
  });

  it("an existing person is added as owner of the new workspace (password unchanged)", async () => {
    const email = uniqueEmail("boot");
    await admin({ name: "One", owner: { email, password: PASSWORD } });
    const second = await admin({ name: "Two", owner: { email, password: "another password entirely" } });
    expect(second.status).toBe(201);
    const person = await signedIn(email, PASSWORD);
    const me = await person.api("GET", "/api/me");
    expect(
      me.body.memberships.map((m: { workspace_name: string; role: string }) => [m.workspace_name, m.role]),
    ).toEqual([
      ["One", "owner"],
      ["Two", "owner"],
    ]);
    expect(me.body.user.name).toBe(email.split("@")[0]);
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
    const expires = Date.parse(res.body.owner_invitation.expires_at);
    expect(expires).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 7 * 86_400_000);
    const token = res.body.owner_invitation.url.split("#")[1];
    const lookup = await call("GET", `/api/invitations/lookup/${token}`);
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
