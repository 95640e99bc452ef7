// Issue 35 (security review 4): an invitation ends when its issuer's access ends, as connect links do
// (src/services/people/invitation-issuers.ts). Each case: the link is looked up and accepted before the issuer's
// change would have mattered, then refused after it — lookup 404, accept 404, nobody joins, the list drops it.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BASE, call } from "../../support/harness";
import { freshIp, memberWithRole, PASSWORD, type Person, signedIn, uniqueEmail, workspaceWithOwner } from "./support";

const NOT_FOUND = {
  status: 404,
  body: { message: "This invitation is not valid: it was used, withdrawn or has expired. Ask for a new one." },
};

const lookup = async (token: string) => {
  const res = await call("POST", "/api/invitations/lookup", { body: { token } });
  return { status: res.status, body: res.body };
};
const accept = async (token: string, email = uniqueEmail("invited")) => {
  const res = await call("POST", "/api/invitations/accept", {
    body: { token, name: "Invited", email, password: PASSWORD },
    headers: { Origin: BASE, "CF-Connecting-IP": freshIp() },
  });
  return { status: res.status, body: res.body };
};

async function inviteBy(issuer: Person | string, role: string, email = uniqueEmail(role)) {
  const res =
    typeof issuer === "string"
      ? await call("POST", "/api/invitations", { key: issuer, body: { role, email } })
      : await issuer.api("POST", "/api/invitations", { role, email });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.id as string, token: res.body.token as string, email };
}

const memberId = async (owner: Person, userId: string) =>
  ((await owner.api("GET", "/api/members")).body as { id: string; user_id: string }[]).find(
    (m) => m.user_id === userId,
  )!.id;

const pendingIds = async (key: string) =>
  ((await call("GET", "/api/invitations", { key })).body as { id: string }[]).map((i) => i.id).sort();

const revokedAt = async (id: string) =>
  (await env.DB.prepare("SELECT revoked_at FROM invitations WHERE id = ?").bind(id).first<{ revoked_at: number }>())
    ?.revoked_at ?? null;

describe("an invitation ends with its issuer's access (issue 35)", () => {
  it("made by an admin who is then removed: refused, and removing and inviting them again does not bring it back", async () => {
    const ws = await workspaceWithOwner();
    const owner = await signedIn(ws.email, undefined, ws.workspaceId);
    const admin = await memberWithRole(ws, "admin");
    const invitation = await inviteBy(admin, "editor");
    expect((await lookup(invitation.token)).status).toBe(200);

    const removed = await owner.api("DELETE", `/api/members/${await memberId(owner, admin.userId)}`);
    expect(removed.status, removed.text).toBe(204);
    expect(await lookup(invitation.token)).toEqual(NOT_FOUND);
    expect(await accept(invitation.token, invitation.email)).toEqual(NOT_FOUND);
    expect(await revokedAt(invitation.id)).toEqual(expect.any(Number));

    // Invited back as admin: the old invitation stays ended (membership must predate it, and it was marked).
    const again = await inviteBy(ws.key, "admin", admin.email);
    const back = await call("POST", "/api/invitations/accept", {
      body: { token: again.token, email: admin.email, password: PASSWORD },
      headers: { Origin: BASE, "CF-Connecting-IP": freshIp() },
    });
    expect(back.status, back.text).toBe(200);
    expect(await lookup(invitation.token)).toEqual(NOT_FOUND);
    const members = (await owner.api("GET", "/api/members")).body as { email: string }[];
    expect(members.map((m) => m.email)).not.toContain(invitation.email);
  });

  it("made by an admin demoted to editor: refused; an owner demoted to admin keeps only the invitations an admin makes", async () => {
    const ws = await workspaceWithOwner();
    const owner = await signedIn(ws.email, undefined, ws.workspaceId);
    const admin = await memberWithRole(ws, "admin");
    // Only an owner invites an owner: the co-owner joins by the signed-in owner's invitation.
    const coOwnerInvite = await inviteBy(owner, "owner");
    const coOwnerJoined = await accept(coOwnerInvite.token, coOwnerInvite.email);
    expect(coOwnerJoined.status).toBe(200);
    const coOwner = { ...(await signedIn(coOwnerInvite.email, PASSWORD, ws.workspaceId)), userId: "" };
    coOwner.userId = ((await coOwner.api("GET", "/api/me")).body as { user: { id: string } }).user.id;
    const byAdmin = await inviteBy(admin, "viewer");
    const ownerInvite = await inviteBy(coOwner, "owner");
    const editorInvite = await inviteBy(coOwner, "editor");

    const demoted = await owner.api("PATCH", `/api/members/${await memberId(owner, admin.userId)}`, { role: "editor" });
    expect(demoted.status, demoted.text).toBe(200);
    expect(await lookup(byAdmin.token)).toEqual(NOT_FOUND);
    expect(await accept(byAdmin.token, byAdmin.email)).toEqual(NOT_FOUND);

    const toAdmin = await owner.api("PATCH", `/api/members/${await memberId(owner, coOwner.userId)}`, {
      role: "admin",
    });
    expect(toAdmin.status, toAdmin.text).toBe(200);
    expect(await lookup(ownerInvite.token)).toEqual(NOT_FOUND);
    expect(await accept(ownerInvite.token, ownerInvite.email)).toEqual(NOT_FOUND);
    // Promoting them back does not revive the owner invitation: it was marked revoked with the demotion.
    expect(
      (await owner.api("PATCH", `/api/members/${await memberId(owner, coOwner.userId)}`, { role: "owner" })).status,
    ).toBe(200);
    expect(await lookup(ownerInvite.token)).toEqual(NOT_FOUND);
    // The editor invitation an admin could make as well is untouched and still joins.
    expect(await pendingIds(ws.key)).toEqual([editorInvite.id]);
    const joined = await accept(editorInvite.token, editorInvite.email);
    expect(joined.status).toBe(200);
    expect(joined.body.memberships).toEqual([
      { workspace_id: ws.workspaceId, workspace_name: expect.any(String), role: "editor" },
    ]);
  });

  it("made by an API key that is then revoked: refused; invitations of other keys stay", async () => {
    const ws = await workspaceWithOwner();
    const minted = await call("POST", "/api/api-keys", { key: ws.key, body: { name: "inviter" } });
    expect(minted.status, minted.text).toBe(201);
    const byKey = await inviteBy(minted.body.plain_token, "editor");
    const byRoot = await inviteBy(ws.key, "viewer");

    const revoked = await call("DELETE", `/api/api-keys/${minted.body.token.id}`, { key: ws.key });
    expect(revoked.status, revoked.text).toBe(204);
    expect(await lookup(byKey.token)).toEqual(NOT_FOUND);
    expect(await accept(byKey.token, byKey.email)).toEqual(NOT_FOUND);
    expect(await pendingIds(ws.key)).toEqual([byRoot.id]);
    expect((await lookup(byRoot.token)).status).toBe(200);
  });
});
