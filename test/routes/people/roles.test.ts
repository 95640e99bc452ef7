import { describe, expect, it } from "vitest";
import { BASE, call } from "../../support/harness";
import { memberWithRole, type Person, signedIn, workspaceWithOwner } from "./support";

/** A post body on a LinkedIn account connected through `api` (an editor may connect accounts). */
async function postBody(api: Person["api"]) {
  const account = await api("POST", "/api/social-accounts", {
    platform: "linkedin",
    display_name: "Acme",
    username: "acme",
    credentials: { access_token: "token" },
  });
  expect(account.status, account.text).toBe(201);
  return { platforms: [{ social_account_id: account.body.id, content_type: "linkedin_post" }], content: "Hello" };
}
const DRAFT = { platforms: [{ social_account_id: "0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a" }], content: "Hello" };

describe("roles map onto the key scopes (issue 27)", () => {
  it("viewer reads, and cannot change anything", async () => {
    const ws = await workspaceWithOwner();
    const viewer = await memberWithRole(ws, "viewer");
    expect((await viewer.api("GET", "/api/posts")).status).toBe(200);
    expect((await viewer.api("GET", "/api/labels")).status).toBe(200);
    const post = await viewer.api("POST", "/api/posts", DRAFT);
    expect(post.status).toBe(403);
    expect(post.body).toEqual({ message: "Your role in this workspace (viewer) does not allow this operation." });
    expect((await viewer.api("POST", "/api/labels", { name: "L", color: "#000000" })).status).toBe(403);
    expect((await viewer.api("GET", "/api/api-keys")).status).toBe(403);
    expect((await viewer.api("GET", "/api/members")).status).toBe(403);
  });

  it("editor posts and makes labels, but cannot touch API keys, webhooks or members", async () => {
    const ws = await workspaceWithOwner();
    const editor = await memberWithRole(ws, "editor");
    const post = await editor.api("POST", "/api/posts", await postBody(editor.api));
    expect(post.status, post.text).toBe(201);
    const label = await editor.api("POST", "/api/labels", { name: "Launch", color: "#1D4ED8" });
    expect(label.status, label.text).toBe(201);
    const signature = await editor.api("POST", "/api/signatures", { name: "Sig", content: "-- us" });
    expect(signature.status, signature.text).toBe(201);
    for (const [method, path, body] of [
      ["POST", "/api/api-keys", { name: "k" }],
      ["GET", "/api/api-keys", undefined],
      ["POST", "/api/webhooks", { url: "https://hooks.example.com/x", events: ["post.published"] }],
      ["GET", "/api/webhooks", undefined],
      ["POST", "/api/invitations", { role: "viewer" }],
      ["GET", "/api/members", undefined],
    ] as const) {
      const res = await editor.api(method, path, body);
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(403);
      expect(res.body).toEqual({ message: "Your role in this workspace (editor) does not allow this operation." });
    }
  });

  it("admin manages keys, webhooks and invitations; a key minted by a person is a root key", async () => {
    const ws = await workspaceWithOwner();
    const admin = await memberWithRole(ws, "admin");
    const key = await admin.api("POST", "/api/api-keys", { name: "from the dashboard", scopes: ["publish"] });
    expect(key.status, key.text).toBe(201);
    expect(key.body.token.scopes).toEqual(["publish"]);
    const used = await call("GET", "/api/posts", { key: key.body.plain_token });
    expect(used.status).toBe(200);
    const revoked = await admin.api("DELETE", `/api/api-keys/${key.body.token.id}`);
    expect(revoked.status, revoked.text).toBe(204);
    expect((await call("GET", "/api/posts", { key: key.body.plain_token })).status).toBe(401);
    // The owner's bootstrap key too: an admin revokes like a root full key.
    const invite = await admin.api("POST", "/api/invitations", { role: "editor" });
    expect(invite.status, invite.text).toBe(201);
    const webhook = await admin.api("GET", "/api/webhooks");
    expect(webhook.status).toBe(200);
  });

  it("owner signs in and reaches everything", async () => {
    const ws = await workspaceWithOwner();
    const owner = await signedIn(ws.email);
    expect((await owner.api("GET", "/api/members")).status).toBe(200);
    expect((await owner.api("POST", "/api/posts", await postBody(owner.api))).status).toBe(201);
    expect((await owner.api("GET", "/api/api-keys")).status).toBe(200);
  });

  it("CSRF: a cookie-authenticated write without a same-origin Origin is refused; reads need none", async () => {
    const ws = await workspaceWithOwner();
    const owner = await signedIn(ws.email);
    const POST = await postBody(owner.api);
    const none = await owner.api("POST", "/api/posts", POST, { headers: { Origin: "" } });
    // An empty Origin header is as good as none.
    expect(none.status).toBe(403);
    const foreign = await owner.api("POST", "/api/posts", POST, { headers: { Origin: "https://evil.example" } });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual({
      message:
        "Cross-origin request refused: a request signed in with the session cookie that changes anything must carry an Origin header of this site.",
    });
    const del = await owner.api("DELETE", "/api/session", undefined, { headers: { Origin: "https://evil.example" } });
    expect(del.status).toBe(403);
    const read = await owner.api("GET", "/api/posts", undefined, { headers: { Origin: "https://evil.example" } });
    expect(read.status).toBe(200);
    const same = await owner.api("POST", "/api/posts", POST, { headers: { Origin: BASE } });
    expect(same.status).toBe(201);
  });

  it("a signed-in person has a per-person throttle of their own (SESSION_RATE_LIMIT_PER_MINUTE, not a key's): X-RateLimit headers, 429 past the limit", async () => {
    const ws = await workspaceWithOwner();
    const owner = await signedIn(ws.email);
    const first = await owner.api("GET", "/api/workspace");
    expect(first.headers.get("x-ratelimit-limit")).toBe("90");
    let last = first;
    // At most twice the limit: a window boundary in between restarts the count once (fixed windows).
    for (let i = 0; i < 180 && last.status !== 429; i++) last = await owner.api("GET", "/api/workspace");
    expect(last.status).toBe(429);
    expect(last.headers.get("retry-after")).toMatch(/^\d+$/);
    // The workspace's own API key is not the person: its window is its own.
    expect((await call("GET", "/api/workspace", { key: ws.key })).status).toBe(200);
  });

  it("the MCP endpoint stays API-key only", async () => {
    const ws = await workspaceWithOwner();
    const owner = await signedIn(ws.email);
    const res = await owner.api("POST", "/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(res.status).toBe(401);
  });
});
