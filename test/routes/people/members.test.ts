import { describe, expect, it } from "vitest";
import { call, ISO_OFFSET } from "../../support/harness";
import { memberWithRole, signedIn, workspaceWithOwner } from "./support";

describe("members (issue 27)", () => {
  it("lists members; admins change roles and remove non-owners; only owners touch owners; the last owner stays", async () => {
    const ws = await workspaceWithOwner();
    const admin = await memberWithRole(ws, "admin");
    const editor = await memberWithRole(ws, "editor");
    const list = await admin.api("GET", "/api/members");
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      {
        id: expect.any(String),
        user_id: ws.owner.id,
        email: ws.email,
        name: "Owner",
        role: "owner",
        created_at: expect.stringMatching(ISO_OFFSET),
      },
      {
        id: expect.any(String),
        user_id: admin.userId,
        email: admin.email,
        name: "admin",
        role: "admin",
        created_at: expect.stringMatching(ISO_OFFSET),
      },
      {
        id: expect.any(String),
        user_id: editor.userId,
        email: editor.email,
        name: "editor",
        role: "editor",
        created_at: expect.stringMatching(ISO_OFFSET),
      },
    ]);
    const [ownerRow, , editorRow] = list.body;

    const demote = await admin.api("PATCH", `/api/members/${editorRow.id}`, { role: "viewer" });
    expect(demote.status, demote.text).toBe(200);
    expect(demote.body).toEqual({ ...editorRow, role: "viewer" });
    expect((await editor.api("POST", "/api/labels", { name: "x", color: "#000000" })).status).toBe(403);

    const promote = await admin.api("PATCH", `/api/members/${editorRow.id}`, { role: "owner" });
    expect(promote.status).toBe(403);
    expect(promote.body).toEqual({ message: "Only an owner may make, change or remove owners." });
    expect((await admin.api("DELETE", `/api/members/${ownerRow.id}`)).status).toBe(403);
    expect((await call("PATCH", `/api/members/${ownerRow.id}`, { key: ws.key, body: { role: "admin" } })).status).toBe(
      403,
    );

    const owner = await signedIn(ws.email);
    const lastDemote = await owner.api("PATCH", `/api/members/${ownerRow.id}`, { role: "admin" });
    expect(lastDemote.status).toBe(409);
    expect(lastDemote.body).toEqual({
      message: "A workspace keeps at least one owner: make another member owner first.",
    });
    expect((await owner.api("DELETE", `/api/members/${ownerRow.id}`)).status).toBe(409);

    // With a second owner, the first may step down.
    expect((await owner.api("PATCH", `/api/members/${editorRow.id}`, { role: "owner" })).status).toBe(200);
    expect((await owner.api("PATCH", `/api/members/${ownerRow.id}`, { role: "admin" })).status).toBe(200);

    // A full API key manages non-owners (agents), and removal takes effect at once.
    const removed = await call("DELETE", `/api/members/${list.body[1].id}`, { key: ws.key });
    expect(removed.status).toBe(204);
    expect((await admin.api("GET", "/api/workspace")).status).toBe(403);
    expect((await call("DELETE", `/api/members/${list.body[1].id}`, { key: ws.key })).status).toBe(404);
    // Another workspace's member is not found here.
    const other = await workspaceWithOwner();
    const otherMembers = await call("GET", "/api/members", { key: other.key });
    expect(
      (await call("PATCH", `/api/members/${otherMembers.body[0].id}`, { key: ws.key, body: { role: "viewer" } }))
        .status,
    ).toBe(404);
  });

  it("two owners demoting each other at once leave one owner (the guard is inside the write)", async () => {
    const ws = await workspaceWithOwner();
    const first = await signedIn(ws.email);
    const second = await memberWithRole(ws, "admin");
    const [a, b] = (await first.api("GET", "/api/members")).body as [{ id: string }, { id: string }];
    expect((await first.api("PATCH", `/api/members/${b.id}`, { role: "owner" })).status).toBe(200);
    const statuses = (
      await Promise.all([
        first.api("PATCH", `/api/members/${b.id}`, { role: "admin" }),
        second.api("PATCH", `/api/members/${a.id}`, { role: "admin" }),
      ])
    ).map((r) => r.status);
    // The second one is refused: 409 when both passed their role checks first (the write's own guard), or 403 when
    // the other demotion landed before this request read its caller's role (no longer an owner).
    expect([
      [200, 403],
      [200, 409],
    ]).toContainEqual(statuses.sort());
    const after = (await call("GET", "/api/members", { key: ws.key })).body as { role: string }[];
    expect(after.filter((m) => m.role === "owner")).toHaveLength(1);
  });

  it("a publish or read key cannot manage members", async () => {
    const ws = await workspaceWithOwner();
    const key = await call("POST", "/api/api-keys", { key: ws.key, body: { name: "p", scopes: ["publish"] } });
    const res = await call("GET", "/api/members", { key: key.body.plain_token });
    expect(res.status).toBe(403);
  });
});
