// fresh storage: our OAuth app is registered once per Mastodon instance and kept in D1; this file fakes its own.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { fakeOrigin } from "../support/fake-fetch";
import { BSKY_PDS, FakeBluesky } from "../support/fakes/bluesky";
import { FakeMastodon } from "../support/fakes/mastodon";
import { fakePlcDirectory } from "../support/fakes/plc";
import { createTestWorkspace, type TestWorkspace } from "../support/harness";
import { browse, connectThroughApi, formOf, postForm } from "../support/oauth/browser";
import { fakeMastodonOAuth } from "../support/oauth/fake-oauth";
import { installOAuthNetwork } from "../support/oauth/install";

/**
 * Issue 25 finding 1: a connected account cannot be taken over by a server that answers with its id. A Bluesky
 * account is its DID verified against its DID document; a Mastodon account is its id at its instance. A reconnect
 * never moves an account to another server. (Mastodon runs on fakes only: no real instance can run here.)
 */
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const off of cleanups.splice(0).reverse()) off();
});

const row = (id: string) =>
  env.DB.prepare("SELECT id, platform_user_id, server, meta, credentials, status FROM social_accounts WHERE id = ?")
    .bind(id)
    .first<{
      id: string;
      platform_user_id: string;
      server: string;
      meta: string;
      credentials: string;
      status: string;
    }>();
const accountsOf = async (ws: TestWorkspace) =>
  (
    await env.DB.prepare(
      "SELECT id, platform, platform_user_id, server FROM social_accounts WHERE workspace_id = ? ORDER BY created_at, rowid",
    )
      .bind(ws.workspaceId)
      .all<{ id: string; platform: string; platform_user_id: string; server: string }>()
  ).results;

/**
 * A PDS of the attacker's: it accepts any password and answers with the DID it is told to claim, issuing its own
 * tokens (and vouching for them at getSession).
 */
function impostorPds(origin: string, claimedDid: string, handle: string) {
  const sessions: string[] = [];
  cleanups.push(
    fakeOrigin(origin, async (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/xrpc/com.atproto.server.createSession") {
        sessions.push(claimedDid);
        return Response.json({
          did: claimedDid,
          handle,
          accessJwt: "forged-access",
          refreshJwt: "forged-refresh",
          active: true,
        });
      }
      if (path === "/xrpc/com.atproto.server.getSession") return Response.json({ did: claimedDid, handle });
      return Response.json({ error: "MethodNotImplemented" }, { status: 501 });
    }),
  );
  return sessions;
}

const blueskyBody = (identifier: string, password: string, service: string) => ({
  platform: "bluesky",
  display_name: "Alice",
  username: "",
  credentials: { identifier, app_password: password },
  meta: { service },
});

describe("Bluesky: the DID is verified against its DID document", () => {
  it("a PDS that answers with the victim's DID cannot reconnect the victim's account; the genuine reconnect still works", async () => {
    const bsky = new FakeBluesky();
    cleanups.push(bsky.install());
    const ws = await createTestWorkspace();
    const connected = await ws.api(
      "POST",
      "/api/social-accounts",
      blueskyBody(bsky.identifier, bsky.password, BSKY_PDS),
    );
    expect(connected.status, connected.text).toBe(201);
    const before = await row(connected.body.id);
    // Bound to the PDS its DID document names (bsky.social-style entryway: the session was checked there).
    expect(before).toMatchObject({ platform_user_id: bsky.did, server: bsky.pdsEndpoint });

    const evil = "https://evil-pds.fake";
    const claims = impostorPds(evil, bsky.did, bsky.userHandle);
    const hijack = await ws.api("POST", "/api/social-accounts", blueskyBody("attacker", "anything", evil));
    const message =
      `The Bluesky server ${evil} cannot sign in as ${bsky.did}: its DID document names ${bsky.pdsEndpoint} as the ` +
      "account's server, and that server did not accept the session.";
    expect(hijack).toMatchObject({ status: 422, body: { message, errors: { "meta.service": [message] } } });
    expect(claims).toEqual([bsky.did]);
    // The real PDS was asked whether the forged session is one of its own, and said no.
    expect(bsky.count("GET /xrpc/com.atproto.server.getSession")).toBe(2);
    expect(await row(connected.body.id)).toEqual(before);
    expect(await accountsOf(ws)).toHaveLength(1);

    // The same attempt through a hosted connect link (what a link holder would do): refused on the page.
    const link = await ws.api("POST", "/api/connect-links", {});
    const token = new URL(link.body.url).pathname.split("/")[2]!;
    const { csrf } = formOf((await browse("GET", `/connect/${token}`)).text);
    const page = await postForm(`/connect/${token}/bluesky`, [
      ["csrf", csrf],
      ["identifier", "attacker"],
      ["app_password", "anything"],
      ["service", evil],
    ]);
    expect(page.status).toBe(422);
    expect(page.text).toContain("did not accept the session.");
    expect(await row(connected.body.id)).toEqual(before);

    // The owner reconnects: same row, new session, same server.
    const again = await ws.api("POST", "/api/social-accounts", blueskyBody(bsky.identifier, bsky.password, BSKY_PDS));
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(connected.body.id);
    const after = await row(connected.body.id);
    expect(after).toMatchObject({ server: bsky.pdsEndpoint, status: "connected" });
    expect(after!.credentials).not.toBe(before!.credentials);
  });

  it("did:web: the document at the DID's host names the PDS; a server claiming that DID is refused", async () => {
    const did = "did:web:alice.example";
    const pds = "https://alice-pds.fake";
    const doc = (endpoint: string) =>
      Response.json({
        id: did,
        service: [{ id: "#atproto_pds", type: "AtprotoPersonalDataServer", serviceEndpoint: endpoint }],
      });
    cleanups.push(
      fakeOrigin("https://alice.example", (req) =>
        new URL(req.url).pathname === "/.well-known/did.json" ? doc(pds) : new Response("no", { status: 404 }),
      ),
    );
    cleanups.push(
      fakeOrigin(pds, async (req) => {
        if (new URL(req.url).pathname === "/xrpc/com.atproto.server.getSession") {
          const own = req.headers.get("authorization") === "Bearer a";
          return own
            ? Response.json({ did, handle: "alice.example" })
            : Response.json({ error: "InvalidToken", message: "Bad token" }, { status: 400 });
        }
        const body = (await req.json()) as { password: string };
        if (body.password !== "alice-app-password")
          return Response.json({ error: "AuthenticationRequired", message: "Invalid" }, { status: 401 });
        return Response.json({ did, handle: "alice.example", accessJwt: "a", refreshJwt: "r" });
      }),
    );
    const ws = await createTestWorkspace();
    const ok = await ws.api("POST", "/api/social-accounts", blueskyBody("alice.example", "alice-app-password", pds));
    expect(ok.status, ok.text).toBe(201);
    expect(await row(ok.body.id)).toMatchObject({ platform_user_id: did, server: pds });

    impostorPds("https://evil-web.fake", did, "alice.example");
    const hijack = await ws.api("POST", "/api/social-accounts", blueskyBody("x", "y", "https://evil-web.fake"));
    expect(hijack.status).toBe(422);
    expect(hijack.body.message).toContain(`its DID document names ${pds}`);
    expect(await row(ok.body.id)).toMatchObject({ server: pds, meta: JSON.stringify({ service: pds, did }) });
  });

  it("a DID whose document cannot be read, or that names no PDS, is refused", async () => {
    const plc = new Map<string, string>();
    cleanups.push(fakePlcDirectory(plc));
    impostorPds("https://nowhere-pds.fake", "did:plc:unknown000000000000000000", "who.test");
    const ws = await createTestWorkspace();
    const res = await ws.api("POST", "/api/social-accounts", blueskyBody("who", "pw", "https://nowhere-pds.fake"));
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(
      "The DID document of did:plc:unknown000000000000000000 could not be read or names no Bluesky server (PDS).",
    );
    impostorPds("https://odd-pds.fake", "did:key:z6Mk", "odd.test");
    const odd = await ws.api("POST", "/api/social-accounts", blueskyBody("odd", "pw", "https://odd-pds.fake"));
    expect(odd.body.message).toBe("The Bluesky server answered with did:key:z6Mk, a DID that cannot be verified.");
    expect(await accountsOf(ws)).toEqual([]);
  });

  it("an account whose DID now names another PDS is not moved (409) until its row is disconnected", async () => {
    const bsky = new FakeBluesky();
    bsky.pdsEndpoint = BSKY_PDS; // the login server is the PDS itself
    cleanups.push(bsky.install());
    const ws = await createTestWorkspace();
    const first = await ws.api("POST", "/api/social-accounts", blueskyBody(bsky.identifier, bsky.password, BSKY_PDS));
    expect(first.status).toBe(201);
    expect(await row(first.body.id)).toMatchObject({ server: BSKY_PDS });

    // The account migrated: its DID document names a new PDS, which holds the account now.
    const moved = "https://new-home-pds.fake";
    bsky.pdsEndpoint = moved;
    cleanups.push(fakeOrigin(moved, (req) => bsky.serve(req)));
    const refused = await ws.api("POST", "/api/social-accounts", blueskyBody(bsky.identifier, bsky.password, moved));
    expect(refused).toMatchObject({
      status: 409,
      body: {
        message:
          `This Bluesky account (${bsky.did}) is connected through ${BSKY_PDS}, and its DID document now names ` +
          `${moved}. A connected account never moves to another server: disconnect it ` +
          `(DELETE /api/social-accounts/${first.body.id}) and connect it again.`,
      },
    });
    expect(await row(first.body.id)).toMatchObject({ server: BSKY_PDS, status: "connected" });

    expect((await ws.api("DELETE", `/api/social-accounts/${first.body.id}`)).status).toBe(204);
    const again = await ws.api("POST", "/api/social-accounts", blueskyBody(bsky.identifier, bsky.password, moved));
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(first.body.id);
    expect(await row(again.body.id)).toMatchObject({ server: moved, status: "connected" });
  });

  it("a row from before the identity binding (server '') is bound by its first verified reconnect, keeping its id", async () => {
    const bsky = new FakeBluesky();
    cleanups.push(bsky.install());
    const ws = await createTestWorkspace();
    const first = await ws.api("POST", "/api/social-accounts", blueskyBody(bsky.identifier, bsky.password, BSKY_PDS));
    await env.DB.prepare("UPDATE social_accounts SET server = '' WHERE id = ?").bind(first.body.id).run();
    const again = await ws.api("POST", "/api/social-accounts", blueskyBody(bsky.identifier, bsky.password, BSKY_PDS));
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(await row(first.body.id)).toMatchObject({ server: bsky.pdsEndpoint });
    expect(await accountsOf(ws)).toHaveLength(1);
  });
});

describe("Mastodon: an account is its id at its instance", () => {
  it("the same numeric id on two instances is two accounts, through a token and through OAuth; neither moves the other", async () => {
    const one = new FakeMastodon();
    one.origin = "https://one.masto.fake";
    const two = new FakeMastodon();
    two.origin = "https://two.masto.fake";
    two.username = "mallory";
    expect(two.accountId).toBe(one.accountId);
    cleanups.push(one.install(), two.install());
    const ws = await createTestWorkspace();
    const connect = (instance: string) =>
      ws.api("POST", "/api/social-accounts", {
        platform: "mastodon",
        display_name: "M",
        username: "",
        credentials: { access_token: "masto-token" },
        meta: { instance },
      });
    const alice = await connect(one.origin);
    expect(alice.status, alice.text).toBe(201);
    const aliceBefore = await row(alice.body.id);
    expect(aliceBefore).toMatchObject({ platform_user_id: one.accountId, server: one.origin });

    // The other instance's account with the same id: its own row; Alice's row keeps its instance and token.
    const mallory = await connect(two.origin);
    expect(mallory.status).toBe(201);
    expect(mallory.body.id).not.toBe(alice.body.id);
    expect(await row(alice.body.id)).toEqual(aliceBefore);
    expect(JSON.parse((await row(mallory.body.id))!.meta).instance).toBe(two.origin);

    // Through OAuth on the second instance: a reconnect of Mallory's row, not of Alice's.
    const net = fakeMastodonOAuth({ instance: two.origin });
    net.oauth.nextAccessToken = () => "masto-oauth-token";
    two.tokens.add("masto-oauth-token");
    cleanups.push(installOAuthNetwork(net));
    const { callback } = await connectThroughApi(ws, { platform: "mastodon", instance: "two.masto.fake" });
    expect(callback.status, callback.text).toBe(200);
    expect(await row(alice.body.id)).toEqual(aliceBefore);
    expect(await accountsOf(ws)).toEqual([
      { id: alice.body.id, platform: "mastodon", platform_user_id: one.accountId, server: one.origin },
      { id: mallory.body.id, platform: "mastodon", platform_user_id: two.accountId, server: two.origin },
    ]);

    // Alice reconnecting on her own instance is a reconnect of her row.
    const back = await connect(one.origin);
    expect(back.body.id).toBe(alice.body.id);
  });

  it("migration 0011 binds existing Mastodon rows to their instance, so their next connect is a reconnect", async () => {
    const masto = new FakeMastodon();
    masto.origin = "https://legacy.masto.fake";
    cleanups.push(masto.install());
    const ws = await createTestWorkspace();
    const id = crypto.randomUUID();
    const now = Date.now();
    // A row as it was before 0011: no server, the instance in meta (with a trailing slash and capitals).
    await env.DB.prepare(
      `INSERT INTO social_accounts (id, workspace_id, platform, platform_user_id, display_name, username, is_active,
         status, credentials, meta, created_at, updated_at, server)
       VALUES (?, ?, 'mastodon', ?, 'Old', 'old', 1, 'connected', NULL, ?, ?, ?, '')`,
    )
      .bind(id, ws.workspaceId, masto.accountId, JSON.stringify({ instance: "https://Legacy.Masto.Fake/" }), now, now)
      .run();
    const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith("0011_"))!;
    const backfill = migration.queries.find((q) => q.includes("UPDATE"))!;
    await env.DB.prepare(`${backfill.trim().replace(/;$/, "")} AND id = ?`)
      .bind(id)
      .run();
    expect(await row(id)).toMatchObject({ server: "https://legacy.masto.fake" });

    const again = await ws.api("POST", "/api/social-accounts", {
      platform: "mastodon",
      display_name: "Old",
      username: "",
      credentials: { access_token: "masto-token" },
      meta: { instance: masto.origin },
    });
    expect(again.status, again.text).toBe(201);
    expect(again.body.id).toBe(id);
    expect(await accountsOf(ws)).toHaveLength(1);
  });
});
