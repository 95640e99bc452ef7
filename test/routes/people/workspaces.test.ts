import { describe, expect, it } from "vitest";
import { BASE, call } from "../../support/harness";
import { freshIp, PASSWORD, sessionCookieFrom, signedIn, workspaceWithOwner } from "./support";

describe("a person in several workspaces (issue 27)", () => {
  it("X-Workspace-Id switches between the person's workspaces; absent, the oldest membership; others refused", async () => {
    const first = await workspaceWithOwner("First");
    const second = await workspaceWithOwner("Second");
    const stranger = await workspaceWithOwner("Stranger");
    // The first workspace's owner is invited into the second as an editor, and joins while signed in.
    const invite = await call("POST", "/api/invitations", { key: second.key, body: { role: "editor" } });
    const person = await signedIn(first.email);
    const joined = await person.api("POST", "/api/invitations/accept", { token: invite.body.token });
    expect(joined.status, joined.text).toBe(200);
    expect(joined.body.memberships).toEqual([
      { workspace_id: first.workspaceId, workspace_name: "First", role: "owner" },
      { workspace_id: second.workspaceId, workspace_name: "Second", role: "editor" },
    ]);

    const label = { name: "Mine", color: "#112233" };
    const inFirst = await person.api("POST", "/api/labels", label);
    const inSecond = await person.api("POST", "/api/labels", label, { workspaceId: second.workspaceId });
    expect([inFirst.status, inSecond.status]).toEqual([201, 201]);
    const firstLabels = await call("GET", "/api/labels", { key: first.key });
    const secondLabels = await call("GET", "/api/labels", { key: second.key });
    expect(firstLabels.body.map((l: { id: string }) => l.id)).toEqual([inFirst.body.id]);
    expect(secondLabels.body.map((l: { id: string }) => l.id)).toEqual([inSecond.body.id]);

    // The role is the one held in the workspace acted in: an editor of the second cannot list its members.
    expect((await person.api("GET", "/api/members")).status).toBe(200);
    expect((await person.api("GET", "/api/members", undefined, { workspaceId: second.workspaceId })).status).toBe(403);

    const me = await person.api("GET", "/api/me", undefined, { workspaceId: second.workspaceId });
    expect(me.body.workspace_id).toBe(second.workspaceId);

    for (const workspaceId of [stranger.workspaceId, "0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a", "not-a-uuid"]) {
      const refused = await person.api("GET", "/api/workspace", undefined, { workspaceId });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ message: "You are not a member of this workspace." });
      expect((await person.api("GET", "/api/me", undefined, { workspaceId })).status).toBe(403);
    }
  });

  it("a person removed from their only workspace is signed in but acts nowhere", async () => {
    const ws = await workspaceWithOwner();
    const email = `v-${crypto.randomUUID()}@example.com`;
    const invite = await call("POST", "/api/invitations", { key: ws.key, body: { role: "viewer", email } });
    const accepted = await call("POST", "/api/invitations/accept", {
      body: { token: invite.body.token, name: "V", email, password: PASSWORD },
      headers: { Origin: BASE, "CF-Connecting-IP": freshIp() },
    });
    const cookie = sessionCookieFrom(accepted) as string;
    const members = await call("GET", "/api/members", { key: ws.key });
    const viewer = members.body.find((m: { role: string }) => m.role === "viewer");
    expect((await call("DELETE", `/api/members/${viewer.id}`, { key: ws.key })).status).toBe(204);
    const res = await call("GET", "/api/posts", {
      headers: { Cookie: `__Host-esp-session=${cookie}`, Origin: BASE },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: "You are not a member of any workspace." });
  });
});
