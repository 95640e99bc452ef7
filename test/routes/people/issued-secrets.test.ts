// Issue 27: what a signed-in person issues (API keys, connect links, signed upload URLs) is bound to that person and
// ends with their membership; lowering their role revokes the keys the new role could not mint.
import { afterEach, describe, expect, it } from "vitest";
import { GIF_1X1, mediaForm } from "../../media/fixtures";
import { call } from "../../support/harness";
import { browse, consent } from "../../support/oauth/browser";
import { countSocialAccounts, installConnectedX } from "../../support/oauth/install";
import { memberWithRole, type Person, signedIn, workspaceWithOwner } from "./support";

const PERSON_ENDED =
  "The person who made this connect link is no longer a member of the workspace, so it no longer connects accounts.";
const FLOW_ENDED =
  "This connection was withdrawn: the API key that started it (or made its connect link) was revoked or has expired, or the link was deleted. Nothing was connected.";
let ipCounter = 0;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const off of cleanups.splice(0).reverse()) off();
});

async function keyBy(person: Person, body: Record<string, unknown>) {
  const res = await person.api("POST", "/api/api-keys", body);
  expect(res.status, res.text).toBe(201);
  return { key: res.body.plain_token as string, id: res.body.token.id as string };
}

async function linkBy(person: Person, purpose = "Autumn campaign") {
  const res = await person.api("POST", "/api/connect-links", { purpose });
  expect(res.status, res.text).toBe(201);
  return new URL(res.body.url).pathname;
}

async function uploadUrlBy(person: Person) {
  const res = await person.api("POST", "/api/uploads");
  expect(res.status, res.text).toBe(201);
  const url = new URL(res.body.upload_url);
  return `${url.pathname}${url.search}`;
}

const upload = (path: string) =>
  call("POST", path, {
    rawBody: mediaForm(GIF_1X1, "a.gif"),
    headers: { "CF-Connecting-IP": `198.51.100.${++ipCounter}` },
  });

const workspaceRead = async (key: string) => {
  const res = await call("GET", "/api/workspace", { key });
  return { status: res.status, body: res.body };
};

const memberId = async (owner: Person, userId: string) =>
  ((await owner.api("GET", "/api/members")).body as { id: string; user_id: string }[]).find(
    (m) => m.user_id === userId,
  )!.id;

describe("what a person issues ends with their membership", () => {
  it("removing a member revokes their keys (and the keys those minted), withdraws their link and refuses their upload URL; nothing else is touched", async () => {
    const ws = await workspaceWithOwner("Issued Secrets Inc");
    const owner = await signedIn(ws.email, undefined, ws.workspaceId);
    const admin = await memberWithRole(ws, "admin");
    const other = await memberWithRole(ws, "admin");

    const adminKey = await keyBy(admin, { name: "admin's" });
    // A key minted by the admin's key: the chain rule revokes it with its parent.
    const grandchild = await call("POST", "/api/api-keys", { key: adminKey.key, body: { name: "agent" } });
    expect(grandchild.status).toBe(201);
    const otherKey = await keyBy(other, { name: "other's" });
    const keyMinted = await call("POST", "/api/api-keys", { key: ws.key, body: { name: "key's" } });
    expect(keyMinted.status).toBe(201);
    const link = await linkBy(admin);
    const otherLink = await linkBy(other, "Other campaign");
    const uploadPath = await uploadUrlBy(admin);
    const otherUpload = await uploadUrlBy(other);
    expect((await workspaceRead(adminKey.key)).status).toBe(200);
    expect((await browse("GET", link)).status).toBe(200);

    const removed = await owner.api("DELETE", `/api/members/${await memberId(owner, admin.userId)}`);
    expect({ status: removed.status, text: removed.text }).toEqual({ status: 204, text: "" });

    expect(await workspaceRead(adminKey.key)).toEqual({ status: 401, body: { message: "Unauthenticated." } });
    expect(await workspaceRead(grandchild.body.plain_token)).toEqual({
      status: 401,
      body: { message: "Unauthenticated." },
    });
    const page = await browse("GET", link);
    expect(page.status).toBe(410);
    expect(page.text).toContain(PERSON_ENDED);
    expect(page.text).toContain("Workspace: <strong>Issued Secrets Inc</strong><br>Purpose: Autumn campaign");
    const refused = await upload(uploadPath);
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 403,
      body: { message: "The person who issued this upload URL is no longer a member of the workspace." },
    });

    // Another member's key, link and URL, and the keys API keys minted, still work.
    expect((await workspaceRead(otherKey.key)).status).toBe(200);
    expect((await workspaceRead(keyMinted.body.plain_token)).status).toBe(200);
    expect((await workspaceRead(ws.key)).status).toBe(200);
    expect((await browse("GET", otherLink)).status).toBe(200);
    const stored = await upload(otherUpload);
    expect(stored.status, stored.text).toBe(201);
    const links = await owner.api("GET", "/api/connect-links");
    expect(
      (links.body.data as { purpose: string; api_key_id: string | null; status: string }[]).map((l) => [
        l.purpose,
        l.api_key_id,
        l.status,
      ]),
    ).toEqual([
      ["Other campaign", null, "active"],
      ["Autumn campaign", null, "person_left"],
    ]);
    const keys = await owner.api("GET", "/api/api-keys");
    expect((keys.body as { name: string }[]).map((k) => k.name).sort()).toEqual(["Default key", "key's", "other's"]);
  });

  it("inviting a removed person again does not bring back the link they had made", async () => {
    const ws = await workspaceWithOwner();
    const owner = await signedIn(ws.email, undefined, ws.workspaceId);
    const editor = await memberWithRole(ws, "editor");
    const link = await linkBy(editor);
    expect((await owner.api("DELETE", `/api/members/${await memberId(owner, editor.userId)}`)).status).toBe(204);
    const invite = await call("POST", "/api/invitations", { key: ws.key, body: { role: "editor" } });
    expect(invite.status).toBe(201);
    const back = await editor.api("POST", "/api/invitations/accept", { token: invite.body.token });
    expect(back.status, back.text).toBe(200);
    expect((await browse("GET", link)).status).toBe(410);
    // What they make now works.
    expect((await browse("GET", await linkBy(editor))).status).toBe(200);
  });

  it("demotion revokes only what the new role could not mint", async () => {
    const ws = await workspaceWithOwner();
    const owner = await signedIn(ws.email, undefined, ws.workspaceId);
    const admin = await memberWithRole(ws, "admin");
    const promoted = await memberWithRole(ws, "admin");
    const adminFull = await keyBy(admin, { name: "full" });
    const adminRead = await keyBy(admin, { name: "read", scopes: ["read"] });
    const promotedKey = await keyBy(promoted, { name: "promoted's" });
    const link = await linkBy(admin);

    // admin → owner → admin: both roles mint every scope, nothing is revoked.
    const promotedId = await memberId(owner, promoted.userId);
    expect((await owner.api("PATCH", `/api/members/${promotedId}`, { role: "owner" })).status).toBe(200);
    expect((await owner.api("PATCH", `/api/members/${promotedId}`, { role: "admin" })).status).toBe(200);
    expect((await workspaceRead(promotedKey.key)).status).toBe(200);

    // admin → editor: an editor mints no key, so both of the admin's keys go; the admin's link (editors make links)
    // and other members' keys stay.
    const demoted = await owner.api("PATCH", `/api/members/${await memberId(owner, admin.userId)}`, { role: "editor" });
    expect(demoted.status, demoted.text).toBe(200);
    expect(demoted.body.role).toBe("editor");
    expect(await workspaceRead(adminFull.key)).toEqual({ status: 401, body: { message: "Unauthenticated." } });
    expect(await workspaceRead(adminRead.key)).toEqual({ status: 401, body: { message: "Unauthenticated." } });
    expect((await workspaceRead(promotedKey.key)).status).toBe(200);
    expect((await workspaceRead(ws.key)).status).toBe(200);
    expect((await browse("GET", link)).status).toBe(200);
    // The editor still works with the session.
    expect((await admin.api("GET", "/api/workspace")).status).toBe(200);
  });

  it("a demotion refused by the last-owner rule revokes nothing", async () => {
    const ws = await workspaceWithOwner();
    const owner = await signedIn(ws.email, undefined, ws.workspaceId);
    const ownerKey = await keyBy(owner, { name: "owner's" });
    const me = await memberId(owner, ws.owner.id);
    expect((await owner.api("PATCH", `/api/members/${me}`, { role: "viewer" })).status).toBe(409);
    expect((await owner.api("DELETE", `/api/members/${me}`)).status).toBe(409);
    expect((await workspaceRead(ownerKey.key)).status).toBe(200);
  });

  it("a flow a person started through the API is refused at its callback once they are removed", async () => {
    const ws = await workspaceWithOwner();
    const { net } = installConnectedX(cleanups);
    const owner = await signedIn(ws.email, undefined, ws.workspaceId);
    const editor = await memberWithRole(ws, "editor");
    const start = await editor.api("POST", "/api/social-accounts/connect", {
      platform: "x",
      redirect_url: "https://app.example/connected",
    });
    expect(start.status, start.text).toBe(200);
    const callbackPath = await consent(start.body.url);
    expect((await owner.api("DELETE", `/api/members/${await memberId(owner, editor.userId)}`)).status).toBe(204);
    const res = await browse("GET", callbackPath);
    expect(res.status).toBe(303);
    const to = new URL(res.headers.get("location")!);
    expect(Object.fromEntries(to.searchParams)).toEqual({ error: "revoked", error_description: FLOW_ENDED });
    expect(net.oauth.tokenRequests).toHaveLength(0);
    expect(await countSocialAccounts(ws.workspaceId)).toBe(0);
  });
});
