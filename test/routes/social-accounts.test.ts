import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { describeAuth } from "../support/auth-cases";
import { fakeOrigin } from "../support/fake-fetch";
import { fakePlcDirectory } from "../support/fakes/plc";
import { createTestWorkspace, UUID, YMDHIS } from "../support/harness";

const SOME_ID = "0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a";
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A PDS that accepts one app password, like com.atproto.server.createSession does (its DID document names it). */
function fakePds(origin: string) {
  cleanups.push(fakePlcDirectory(new Map([["did:plc:abc123", origin]])));
  cleanups.push(
    fakeOrigin(origin, async (req) => {
      const url = new URL(req.url);
      if (req.method === "POST" && url.pathname === "/xrpc/com.atproto.server.createSession") {
        const body = (await req.json()) as { identifier: string; password: string };
        if (body.password !== "abcd-efgh-ijkl-mnop")
          return Response.json(
            { error: "AuthenticationRequired", message: "Invalid identifier or password" },
            { status: 401 },
          );
        return Response.json({
          did: "did:plc:abc123",
          handle: "alice.bsky.social",
          accessJwt: "access.jwt.value",
          refreshJwt: "refresh.jwt.value",
          active: true,
        });
      }
      return Response.json({ error: "MethodNotImplemented" }, { status: 501 });
    }),
  );
}

function fakeMastodon(origin: string) {
  cleanups.push(
    fakeOrigin(origin, (req) => {
      const url = new URL(req.url);
      if (url.pathname === "/api/v1/accounts/verify_credentials") {
        if (req.headers.get("Authorization") !== "Bearer masto-token")
          return Response.json({ error: "The access token is invalid" }, { status: 401 });
        return Response.json({
          id: "109",
          username: "bob",
          acct: "bob",
          display_name: "Bob",
          avatar: "https://m.fake/a.png",
        });
      }
      return Response.json({ error: "Record not found" }, { status: 404 });
    }),
  );
}

const xAccount = {
  platform: "x",
  display_name: "Acme on X",
  username: "acme",
  platform_user_id: "2244994945",
  credentials: {
    access_token: "x-access-secret",
    refresh_token: "x-refresh-secret",
    expires_at: "2099-01-01T00:00:00Z",
  },
};

describe("social accounts", () => {
  describeAuth("GET", "/api/social-accounts");
  describeAuth("POST", "/api/social-accounts", xAccount);
  describeAuth("PUT", `/api/social-accounts/${SOME_ID}/toggle`);
  describeAuth("DELETE", `/api/social-accounts/${SOME_ID}`);

  it("connects an OAuth account; credentials are encrypted and never returned", async () => {
    const ws = await createTestWorkspace();
    const res = await ws.api("POST", "/api/social-accounts", xAccount);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      platform: "x",
      display_name: "Acme on X",
      username: "acme",
      avatar_url: null,
      is_active: true,
      status: "connected",
      expires_at: null,
      refreshable: true,
      health: "ok",
      health_reason: null,
      created_at: expect.stringMatching(YMDHIS),
      updated_at: expect.stringMatching(YMDHIS),
    });
    const row = await env.DB.prepare("SELECT * FROM social_accounts WHERE id = ?")
      .bind(res.body.id)
      .first<Record<string, unknown>>();
    expect(JSON.stringify(row)).not.toContain("x-access-secret");
    expect(JSON.stringify(row)).not.toContain("x-refresh-secret");
    expect(String(row?.credentials)).toMatch(/^v2\.[0-9a-f]{8}\./);
    expect(row?.token_expires_at).toBe(Date.UTC(2099, 0, 1));
  });

  it("verifies Bluesky app passwords with the PDS and stores the DID", async () => {
    fakePds("https://pds.fake");
    const ws = await createTestWorkspace();
    const res = await ws.api("POST", "/api/social-accounts", {
      platform: "bluesky",
      display_name: "Alice",
      username: "",
      credentials: { identifier: "alice.bsky.social", app_password: "abcd-efgh-ijkl-mnop" },
      meta: { service: "https://pds.fake/" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ platform: "bluesky", username: "alice.bsky.social", status: "connected" });
    const row = await env.DB.prepare("SELECT platform_user_id, meta, credentials FROM social_accounts WHERE id = ?")
      .bind(res.body.id)
      .first<{ platform_user_id: string; meta: string; credentials: string }>();
    expect(row?.platform_user_id).toBe("did:plc:abc123");
    expect(JSON.parse(row!.meta)).toEqual({ service: "https://pds.fake", did: "did:plc:abc123" });
    expect(row?.credentials).not.toContain("abcd-efgh");

    const bad = await ws.api("POST", "/api/social-accounts", {
      platform: "bluesky",
      display_name: "Alice",
      credentials: { identifier: "alice.bsky.social", app_password: "wrong" },
      meta: { service: "https://pds.fake" },
    });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      message: "Bluesky rejected the identifier or app password.",
      errors: { credentials: ["Bluesky rejected the identifier or app password."] },
    });
  });

  it("verifies Mastodon tokens with the instance", async () => {
    fakeMastodon("https://mastodon.fake");
    const ws = await createTestWorkspace();
    const ok = await ws.api("POST", "/api/social-accounts", {
      platform: "mastodon",
      display_name: "Bob",
      username: "bob@mastodon.fake",
      credentials: { access_token: "masto-token" },
      meta: { instance: "https://mastodon.fake" },
    });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ platform: "mastodon", avatar_url: "https://m.fake/a.png" });
    const bad = await ws.api("POST", "/api/social-accounts", {
      platform: "mastodon",
      display_name: "Bob",
      credentials: { access_token: "nope" },
      meta: { instance: "https://mastodon.fake" },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({
      "credentials.access_token": ["The Mastodon instance rejected the access token."],
    });
  });

  it("validates platform and per-platform credentials", async () => {
    const ws = await createTestWorkspace();
    const res = await ws.api("POST", "/api/social-accounts", { platform: "myspace", display_name: "" });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      platform: ["The selected platform is invalid."],
      display_name: ["The display name field is required."],
      credentials: ["The credentials field is required."],
    });
    const noToken = await ws.api("POST", "/api/social-accounts", {
      platform: "mastodon",
      display_name: "M",
      credentials: {},
    });
    expect(noToken.status).toBe(422);
    expect(noToken.body.errors).toEqual({
      "credentials.access_token": ["The credentials.access_token field is required."],
      "meta.instance": ["The meta.instance field is required for Mastodon."],
    });
  });

  it("lists by platform then name, toggles, and disconnects keeping the row", async () => {
    const ws = await createTestWorkspace();
    const x2 = await ws.api("POST", "/api/social-accounts", { ...xAccount, display_name: "Zed" });
    // Another X identity: the same platform_user_id again would be a reconnect of x2 (issue 18).
    const x1 = await ws.api("POST", "/api/social-accounts", {
      ...xAccount,
      display_name: "Amy",
      platform_user_id: "2244994946",
    });
    const li = await ws.api("POST", "/api/social-accounts", { ...xAccount, platform: "linkedin", display_name: "Lin" });
    const list = await ws.api("GET", "/api/social-accounts");
    expect(list.body.map((a: { id: string }) => a.id)).toEqual([li.body.id, x1.body.id, x2.body.id]);

    const off = await ws.api("PUT", `/api/social-accounts/${x1.body.id}/toggle`);
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ ...x1.body, is_active: false, updated_at: expect.stringMatching(YMDHIS) });
    const on = await ws.api("PUT", `/api/social-accounts/${x1.body.id}/toggle`);
    expect(on.body.is_active).toBe(true);

    const del = await ws.api("DELETE", `/api/social-accounts/${x2.body.id}`);
    expect(del.status).toBe(204);
    const after = await ws.api("GET", "/api/social-accounts");
    expect(after.body.find((a: { id: string }) => a.id === x2.body.id)).toEqual({
      ...x2.body,
      is_active: false,
      status: "disconnected",
      health: "needs_reconnect",
      health_reason: "The account was disconnected.",
      updated_at: expect.stringMatching(YMDHIS),
    });
    const row = await env.DB.prepare("SELECT credentials FROM social_accounts WHERE id = ?")
      .bind(x2.body.id)
      .first<{ credentials: string | null }>();
    expect(row?.credentials).toBeNull();
  });

  it("keeps workspaces apart", async () => {
    const a = await createTestWorkspace();
    const b = await createTestWorkspace();
    const acc = await a.api("POST", "/api/social-accounts", xAccount);
    expect((await b.api("PUT", `/api/social-accounts/${acc.body.id}/toggle`)).status).toBe(404);
    expect((await b.api("DELETE", `/api/social-accounts/${acc.body.id}`)).status).toBe(404);
    expect((await b.api("GET", "/api/social-accounts")).body).toEqual([]);
    expect((await b.api("PUT", "/api/social-accounts/nope/toggle")).status).toBe(404);
  });
});
