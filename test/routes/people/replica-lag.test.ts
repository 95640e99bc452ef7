import { afterEach, describe, expect, it, vi } from "vitest";
import { lagOnReplicas } from "../../support/d1-spy";
import { call } from "../../support/harness";
import { asPerson, signedIn, workspaceWithOwner } from "./support";

afterEach(() => vi.restoreAllMocks());

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
});
