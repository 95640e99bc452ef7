// Issue 35 (security review 4): a webhook endpoint receives every post's full body, so it ends with its maker's
// access (src/services/webhooks/endpoint-makers.ts): the maker is listed (`created_by`), and the endpoint is disabled
// when the person leaves or becomes editor or viewer, or the key that made it is revoked. Others are not touched.
import { describe, expect, it } from "vitest";
import { MAKER_KEY_REVOKED, MAKER_LEFT } from "../../src/services/webhooks/endpoint-makers";
import { freshIp, memberWithRole, type Person, signedIn, workspaceWithOwner } from "../routes/people/support";
import { BASE, call } from "../support/harness";

const events = ["post.published"];

async function endpointBy(maker: Person | string, url: string) {
  const res =
    typeof maker === "string"
      ? await call("POST", "/api/webhooks", { key: maker, body: { url, events } })
      : await maker.api("POST", "/api/webhooks", { url, events });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; created_by: unknown };
}

async function states(key: string) {
  const res = await call("GET", "/api/webhooks", { key });
  expect(res.status).toBe(200);
  return Object.fromEntries(
    (res.body as { id: string; enabled: boolean; disabled_reason: string | null }[]).map((e) => [
      e.id,
      { enabled: e.enabled, disabled_reason: e.disabled_reason },
    ]),
  );
}

const memberId = async (owner: Person, userId: string) =>
  ((await owner.api("GET", "/api/members")).body as { id: string; user_id: string }[]).find(
    (m) => m.user_id === userId,
  )!.id;

const ON = { enabled: true, disabled_reason: null };

describe("a webhook endpoint ends with its maker's access (issue 35)", () => {
  it("lists its maker; removing the admin who made it disables it, and the endpoints of the keys they minted", async () => {
    const ws = await workspaceWithOwner();
    const owner = await signedIn(ws.email, undefined, ws.workspaceId);
    const admin = await memberWithRole(ws, "admin");
    const adminKey = await admin.api("POST", "/api/api-keys", { name: "admin's" });
    expect(adminKey.status).toBe(201);

    const byAdmin = await endpointBy(admin, "https://hooks.example.com/admin");
    const byAdminKey = await endpointBy(adminKey.body.plain_token, "https://hooks.example.com/admin-key");
    const byOwner = await endpointBy(owner, "https://hooks.example.com/owner");
    const byRootKey = await endpointBy(ws.key, "https://hooks.example.com/root");
    expect(byAdmin.created_by).toEqual({ type: "person", id: admin.userId });
    expect(byAdminKey.created_by).toEqual({ type: "api_key", id: adminKey.body.token.id });
    expect(byRootKey.created_by).toEqual({ type: "api_key", id: expect.any(String) });

    const removed = await owner.api("DELETE", `/api/members/${await memberId(owner, admin.userId)}`);
    expect(removed.status, removed.text).toBe(204);
    expect(await states(ws.key)).toEqual({
      [byAdmin.id]: { enabled: false, disabled_reason: MAKER_LEFT },
      [byAdminKey.id]: { enabled: false, disabled_reason: MAKER_KEY_REVOKED },
      [byOwner.id]: ON,
      [byRootKey.id]: ON,
    });
    // An owner may turn it on again, as their own decision.
    const again = await owner.api("PUT", `/api/webhooks/${byAdmin.id}`, { enabled: true });
    expect({ status: again.status, enabled: again.body.enabled }).toEqual({ status: 200, enabled: true });
  });

  it("an admin made editor loses their endpoints; an owner made admin keeps theirs", async () => {
    const ws = await workspaceWithOwner();
    const owner = await signedIn(ws.email, undefined, ws.workspaceId);
    const admin = await memberWithRole(ws, "admin");
    const byAdmin = await endpointBy(admin, "https://hooks.example.com/a");
    const coOwnerInvite = await owner.api("POST", "/api/invitations", { role: "owner", email: `co-${admin.email}` });
    expect(coOwnerInvite.status).toBe(201);
    const joined = await call("POST", "/api/invitations/accept", {
      body: {
        token: coOwnerInvite.body.token,
        name: "Co",
        email: `co-${admin.email}`,
        password: "correct horse battery",
      },
      headers: { Origin: BASE, "CF-Connecting-IP": freshIp() },
    });
    expect(joined.status, joined.text).toBe(200);
    const coOwner = await signedIn(`co-${admin.email}`, undefined, ws.workspaceId);
    const byCoOwner = await endpointBy(coOwner, "https://hooks.example.com/b");

    expect(
      (await owner.api("PATCH", `/api/members/${await memberId(owner, joined.body.user.id)}`, { role: "admin" }))
        .status,
    ).toBe(200);
    expect(
      (await owner.api("PATCH", `/api/members/${await memberId(owner, admin.userId)}`, { role: "editor" })).status,
    ).toBe(200);
    expect(await states(ws.key)).toEqual({
      [byAdmin.id]: { enabled: false, disabled_reason: MAKER_LEFT },
      [byCoOwner.id]: ON,
    });
  });

  it("revoking the key that made an endpoint disables it; the other key's stays", async () => {
    const ws = await workspaceWithOwner();
    const minted = await call("POST", "/api/api-keys", { key: ws.key, body: { name: "integration" } });
    expect(minted.status).toBe(201);
    const byMinted = await endpointBy(minted.body.plain_token, "https://hooks.example.com/m");
    const byRoot = await endpointBy(ws.key, "https://hooks.example.com/r");
    expect((await call("DELETE", `/api/api-keys/${minted.body.token.id}`, { key: ws.key })).status).toBe(204);
    expect(await states(ws.key)).toEqual({
      [byMinted.id]: { enabled: false, disabled_reason: MAKER_KEY_REVOKED },
      [byRoot.id]: ON,
    });
  });
});
