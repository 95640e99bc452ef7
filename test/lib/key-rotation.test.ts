// fresh storage: our OAuth app is registered once per Mastodon instance and kept in D1; this file fakes its own.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config";
import { createDb } from "../../src/db/client";
import worker from "../../src/index";
import { encryptJson, sealingKeyId } from "../../src/lib/crypto";
import { openSecret, sealSecret } from "../../src/lib/sealing";
import { createSelection } from "../../src/services/connect/selections";
import { UNREADABLE_STEP } from "../../src/services/connect/states";
import { resealSecrets } from "../../src/services/sealing/reseal-secrets";
import { UNOPENABLE_SECRET_ERROR } from "../../src/services/webhooks/deliver";
import { dispatchWebhookEvents } from "../../src/services/webhooks/dispatch";
import { dataEvent } from "../../src/services/webhooks/outbox";
import { FakeMastodon } from "../support/fakes/mastodon";
import { FakeX } from "../support/fakes/x";
import { type ApiResponse, BASE, createTestWorkspace, type TestWorkspace } from "../support/harness";
import { consent, cookieJar } from "../support/oauth/browser";
import { fakeMastodonOAuth, fakeXOAuth } from "../support/oauth/fake-oauth";
import { installOAuthNetwork } from "../support/oauth/install";
import {
  createEndpoint,
  deliverWebhookMessages,
  readDeliveries,
  receiver,
  recordingQueue,
  testContext,
  verify,
} from "../webhooks/support";

/**
 * Issue 25 finding 3: "a restart with a rotated key". Secrets are sealed with key A (the test env's key); the
 * Worker then restarts (a fresh env, so a fresh config) with key B and A listed as previous — everything keeps
 * working — or with B alone — every reader says clearly what is wrong: a webhook delivery ends `failed` with a
 * message, a Mastodon connect registers the app again, an OAuth state or selection answers the hosted error page.
 */
const KEY_A = env.TOKEN_ENCRYPTION_KEY as string;
const KEY_B = "rotated-token-encryption-key-b";
const rotated = { ...env, TOKEN_ENCRYPTION_KEY: KEY_B, TOKEN_ENCRYPTION_KEYS_PREVIOUS: KEY_A } as Cloudflare.Env;
const bOnly = () => ({ ...env, TOKEN_ENCRYPTION_KEY: KEY_B }) as Cloudflare.Env;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const off of cleanups.splice(0).reverse()) off();
});

/** A request to a Worker started with `workerEnv` (no redirects followed). */
async function restartedCall(
  workerEnv: Cloudflare.Env,
  method: string,
  path: string,
  opts: { key?: string; body?: unknown } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
  // The same browser as the rest of the test: the connect flow's binding cookie goes along (issue 25).
  const cookies = [...cookieJar()].map(([k, v]) => `${k}=${v}`).join("; ");
  if (cookies) headers.Cookie = cookies;
  if (opts.body !== undefined) headers["Content-Type"] = "application/json";
  const ctx = createExecutionContext();
  const res = await worker.fetch!(
    new Request(`${BASE}${path}`, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      redirect: "manual",
    }) as Request<unknown, IncomingRequestCfProperties>,
    workerEnv,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // HTML
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** Records one event for the workspace and dispatches it; returns the delivery message. */
async function oneDelivery(ws: TestWorkspace) {
  const recorder = recordingQueue();
  const ctx = testContext({ now: Date.now() }, recorder.queue);
  await ctx.db.batch([dataEvent(ctx, ws.workspaceId, "media.uploaded", { media_id: crypto.randomUUID() })]);
  await dispatchWebhookEvents(ctx);
  const mine = recorder.sent.map((s) => s.body);
  expect(mine.length).toBeGreaterThan(0);
  return mine;
}

function hostedErrorPage(res: ApiResponse, message: string) {
  expect(res.status).toBe(400);
  expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(res.text).toContain("<h1>The account was not connected</h1>");
  expect(res.text).toContain(message);
}

describe("a restart with a rotated TOKEN_ENCRYPTION_KEY", () => {
  it("webhooks: delivered under B with A listed; under B alone the delivery fails with a message, and a new secret works", async () => {
    const ws = await createTestWorkspace();
    const hook = receiver();
    const { id, secret } = await createEndpoint(ws, hook.url, ["media.uploaded"]);

    // B, with A still listed as previous: the secret sealed under A opens, the delivery is signed with it.
    const [first] = await oneDelivery(ws);
    const retries = recordingQueue();
    await deliverWebhookMessages([first!], retries.queue, rotated);
    expect((await readDeliveries(id)).find((d) => d.id === first!.delivery_id)).toMatchObject({
      status: "succeeded",
      error: null,
    });
    expect(hook.received).toHaveLength(1);
    expect(verify(secret, hook.received[0]!).type).toBe("media.uploaded");

    // B alone: the secret does not open. The delivery ends failed with a message — not stuck `sending`, no retry.
    const [second] = await oneDelivery(ws);
    const noRetries = recordingQueue();
    await deliverWebhookMessages([second!], noRetries.queue, bOnly());
    expect((await readDeliveries(id)).find((d) => d.id === second!.delivery_id)).toMatchObject({
      status: "failed",
      attempts: 1,
      next_attempt_at: null,
      response_status: null,
      error: UNOPENABLE_SECRET_ERROR,
    });
    expect(noRetries.sent).toEqual([]);
    expect(hook.received).toHaveLength(1);

    // Rotating the endpoint's secret (under B alone) mends it: the unopenable previous secret is left out.
    const rotation = await restartedCall(bOnly(), "POST", `/api/webhooks/${id}/rotate-secret`, { key: ws.key });
    expect(rotation.status, rotation.text).toBe(200);
    const [third] = await oneDelivery(ws);
    await deliverWebhookMessages([third!], recordingQueue().queue, bOnly());
    expect((await readDeliveries(id)).find((d) => d.id === third!.delivery_id)).toMatchObject({ status: "succeeded" });
    expect(hook.received).toHaveLength(2);
    expect(hook.received[1]!.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(verify(rotation.body.secret, hook.received[1]!).type).toBe("media.uploaded");
  });

  it("Mastodon connect: the app cached under A is used under B+A, and registered again under B alone (no 500)", async () => {
    const instance = `https://masto-${crypto.randomUUID().slice(0, 8)}.example`;
    const masto = new FakeMastodon();
    masto.origin = instance;
    masto.tokens.add("masto-rotated-token");
    cleanups.push(masto.install());
    const net = fakeMastodonOAuth({ instance });
    net.oauth.nextAccessToken = () => "masto-rotated-token";
    cleanups.push(installOAuthNetwork(net));
    const apps = net.data.apps as unknown[];
    const ws = await createTestWorkspace();
    const start = (workerEnv: Cloudflare.Env) =>
      restartedCall(workerEnv, "POST", "/api/social-accounts/connect", {
        key: ws.key,
        body: { platform: "mastodon", instance },
      });

    expect((await start(env)).status).toBe(200); // registers the app, sealed under A
    expect(apps).toHaveLength(1);
    expect((await start(rotated)).status).toBe(200); // the cached app opens with A as previous
    expect(apps).toHaveLength(1);

    const underB = await start(bOnly());
    expect(underB.status, underB.text).toBe(200);
    expect(apps).toHaveLength(2); // A is gone: the app is registered again, and the connect goes on
    const callbackPath = await consent(underB.body.url);
    const callback = await restartedCall(bOnly(), "GET", callbackPath);
    expect(callback.status, callback.text).toBe(200);
    expect(callback.text).toContain("Account connected");
  });

  it("OAuth states: a state sealed under A completes under B+A; under B alone the hosted page says why", async () => {
    const x = new FakeX();
    cleanups.push(x.install());
    x.accessTokens.add("x-rotated-token");
    const net = fakeXOAuth({ authOrigin: "https://x-auth.fake", apiOrigin: "https://x.fake" });
    net.oauth.nextAccessToken = () => "x-rotated-token";
    cleanups.push(installOAuthNetwork(net));
    const ws = await createTestWorkspace();

    const lost = await ws.api("POST", "/api/social-accounts/connect", { platform: "x" });
    const lostCallback = await restartedCall(bOnly(), "GET", await consent(lost.body.url));
    hostedErrorPage(lostCallback, UNREADABLE_STEP);

    const kept = await ws.api("POST", "/api/social-accounts/connect", { platform: "x" });
    const keptCallback = await restartedCall(rotated, "GET", await consent(kept.body.url));
    expect(keptCallback.status, keptCallback.text).toBe(200);
    expect(keptCallback.text).toContain("Account connected");
  });

  it("selections: one sealed under A shows under B+A; under B alone the hosted page says why", async () => {
    const ws = await createTestWorkspace();
    const ctx = testContext({ now: Date.now() }, recordingQueue().queue);
    const candidate = {
      platform: "facebook" as const,
      platformUserId: "page-1",
      displayName: "Page One",
      username: "page-one",
      avatarUrl: null,
      credentials: { access_token: "page-token" },
      tokenExpiresAt: null,
      meta: {},
    };
    const token = await createSelection(ctx, ws.workspaceId, "facebook", {
      candidates: [candidate, { ...candidate, platformUserId: "page-2", displayName: "Page Two" }],
      redirect_url: null,
      link_id: null,
    });
    const kept = await restartedCall(rotated, "GET", `/connect/select/${token}`);
    expect(kept.status).toBe(200);
    expect(kept.text).toContain("Page Two");
    hostedErrorPage(await restartedCall(bOnly(), "GET", `/connect/select/${token}`), UNREADABLE_STEP);
  });

  it("the cron re-seals webhook secrets, Mastodon apps, states and selections (legacy v1 too) under the current key", async () => {
    const ws = await createTestWorkspace();
    const { id } = await createEndpoint(ws, receiver().url, ["media.uploaded"]);
    expect((await ws.api("POST", `/api/webhooks/${id}/rotate-secret`)).status).toBe(200);
    const instance = `https://legacy-${crypto.randomUUID().slice(0, 8)}.example`;
    const redirect = `${BASE}/api/oauth/mastodon/callback`;
    // A Mastodon app cached before issue 25: v1, no key id, no binding.
    await env.DB.prepare(
      "INSERT INTO mastodon_apps (instance, redirect_uri, client_id, sealed_secret, created_at) VALUES (?, ?, 'c', ?, ?)",
    )
      .bind(instance, redirect, await encryptJson(KEY_A, "legacy-app-secret"), Date.now())
      .run();
    const stateId = crypto.randomUUID();
    const payload = { code_verifier: "v", redirect_url: null, instance: null, link_id: null };
    await env.DB.prepare(
      "INSERT INTO oauth_states (id, workspace_id, platform, sealed, expires_at, created_at) VALUES (?, ?, 'x', ?, ?, ?)",
    )
      .bind(stateId, ws.workspaceId, await encryptJson(KEY_A, payload), Date.now() + 600_000, Date.now())
      .run();

    const ctx = {
      env: rotated,
      db: createDb(env.DB),
      config: loadConfig(rotated),
      now: () => Date.now(),
      requestId: "test",
      webhookOutbox: { recorded: false },
      origin: BASE,
      waitUntil: () => {},
    };
    for (let i = 0; i < 20 && (await resealSecrets(ctx)) > 0; i++);

    const kidB = await sealingKeyId(KEY_B);
    const endpoint = await env.DB.prepare("SELECT secret, previous_secret FROM webhook_endpoints WHERE id = ?")
      .bind(id)
      .first<{ secret: string; previous_secret: string }>();
    const app = await env.DB.prepare("SELECT sealed_secret FROM mastodon_apps WHERE instance = ?")
      .bind(instance)
      .first<{ sealed_secret: string }>();
    const state = await env.DB.prepare("SELECT sealed FROM oauth_states WHERE id = ?")
      .bind(stateId)
      .first<{ sealed: string }>();
    for (const v of [endpoint!.secret, endpoint!.previous_secret, app!.sealed_secret, state!.sealed])
      expect(v).toMatch(new RegExp(`^v2\\.${kidB}\\.`));
    // They open with B alone now, each only where it lives.
    const b = { config: loadConfig(bOnly()) };
    expect(await openSecret(b, { table: "webhook_endpoints", row: id }, endpoint!.secret)).toMatch(/^whsec_/);
    expect(await openSecret(b, { table: "mastodon_apps", row: `${instance} ${redirect}` }, app!.sealed_secret)).toBe(
      "legacy-app-secret",
    );
    expect(await openSecret(b, { table: "oauth_states", row: stateId }, state!.sealed)).toEqual(payload);
    await expect(openSecret(b, { table: "oauth_states", row: "another" }, state!.sealed)).rejects.toThrow(
      /cannot be opened/,
    );
    await expect(sealSecret(b, { table: "t", row: "r" }, 1)).resolves.toMatch(new RegExp(`^v2\\.${kidB}\\.`));
  });
});
