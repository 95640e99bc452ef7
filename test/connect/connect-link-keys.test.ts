// Issue 25 (5): connect links and OAuth flows end with the API key that made them; links can be listed and deleted.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { fakeFacebookGraph } from "../support/fakes/meta";
import { call, createTestWorkspace, type TestWorkspace } from "../support/harness";
import { connectMcp } from "../support/mcp-client";
import { browse, consent, formOf, postForm } from "../support/oauth/browser";
import { type FakeNetwork, fakeFacebookOAuth } from "../support/oauth/fake-oauth";
import { countSocialAccounts, installConnectedX, installOAuthNetwork } from "../support/oauth/install";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const off of cleanups.splice(0).reverse()) off();
});

const ENDED =
  "This connection was withdrawn: the API key that started it (or made its connect link) was revoked or has expired, or the link was deleted. Nothing was connected.";
const KEY_ENDED =
  "The API key that made this connect link has been revoked or has expired, so it no longer connects accounts.";

const xNetwork = (): FakeNetwork => installConnectedX(cleanups).net;

async function mint(ws: TestWorkspace, body: Record<string, unknown>) {
  const res = await ws.api("POST", "/api/api-keys", body);
  expect(res.status).toBe(201);
  return { key: res.body.plain_token as string, id: res.body.token.id as string };
}

const revoke = async (ws: TestWorkspace, id: string) =>
  expect((await ws.api("DELETE", `/api/api-keys/${id}`)).status).toBe(204);

async function linkBy(key: string, body: Record<string, unknown> = {}) {
  const res = await call("POST", "/api/connect-links", { key, body });
  expect(res.status).toBe(201);
  const url = new URL(res.body.url);
  return { path: url.pathname, token: url.pathname.split("/").pop()!, body: res.body };
}

/** Starts X from a link page and consents; returns the callback path (not yet opened). */
async function startXFromLink(path: string): Promise<string> {
  const { action, csrf } = formOf((await browse("GET", path)).text);
  const start = await postForm(action, [
    ["csrf", csrf],
    ["platform", "x"],
  ]);
  expect(start.status).toBe(303);
  return consent(start.headers.get("location")!);
}

const countAccounts = (ws: TestWorkspace) => countSocialAccounts(ws.workspaceId);

function endedPage(res: { status: number; text: string }, status: number, text: string) {
  expect(res.status).toBe(status);
  expect(res.text).toContain(text);
}

describe("a connect link ends with its API key", () => {
  it("never outlives the key that made it", async () => {
    const ws = await createTestWorkspace();
    const keyExpiry = Date.now() + 120_000;
    const short = await mint(ws, { name: "short", expires_at: new Date(keyExpiry).toISOString() });
    const { body } = await linkBy(short.key, { expires_in: 604_800 });
    expect(Date.parse(body.expires_at)).toBeLessThanOrEqual(keyExpiry);
    expect(Date.parse(body.expires_at)).toBeGreaterThan(keyExpiry - 1000);
  });

  it("answers 410 once its key is revoked — page and forms — and the list says why", async () => {
    const ws = await createTestWorkspace("Withdrawn Inc");
    const child = await mint(ws, { name: "child" });
    const { path, token, body } = await linkBy(child.key, { purpose: "Spring campaign" });
    const { csrf } = formOf((await browse("GET", path)).text);
    await revoke(ws, child.id);
    const withdrawn = await browse("GET", path);
    endedPage(withdrawn, 410, KEY_ENDED);
    // The page still says who had asked.
    expect(withdrawn.text).toContain("Workspace: <strong>Withdrawn Inc</strong><br>Purpose: Spring campaign");
    endedPage(
      await postForm(`/connect/${token}/start`, [
        ["csrf", csrf],
        ["platform", "x"],
      ]),
      410,
      KEY_ENDED,
    );
    endedPage(await postForm(`/connect/${token}/bluesky`, [["csrf", csrf]]), 410, KEY_ENDED);
    const list = await ws.api("GET", "/api/connect-links");
    expect(list.body.data).toEqual([
      {
        id: body.id,
        purpose: "Spring campaign",
        redirect_url: null,
        api_key_id: child.id,
        status: "key_ended",
        expires_at: body.expires_at,
        created_at: expect.any(String),
      },
    ]);
  });

  it("answers 410 once its key has expired", async () => {
    const ws = await createTestWorkspace();
    const { path } = await linkBy(ws.key);
    expect((await browse("GET", path)).status).toBe(200);
    await env.DB.prepare("UPDATE api_keys SET expires_at = ? WHERE id = ?")
      .bind(Date.now() - 1, ws.keyId)
      .run();
    endedPage(await browse("GET", path), 410, KEY_ENDED);
  });

  it("a flow started from the link is refused at its callback once the key is revoked; nothing is stored", async () => {
    const ws = await createTestWorkspace();
    const net = xNetwork();
    const child = await mint(ws, { name: "child" });
    const { path } = await linkBy(child.key);
    const callbackPath = await startXFromLink(path);
    await revoke(ws, child.id);
    endedPage(await browse("GET", callbackPath), 403, ENDED);
    expect(net.oauth.tokenRequests).toHaveLength(0);
    expect(await countAccounts(ws)).toBe(0);
  });

  it("an API-started flow is refused at its callback once its key is revoked, with ?error=revoked", async () => {
    const ws = await createTestWorkspace();
    xNetwork();
    const child = await mint(ws, { name: "child" });
    const start = await call("POST", "/api/social-accounts/connect", {
      key: child.key,
      body: { platform: "x", redirect_url: "https://app.example/connected" },
    });
    const callbackPath = await consent(start.body.url);
    await revoke(ws, child.id);
    const res = await browse("GET", callbackPath);
    expect(res.status).toBe(303);
    const to = new URL(res.headers.get("location")!);
    expect(Object.fromEntries(to.searchParams)).toEqual({ error: "revoked", error_description: ENDED });
    expect(await countAccounts(ws)).toBe(0);
  });

  it("a selection waiting for its pick is refused once the key is revoked", async () => {
    const ws = await createTestWorkspace();
    const graph = fakeFacebookGraph();
    cleanups.push(graph.uninstall);
    cleanups.push(
      installOAuthNetwork(
        fakeFacebookOAuth({ authOrigin: "https://facebook-auth.fake", graphOrigin: "https://facebook.fake" }),
      ),
    );
    const child = await mint(ws, { name: "child" });
    const start = await call("POST", "/api/social-accounts/connect", {
      key: child.key,
      body: { platform: "facebook" },
    });
    const callback = await browse("GET", await consent(start.body.url));
    expect(callback.status).toBe(303);
    const selectPath = callback.headers.get("location")!;
    const { action, csrf } = formOf((await browse("GET", selectPath)).text);
    await revoke(ws, child.id);
    endedPage(await browse("GET", selectPath), 403, ENDED);
    endedPage(
      await postForm(action, [
        ["csrf", csrf],
        ["account", "0"],
      ]),
      403,
      ENDED,
    );
    expect(await countAccounts(ws)).toBe(0);
  });
});

describe("GET and DELETE /api/connect-links", () => {
  it("lists links newest first, 50 per page, and deletes one (its page 404s, its flows are refused)", async () => {
    const ws = await createTestWorkspace();
    const other = await createTestWorkspace();
    xNetwork();
    const made = [];
    for (let i = 0; i < 3; i++) {
      made.push(await linkBy(ws.key, { purpose: `link ${i}`, redirect_url: "https://app.example/after" }));
    }
    const list = await ws.api("GET", "/api/connect-links");
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({ current_page: 1, per_page: 50, total: 3, last_page: 1 });
    expect(list.body.data.map((l: { purpose: string }) => l.purpose)).toEqual(["link 2", "link 1", "link 0"]);
    expect(list.body.data[0]).toEqual({
      id: made[2]!.body.id,
      purpose: "link 2",
      redirect_url: "https://app.example/after",
      api_key_id: ws.keyId,
      status: "active",
      expires_at: made[2]!.body.expires_at,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/),
    });
    expect(JSON.stringify(list.body)).not.toContain(made[0]!.token);
    expect((await ws.api("GET", "/api/connect-links?page=2")).body).toEqual({
      data: [],
      meta: { current_page: 2, per_page: 50, total: 3, last_page: 1 },
    });

    // A flow started from link 0, then the link is deleted before the user comes back.
    const callbackPath = await startXFromLink(made[0]!.path);
    expect((await other.api("DELETE", `/api/connect-links/${made[0]!.body.id}`)).status).toBe(404);
    expect((await ws.api("DELETE", `/api/connect-links/${made[0]!.body.id}`)).status).toBe(204);
    expect((await ws.api("DELETE", `/api/connect-links/${made[0]!.body.id}`)).status).toBe(404);
    expect((await browse("GET", made[0]!.path)).status).toBe(404);
    const res = await browse("GET", callbackPath);
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get("location")!).searchParams.get("error")).toBe("revoked");
    expect(await countAccounts(ws)).toBe(0);
    expect((await ws.api("GET", "/api/connect-links")).body.meta.total).toBe(2);
  });

  it("needs the full scope, like creating one; the MCP tools list and delete the same links", async () => {
    const ws = await createTestWorkspace();
    const publish = await mint(ws, { name: "p", scopes: ["publish"] });
    const need = {
      message: "This API key's scope (publish) does not allow this operation; it needs the full scope.",
    };
    const { body } = await linkBy(ws.key);
    for (const [method, path] of [
      ["GET", "/api/connect-links"],
      ["POST", "/api/connect-links"],
      ["DELETE", `/api/connect-links/${body.id}`],
    ] as const) {
      const res = await call(method, path, { key: publish.key, body: method === "POST" ? {} : undefined });
      expect([method, res.status, res.body]).toEqual([method, 403, need]);
    }
    const client = await connectMcp(ws.key);
    const listed = await client.callTool({ name: "list-connect-links-tool", arguments: {} });
    expect((listed.structuredContent as { data: { id: string }[] }).data.map((l) => l.id)).toEqual([body.id]);
    const deleted = await client.callTool({ name: "delete-connect-link-tool", arguments: { link_id: body.id } });
    expect(deleted.structuredContent).toEqual({ deleted: true });
    expect((await ws.api("GET", "/api/connect-links")).body.data).toEqual([]);
    const publisher = await connectMcp(publish.key);
    const denied = await publisher.callTool({ name: "list-connect-links-tool", arguments: {} });
    expect(denied.structuredContent).toEqual(need);
  });
});
