import { afterEach, describe, expect, it, vi } from "vitest";
import { lagOnReplicas, staleOnReplicas } from "../../support/d1-spy";
import { call } from "../../support/harness";
import { asPerson, memberWithRole, signedIn, workspaceWithOwner } from "./support";

/** The stale copies staleOnReplicas() made, dropped after each test. */
const drops: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const drop of drops.splice(0)) await drop();
});

describe("sessions and read replicas (issue 27)", () => {
  it("a session made moments ago authenticates a GET whose D1 session started on a replica that has not seen it", async () => {
    const ws = await workspaceWithOwner();
    const person = await signedIn(ws.email);
    lagOnReplicas("auth_sessions");
    const res = await person.api("GET", "/api/workspace");
    expect(res.status, res.text).toBe(200);
    expect(res.body.id).toBe(ws.workspaceId);
    expect((await person.api("GET", "/api/me")).status).toBe(200);
  });

  it("a membership made moments ago is found on the primary", async () => {
    const ws = await workspaceWithOwner();
    const person = await signedIn(ws.email);
    lagOnReplicas("workspace_members");
    const res = await person.api("GET", "/api/workspace");
    expect(res.status, res.text).toBe(200);
    const me = await person.api("GET", "/api/me");
    expect(me.body.memberships).toHaveLength(1);
  });

  it("a forged cookie is still refused", async () => {
    lagOnReplicas("auth_sessions");
    const res = await asPerson("forged.AAAA").api("GET", "/api/workspace");
    expect(res.status).toBe(401);
    expect((await call("GET", "/api/workspace")).status).toBe(401);
  });

  // Issue 35 (review 4): the session and the membership are read on the primary, so a replica that has not seen a
  // removal or a sign-out lets nobody in.
  it("a member removed moments ago is refused even where the replica still lists them", async () => {
    const ws = await workspaceWithOwner();
    const owner = await signedIn(ws.email, undefined, ws.workspaceId);
    const admin = await memberWithRole(ws, "admin");
    expect((await admin.api("GET", "/api/workspace")).status).toBe(200);
    drops.push(await staleOnReplicas("workspace_members"));
    const members = (await call("GET", "/api/members", { key: ws.key })).body as { id: string; user_id: string }[];
    const id = members.find((m) => m.user_id === admin.userId)!.id;
    expect((await owner.api("DELETE", `/api/members/${id}`)).status).toBe(204);
    const res = await admin.api("GET", "/api/workspace");
    expect({ status: res.status, body: res.body }).toEqual({
      status: 403,
      body: { message: "You are not a member of this workspace." },
    });
  });

  it("a session signed out moments ago is refused even where the replica still has it", async () => {
    const ws = await workspaceWithOwner();
    const person = await signedIn(ws.email, undefined, ws.workspaceId);
    drops.push(await staleOnReplicas("auth_sessions"));
    expect((await person.api("DELETE", "/api/session")).status).toBe(204);
    const res = await person.api("GET", "/api/workspace");
    expect({ status: res.status, body: res.body }).toEqual({
      status: 401,
      body: { message: "Not signed in, or the session has ended: sign in again." },
    });
  });
});
